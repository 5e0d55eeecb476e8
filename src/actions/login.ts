import { randomBytes } from "node:crypto";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { AuthenticationFailedError, RateLimitedError, RealmDeactivatedError, UserDeactivatedError } from "../http/errors.js";
import { verifyPassword } from "../lib/passwords.js";
import { realmStore } from "../store/realms.js";
import { sessionStore } from "../store/sessions.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";

/** Zulip's SESSION_COOKIE_AGE: two weeks. */
export const SESSION_SECONDS = 14 * 24 * 3600;

/**
 * Password login (POST /fetch_api_key and the web login form): failed attempts are limited per
 * username; every candidate account is checked so timing does not tell which one matched.
 */
export async function passwordLogin(ctx: AppContext, username: string, password: string): Promise<{ user: User; realm: Realm }> {
  const key = `login:${username.toLowerCase()}`;
  const rule = ctx.config.rateLimits.login;
  const state = ctx.rateLimiter.peek(key, rule);
  if (state.retryAfter > 0) throw new RateLimitedError(state.retryAfter);
  const candidates = (await userStore.listByApiEmail(ctx.db.kysely, username)).filter((u) => !u.is_bot);
  let match: User | null = null;
  for (const candidate of candidates) {
    if (await verifyPassword(password, candidate.password_hash)) match = candidate;
  }
  if (!match) {
    ctx.rateLimiter.hit(key, rule);
    throw new AuthenticationFailedError();
  }
  if (!match.is_active) throw new UserDeactivatedError();
  const realm = await realmStore.getById(ctx.db.kysely, match.realm_id);
  if (!realm || realm.deactivated) throw new RealmDeactivatedError();
  ctx.rateLimiter.reset(key);
  return { user: match, realm };
}

/** A new web session for the user; returns the cookie value and the session's CSRF token. */
export async function createSession(ctx: AppContext, user: User): Promise<{ key: string; csrfToken: string; maxAge: number }> {
  const key = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const now = nowSeconds();
  await sessionStore.insert(ctx.db.kysely, {
    session_key: key,
    user_id: user.id,
    csrf_token: csrfToken,
    created_at: now,
    expires_at: now + SESSION_SECONDS,
  });
  return { key, csrfToken, maxAge: SESSION_SECONDS };
}

export async function endSession(ctx: AppContext, key: string): Promise<void> {
  await sessionStore.delete(ctx.db.kysely, key);
}
