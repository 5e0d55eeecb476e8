import { randomBytes } from "node:crypto";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { realmMethodEnabled } from "../lib/authMethods.js";
import {
  ApiError,
  AuthenticationFailedError,
  PasswordAuthDisabledError,
  RateLimitedError,
  RealmDeactivatedError,
  UserDeactivatedError,
} from "../lib/errors.js";
import { hashPassword, needsRehash, verifyPassword } from "../lib/passwords.js";
import { sessionStore } from "../store/sessions.js";
import { type SessionUse, sessionUseColumns } from "./sessions.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";

/** Zulip's SESSION_COOKIE_AGE: two weeks. */
const SESSION_SECONDS = 14 * 24 * 3600;

/**
 * The password check that lives above this layer (src/auth/ldap.ts), which app.ts puts on the
 * context: LDAP.
 */
export interface PasswordMethods {
  /**
   * The account the directory signs in with this username and password (found, created or updated
   * from the directory); null when LDAP is off or the directory does not take the username and
   * password. Throws PasswordCheckUnavailableError when the directory cannot be asked.
   */
  directoryLogin(ctx: AppContext, realm: Realm, username: string, password: string): Promise<User | null>;
}

/** The directory that checks passwords did not answer; the message says so (not "wrong password"). */
export class PasswordCheckUnavailableError extends ApiError {
  constructor() {
    // 4xx, not 5xx: the login form shows it to the person like any other refusal.
    super("The directory that checks passwords (LDAP) cannot be reached. Please try again later.", { code: "AUTHENTICATION_FAILED", status: 401 });
  }
}

/**
 * Password login (POST /fetch_api_key and the web login form) to `realm`, the organization of the
 * request's host (lib/realms.ts realmOfRequest): only its accounts are candidates, so one email
 * address can have an account, and a password, in each organization. Attempts are limited per
 * username (a success forgets the earlier ones); every candidate account is checked so timing
 * does not tell which one matched.
 * The directory (LDAP) is asked first where configured; Parley's own passwords are checked only
 * for organizations that take them.
 */
export async function passwordLogin(ctx: AppContext, realm: Realm, username: string, password: string): Promise<{ user: User; realm: Realm }> {
  const key = `login:${username.toLowerCase()}`;
  const rule = ctx.config.rateLimits.login;
  // The attempt is counted before the password is checked (as Zulip's rate_limit_auth does), so
  // parallel guesses cannot all pass the check while none has been counted yet.
  const state = await ctx.rateLimiter.hit(key, rule);
  if (state.retryAfter > 0) throw new RateLimitedError(state.retryAfter);
  const methods = ctx.passwordMethods;
  let unavailable: PasswordCheckUnavailableError | null = null;
  let directoryUser: User | null = null;
  try {
    directoryUser = (await methods?.directoryLogin(ctx, realm, username, password)) ?? null;
  } catch (error) {
    if (!(error instanceof PasswordCheckUnavailableError)) throw error;
    unavailable = error;
  }
  const match = directoryUser ?? (await localPasswordMatch(ctx, realm, username, password));
  if (!match) throw unavailable ?? new AuthenticationFailedError();
  // Parley's own passwords are the "Email" method (Zulip's EmailAuthBackend); with neither it nor
  // LDAP on, the organization takes no passwords at all (Zulip's PASSWORD_AUTH_DISABLED).
  if (!directoryUser && !realmMethodEnabled(ctx.config, realm, "Email")) {
    throw unavailable ?? (realmMethodEnabled(ctx.config, realm, "LDAP") ? new AuthenticationFailedError() : new PasswordAuthDisabledError());
  }
  if (!match.is_active) throw new UserDeactivatedError();
  if (realm.deactivated) throw new RealmDeactivatedError();
  await ctx.rateLimiter.reset(key);
  if (!directoryUser) await upgradePasswordHash(ctx, match, password);
  return { user: match, realm };
}

/** The account of the organization whose own (Parley) password this is. */
async function localPasswordMatch(ctx: AppContext, realm: Realm, username: string, password: string): Promise<User | null> {
  const candidates = (await userStore.listByEmailInRealm(ctx.db.kysely, realm.id, username)).filter((u) => !u.is_bot);
  let match: User | null = null;
  for (const candidate of candidates) {
    if (await verifyPassword(password, candidate.password_hash)) match = candidate;
  }
  return match;
}

/** A hash made with a lower cost than today's is replaced now that the password is known. */
async function upgradePasswordHash(ctx: AppContext, user: User, password: string): Promise<void> {
  const current = user.password_hash;
  if (!current || !needsRehash(current, ctx.config.fastPasswordHashing)) return;
  const next = await hashPassword(password, ctx.config.fastPasswordHashing);
  await userStore.replacePasswordHash(ctx.db.kysely, user.id, current, next);
}

/**
 * A new web session for the user; returns the cookie value and the session's CSRF token. `seen`:
 * the browser's address and User-Agent, shown in its sessions list (actions/sessions.ts).
 */
export async function createSession(ctx: AppContext, user: User, seen?: SessionUse): Promise<{ key: string; csrfToken: string; maxAge: number }> {
  const key = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const now = nowSeconds();
  await sessionStore.insert(ctx.db.kysely, {
    session_key: key,
    user_id: user.id,
    csrf_token: csrfToken,
    created_at: now,
    expires_at: now + SESSION_SECONDS,
    last_active_at: now,
    ...sessionUseColumns(seen),
  });
  return { key, csrfToken, maxAge: SESSION_SECONDS };
}

/** Ends the session of this cookie value (POST /accounts/logout/): its /json requests and event queues stop at once. */
export async function endSession(ctx: AppContext, key: string): Promise<void> {
  await sessionStore.delete(ctx.db.kysely, key);
}
