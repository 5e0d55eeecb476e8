import { pathParam } from "../http/params.js";
import { checkAddRealmEmoji, checkRemoveRealmEmoji } from "../actions/realmEmoji.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { getRealmEmojiDict } from "../lib/realmEmojiPayload.js";

/** GET /realm/emoji: the list is public to the realm's users. */
export const listEmoji = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, realm }) => ({ emoji: await getRealmEmojiDict(ctx.db.kysely, realm.id) }),
});

/** POST /realm/emoji/{emoji_name}, the image as the one file of a multipart body. */
export const uploadEmoji = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path, request }) => {
    await checkAddRealmEmoji(ctx, user, realm, pathParam.text(path.emoji_name, "emoji_name"), request.files);
  },
});

/** DELETE /realm/emoji/{emoji_name} */
export const deleteEmoji = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    await transaction(ctx, (tx) => checkRemoveRealmEmoji(tx, user, realm, pathParam.text(path.emoji_name, "emoji_name")));
  },
});
