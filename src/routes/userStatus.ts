import { transaction } from "../appContext.js";
import { checkUpdateUserStatus } from "../actions/userStatus.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { accessUserById } from "../lib/access.js";
import { userStatusStore } from "../store/userStatuses.js";
import { formatUserStatus } from "../lib/userStatusPayload.js";

/** GET /users/{user_id}/status */
export const getStatus = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const q = ctx.db.kysely;
    const target = await accessUserById(q, user, pathParam.int(path.user_id_or_email, "user_id"), { forAdministration: false });
    return { status: formatUserStatus(await userStatusStore.get(q, target.id), target) };
  },
});

/** POST /users/me/status */
export const updateUserStatus = endpoint({
  auth: "user",
  params: {
    away: p.bool().optional(),
    status_text: p.string({ maxLength: 60 }).optional(),
    emoji_name: p.string().optional(),
    emoji_code: p.string().optional(),
    reaction_type: p.string().optional(),
  },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => checkUpdateUserStatus(tx, user, params));
  },
});
