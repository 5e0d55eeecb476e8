import type { FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import { headerCacheKey, sessionCacheKey } from "../db/authCache.js";
import type { Realm, User } from "../db/schema.js";
import { apiKeysEqual, isWellFormedApiKey } from "../lib/apiKeys.js";
import { BotType } from "../models/roles.js";
import { noteSessionActivity, type SessionUse } from "../actions/sessions.js";
import { sessionIdOf } from "../store/sessions.js";
import { userStore } from "../store/users.js";
import { realmServesHost } from "../lib/realms.js";
import { nowSeconds } from "../util/time.js";
import { noteRequestUser } from "./requestLog.js";
import { ApiError, badRequest, InvalidApiKeyError, RealmDeactivatedError, UnauthorizedError, UserDeactivatedError } from "../lib/errors.js";

/**
 * Authentication for /api/v1: HTTP Basic with the API email as username and the API key as
 * password. The key is compared in constant time; a missing user and a wrong key look alike.
 * As in Zulip (decorator.authenticated_rest_api_view), every credential failure is a 401
 * UNAUTHORIZED carrying the specific text ("Invalid API key", "Account is deactivated", ...).
 */
export async function authenticateApiRequest(ctx: AppContext, request: FastifyRequest): Promise<{ user: User; realm: Realm }> {
  const found = await authenticateAuthorizationHeader(ctx, request.headers.authorization, request.host);
  noteRequestUser(request, found.user.id);
  return found;
}

/**
 * The same for a bare Authorization header value (the tus endpoint reads web Requests). `host`:
 * the request's Host; the account must belong to the organization served there (checkHost).
 */
export async function authenticateAuthorizationHeader(
  ctx: AppContext,
  header: string | undefined | null,
  host: string | undefined,
): Promise<{ user: User; realm: Realm }> {
  if (header === undefined || header === null || header === "") throw new UnauthorizedError();
  // A header that authenticated before, and nothing it depends on changed since (db/authCache.ts).
  const cache = ctx.db.authCache;
  const cacheKey = headerCacheKey(header);
  const cached = cache.get(cacheKey);
  if (cached) return checkHost(ctx, cached, host);
  const credentials = parseBasicAuth(header);
  const startedAt = cache.begin();
  let found: { user: User; realm: Realm };
  try {
    found = await authenticateByApiKey(ctx, credentials.username.trim(), credentials.password.trim());
  } catch (error) {
    if (error instanceof ApiError) throw new UnauthorizedError(error.message);
    throw error;
  }
  cache.set(cacheKey, found, startedAt);
  return checkHost(ctx, found, host);
}

/**
 * Zulip's validate_account_and_subdomain: API credentials work only on the host of their
 * account's organization (with a root domain, each organization has its own), so a key is not
 * a key to another organization's server name — 401 "Account is not associated with this
 * subdomain", logged as a warning.
 */
export function checkHost<T extends { user: User; realm: Realm }>(ctx: AppContext, found: T, host: string | undefined): T {
  if (realmServesHost(ctx.config, found.realm, host)) return found;
  ctx.log.warn({ userId: found.user.id, realm: found.realm.string_id, host: host ?? "" }, "user attempted to access API on wrong subdomain");
  throw new UnauthorizedError("Account is not associated with this subdomain");
}

/**
 * For the endpoints a browser also reaches (file URLs, tus): API credentials when an
 * Authorization header is sent, else the web session named by the `sessionid` cookie; either
 * only on the host of the account's organization.
 */
export async function authenticateApiKeyOrSession(
  ctx: AppContext,
  authorization: string | undefined | null,
  sessionKey: string | undefined,
  host: string | undefined,
): Promise<{ user: User; realm: Realm }> {
  if (authorization) {
    const found = await authenticateAuthorizationHeader(ctx, authorization, host);
    refuseIncomingWebhookBot(found.user);
    return found;
  }
  if (!sessionKey) throw new UnauthorizedError();
  const found = await userOfSession(ctx, sessionKey, host);
  if (!found) throw new UnauthorizedError();
  return found;
}

/** The active user of a web session, with the session's CSRF token and public id. */
export interface SessionUser {
  user: User;
  realm: Realm;
  csrfToken: string;
  sessionId: string;
}

/**
 * The active user of an unexpired web session, with the session's CSRF token: from the cache
 * when the session authenticated before (db/authCache.ts), else one statement. `host`: the
 * request's Host; a session of an account whose organization is not served there is no session
 * (Zulip's cookies belong to one subdomain; ours are checked). `seen`: the
 * request's address and User-Agent, recorded as the session's last use when the recorded one is
 * a few minutes old (actions/sessions.ts), so the sessions list shows it without a write per request.
 */
export async function userOfSession(ctx: AppContext, sessionKey: string, host: string | undefined, seen?: SessionUse): Promise<SessionUser | null> {
  const cache = ctx.db.authCache;
  const cacheKey = sessionCacheKey(sessionKey);
  const now = nowSeconds();
  const cached = cache.get(cacheKey);
  if (cached && cached.sessionExpiresAt! > now) {
    if (!realmServesHost(ctx.config, cached.realm, host)) return null;
    if (seen && (await noteSessionActivity(ctx, sessionKey, cached.sessionLastActiveAt!, now, seen))) cached.sessionLastActiveAt = now;
    return { user: cached.user, realm: cached.realm, csrfToken: cached.csrfToken!, sessionId: cached.sessionId! };
  }
  const startedAt = cache.begin();
  const found = await userStore.getWithRealmBySession(ctx.db.kysely, sessionKey, now);
  if (!found || !found.user.is_active || found.realm.deactivated) return null;
  if (!realmServesHost(ctx.config, found.realm, host)) return null;
  const sessionId = sessionIdOf(sessionKey);
  const lastActiveAt = seen && (await noteSessionActivity(ctx, sessionKey, found.lastActiveAt, now, seen)) ? now : found.lastActiveAt;
  cache.set(
    cacheKey,
    { user: found.user, realm: found.realm, csrfToken: found.csrfToken, sessionExpiresAt: found.expiresAt, sessionId, sessionLastActiveAt: lastActiveAt },
    startedAt,
  );
  return { user: found.user, realm: found.realm, csrfToken: found.csrfToken, sessionId };
}

/** Zulip's validate_api_key: the errors name what is wrong with the credentials or account. */
async function authenticateByApiKey(ctx: AppContext, email: string, apiKey: string): Promise<{ user: User; realm: Realm }> {
  if (!isWellFormedApiKey(apiKey)) {
    throw new ApiError("Malformed API key", { code: "INVALID_API_KEY", status: 401, headers: { "WWW-Authenticate": 'Basic realm="zulip"' } });
  }
  if (email.includes("\u0000")) throw new InvalidApiKeyError(); // no account has such an email
  // One statement: the candidates come with their realms.
  const candidates = await userStore.listByApiEmailWithRealm(ctx.db.kysely, email);
  // Compare against every candidate so the time taken does not depend on which one matched.
  let found: { user: User; realm: Realm } | undefined;
  for (const candidate of candidates) {
    if (apiKeysEqual(candidate.user.api_key, apiKey)) found = candidate;
  }
  if (!found) throw new InvalidApiKeyError();
  if (found.realm.deactivated) throw new RealmDeactivatedError();
  if (!found.user.is_active) throw new UserDeactivatedError();
  return found;
}

/** `Basic base64(email:key)`, read as strictly as Zulip's get_basic_credentials. */
function parseBasicAuth(header: string): { username: string; password: string } {
  // Built only on failure: an Error captures a stack trace, which costs more than the parsing.
  const invalid = () => new UnauthorizedError("Invalid authorization header for basic auth");
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2) throw invalid();
  const [scheme = "", encoded = ""] = parts;
  if (scheme.toLowerCase() !== "basic") throw badRequest("This endpoint requires HTTP basic authentication.");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) throw invalid();
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
  } catch {
    throw invalid();
  }
  const fields = decoded.split(":");
  const [username, password] = fields;
  if (fields.length !== 2 || username === undefined || password === undefined) throw invalid();
  return { username, password };
}

/** Zulip names the sending client after the User-Agent's first product token. */
export function clientNameFromUserAgent(userAgent: string | undefined): string {
  if (!userAgent) return "API";
  const token = userAgent.trim().split(/[\s/]/)[0];
  return token && /^[\w.-]{1,30}$/.test(token) ? token : "API";
}

/**
 * Zulip (authenticated_rest_api_view without allow_webhook_access): an incoming-webhook bot may
 * only send messages and use the webhook URLs — no other endpoint, file URLs included.
 */
export function refuseIncomingWebhookBot(user: User): void {
  if (user.is_bot && user.bot_type === BotType.INCOMING_WEBHOOK) throw new UnauthorizedError("This API is not available to incoming webhook bots.");
}
