import { checkAddReaction, checkRemoveReaction } from "../actions/reactions.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";

/** POST /messages/{message_id}/reactions */
export const addReaction = endpoint({
  auth: "user",
  params: {
    emoji_name: p.string({ trim: false }),
    emoji_code: p.string({ trim: false }).optional(),
    reaction_type: p.string({ trim: false }).optional(),
  },
  handler: async ({ ctx, user, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    await transaction(ctx, (tx) => checkAddReaction(tx, user, messageId, params));
  },
});

/** DELETE /messages/{message_id}/reactions */
export const removeReaction = endpoint({
  auth: "user",
  params: {
    emoji_name: p.string({ trim: false }).optional(),
    emoji_code: p.string({ trim: false }).optional(),
    reaction_type: p.string({ trim: false }).default("unicode_emoji"),
  },
  handler: async ({ ctx, user, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    await transaction(ctx, (tx) => checkRemoveReaction(tx, user, messageId, params));
  },
});
