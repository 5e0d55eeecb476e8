import { transaction } from "../appContext.js";
import { doRegenerateApiKey } from "../actions/apiKeys.js";
import { endpoint } from "../http/endpoint.js";
import { ApiError, AuthenticationFailedError, RateLimitedError, RealmDeactivatedError, UserDeactivatedError } from "../http/errors.js";
import { p } from "../http/params.js";
import { verifyPassword } from "../lib/passwords.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";

/** POST /fetch_api_key: password login. Failed attempts are limited per username. */
export const fetchApiKey = endpoint({
  auth: "none",
  params: { username: p.string({ nonEmpty: false }), password: p.string({ trim: false }) },
  handler: async ({ ctx, params }) => {
    const key = `login:${params.username.toLowerCase()}`;
    const rule = ctx.config.rateLimits.login;
    const state = ctx.rateLimiter.peek(key, rule);
    if (state.retryAfter > 0) throw new RateLimitedError(state.retryAfter);
    const candidates = (await userStore.listByApiEmail(ctx.db.kysely, params.username)).filter((u) => !u.is_bot);
    let match = null;
    for (const candidate of candidates) {
      if (await verifyPassword(params.password, candidate.password_hash)) match = candidate;
    }
    if (!match) {
      ctx.rateLimiter.hit(key, rule);
      throw new AuthenticationFailedError();
    }
    if (!match.is_active) throw new UserDeactivatedError();
    const realm = await realmStore.getById(ctx.db.kysely, match.realm_id);
    if (!realm || realm.deactivated) throw new RealmDeactivatedError();
    ctx.rateLimiter.reset(key);
    return { api_key: match.api_key, email: match.email, user_id: match.id };
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
