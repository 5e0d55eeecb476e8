import { endpoint } from "../http/endpoint.js";
import { buildUserPayload } from "../lib/userPayload.js";

/** GET /users/me */
export const getUserMe = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    const maxMessage = await ctx.db.kysely
      .selectFrom("messages")
      .select((eb) => eb.fn.max("id").as("max_id"))
      .where("realm_id", "=", user.realm_id)
      .executeTakeFirst();
    return {
      ...buildUserPayload(user, user, { clientGravatar: false, profileData: new Map() }),
      max_message_id: Number(maxMessage?.max_id ?? -1),
    };
  },
});
