import { transaction } from "../appContext.js";
import { doRegenerateApiKey } from "../actions/apiKeys.js";
import { endpoint } from "../http/endpoint.js";
import { passwordLogin } from "../actions/login.js";
import { ApiError, AuthenticationFailedError, RealmDeactivatedError, UserDeactivatedError } from "../lib/errors.js";
import { p } from "../http/params.js";
import { requireRealmOfRequest } from "../lib/realms.js";
import { userStore } from "../store/users.js";

/** POST /fetch_api_key: password login. Failed attempts are limited per username. */
export const fetchApiKey = endpoint({
  auth: "none",
  params: { username: p.string({ nonEmpty: false }), password: p.string({ trim: false }) },
  handler: async ({ ctx, params, raw }) => {
    const realm = await requireRealmOfRequest(ctx, raw.request);
    const { user } = await passwordLogin(ctx, realm, params.username, params.password);
    return { api_key: user.api_key, email: user.email, user_id: user.id };
  },
});

/** POST /dev_fetch_api_key: any user's key of the host's organization without a password, in development mode only. */
export const devFetchApiKey = endpoint({
  auth: "none",
  params: { username: p.string() },
  handler: async ({ ctx, params, raw }) => {
    if (!ctx.config.dev) throw new ApiError("DevAuthBackend not enabled.");
    const realm = await requireRealmOfRequest(ctx, raw.request);
    const user = (await userStore.listByEmailInRealm(ctx.db.kysely, realm.id, params.username))[0];
    if (!user) throw new AuthenticationFailedError();
    if (!user.is_active) throw new UserDeactivatedError();
    if (realm.deactivated) throw new RealmDeactivatedError();
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
