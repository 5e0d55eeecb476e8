import { transaction } from "../appContext.js";
import { doRegenerateApiKey } from "../actions/apiKeys.js";
import { endpoint } from "../http/endpoint.js";
import { passwordLogin } from "../actions/login.js";
import { ApiError, AuthenticationFailedError, RealmDeactivatedError, UserDeactivatedError } from "../lib/errors.js";
import { p } from "../http/params.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";

/** POST /fetch_api_key: password login. Failed attempts are limited per username. */
export const fetchApiKey = endpoint({
  auth: "none",
  params: { username: p.string({ nonEmpty: false }), password: p.string({ trim: false }) },
  handler: async ({ ctx, params }) => {
    const { user } = await passwordLogin(ctx, params.username, params.password);
    return { api_key: user.api_key, email: user.email, user_id: user.id };
  },
});

/** POST /dev_fetch_api_key: any user's key without a password, in development mode only. */
export const devFetchApiKey = endpoint({
  auth: "none",
  params: { username: p.string() },
  handler: async ({ ctx, params }) => {
    if (!ctx.config.dev) throw new ApiError("DevAuthBackend not enabled.");
    const user = (await userStore.listByApiEmail(ctx.db.kysely, params.username))[0];
    if (!user) throw new AuthenticationFailedError();
    if (!user.is_active) throw new UserDeactivatedError();
    const realm = await realmStore.getById(ctx.db.kysely, user.realm_id);
    if (!realm || realm.deactivated) throw new RealmDeactivatedError();
    return { api_key: user.api_key, email: user.email, user_id: user.id };
  },
});

/** POST /users/me/api_key/regenerate */
export const regenerateApiKey = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    const apiKey = await transaction(ctx, (tx) => doRegenerateApiKey(tx, user, user));
    return { api_key: apiKey };
  },
});
