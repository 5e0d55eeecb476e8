import { doMuteUser, doUnmuteUser } from "../actions/mutedUsers.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { pathParam } from "../http/params.js";

/** POST /users/me/muted_users/{muted_user_id} */
export const muteUser = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const mutedUserId = pathParam.int(path.muted_user_id, "muted_user_id");
    await transaction(ctx, (tx) => doMuteUser(tx, user, mutedUserId));
  },
});

/** DELETE /users/me/muted_users/{muted_user_id} */
export const unmuteUser = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const mutedUserId = pathParam.int(path.muted_user_id, "muted_user_id");
    await transaction(ctx, (tx) => doUnmuteUser(tx, user, mutedUserId));
  },
});
