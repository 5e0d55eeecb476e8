import { randomBytes } from "node:crypto";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { realmMethodEnabled } from "../lib/authMethods.js";
import { AuthenticationFailedError, PasswordAuthDisabledError, RateLimitedError, RealmDeactivatedError, UserDeactivatedError } from "../lib/errors.js";
import { hashPassword, needsRehash, verifyPassword } from "../lib/passwords.js";
import { realmStore } from "../store/realms.js";
import { sessionStore } from "../store/sessions.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";

/** Zulip's SESSION_COOKIE_AGE: two weeks. */
const SESSION_SECONDS = 14 * 24 * 3600;

/**
 * Password login (POST /fetch_api_key and the web login form): attempts are limited per username
 * (a success forgets the earlier ones); every candidate account is checked so timing does not tell which one matched.
 */
export async function passwordLogin(ctx: AppContext, username: string, password: string): Promise<{ user: User; realm: Realm }> {
  const key = `login:${username.toLowerCase()}`;
  const rule = ctx.config.rateLimits.login;
  // The attempt is counted before the password is checked (as Zulip's rate_limit_auth does), so
  // parallel guesses cannot all pass the check while none has been counted yet.
  const state = await ctx.rateLimiter.hit(key, rule);
  if (state.retryAfter > 0) throw new RateLimitedError(state.retryAfter);
  const candidates = (await userStore.listByApiEmail(ctx.db.kysely, username)).filter((u) => !u.is_bot);
  let match: User | null = null;
  for (const candidate of candidates) {
    if (await verifyPassword(password, candidate.password_hash)) match = candidate;
  }
  if (!match) throw new AuthenticationFailedError();
  if (!match.is_active) throw new UserDeactivatedError();
  const realm = await realmStore.getById(ctx.db.kysely, match.realm_id);
  if (!realm || realm.deactivated) throw new RealmDeactivatedError();
  // Parley's own passwords are the "Email" method (Zulip's EmailAuthBackend).
  if (!realmMethodEnabled(ctx.config, realm, "Email")) throw new PasswordAuthDisabledError();
  await ctx.rateLimiter.reset(key);
  await upgradePasswordHash(ctx, match, password);
  return { user: match, realm };
}

/** A hash made with a lower cost than today's is replaced now that the password is known. */
async function upgradePasswordHash(ctx: AppContext, user: User, password: string): Promise<void> {
  const current = user.password_hash;
  if (!current || !needsRehash(current, ctx.config.fastPasswordHashing)) return;
  const next = await hashPassword(password, ctx.config.fastPasswordHashing);
  await userStore.replacePasswordHash(ctx.db.kysely, user.id, current, next);
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
