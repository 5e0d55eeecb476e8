import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { apiKeysEqual } from "../lib/apiKeys.js";
import type { SessionUse } from "../actions/sessions.js";
import { authenticateApiRequest, clientNameFromUserAgent, type SessionUser, userOfSession } from "./auth.js";
import { ApiError } from "../lib/errors.js";
import type { ApiSurface } from "./mount.js";

/**
 * The web app's side of the API: the route table mounted again under /json (as Zulip's web app
 * calls it), authenticated by the `sessionid` cookie of POST /accounts/login/. Every request
 * that may change state (any method but GET and HEAD) must carry the session's CSRF token in
 * the X-CSRFToken header, as Django's CSRF middleware wants in Zulip: a cookie goes with
 * requests another site makes the browser send, the token only with pages that can read it.
 * An Authorization header authenticates by API key instead (no CSRF check: no cookie involved).
 */
export const SESSION_COOKIE = "sessionid";
/** Zulip's name; the web app reads the token from its page (the cookie is HttpOnly). */
export const CSRF_COOKIE = "csrftoken";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

class SessionRequiredError extends ApiError {
  constructor() {
    super("Not logged in: API authentication or user session required", {
      code: "UNAUTHORIZED",
      status: 401,
      headers: { "WWW-Authenticate": 'Session realm="zulip"' },
    });
  }
}

export class CsrfError extends ApiError {
  constructor(reason: string) {
    super(`CSRF error: ${reason}`, { code: "CSRF_FAILED", status: 403 });
  }
}

/**
 * The forms that sign in, sign up and sign out (/accounts/login/, /devlogin/, /join/<key>/,
 * /accounts/logout/) have no session to carry a token yet, so they are protected from other sites
 * by what browsers say about a request's origin: a form posted from another site comes with
 * `Sec-Fetch-Site: cross-site` and a foreign `Origin`, and is refused — otherwise a page elsewhere
 * could sign a visitor in to the attacker's account (login CSRF) or out of their own. Clients that
 * are not browsers send neither header and are not affected. The sign-in and sign-up forms also
 * carry a double-submit token of their page (formCsrf.ts), which works whatever a browser sends.
 */
export function checkSameOriginForm(ctx: AppContext, request: FastifyRequest): void {
  if (request.headers["sec-fetch-site"] === "cross-site") throw new CsrfError("Form posted from another site.");
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const ownOrigins = [new URL(ctx.config.externalUrl).origin, `${request.protocol}://${request.host}`];
  if (!ownOrigins.includes(origin)) throw new CsrfError("Form posted from another site.");
}

/** The request's address and User-Agent, recorded as a session's last use. */
export function sessionUse(request: FastifyRequest): SessionUse {
  return { ip: request.ip, userAgent: request.headers["user-agent"] };
}

/** The signed-in user of a browser request, with the session's CSRF token; null when none. */
export async function sessionUser(ctx: AppContext, request: FastifyRequest): Promise<SessionUser | null> {
  const key = request.cookies[SESSION_COOKIE];
  if (!key) return null;
  return userOfSession(ctx, key, request.host, sessionUse(request));
}

/** The public id of the web session that authenticated a /json request (none: an API key did). */
const sessionOfRequest = new WeakMap<FastifyRequest, string>();

/** The session a request was authenticated by (for "this session" and the queues it registers), or undefined. */
export function requestSessionId(request: FastifyRequest): string | undefined {
  return sessionOfRequest.get(request);
}

async function authenticateJsonRequest(ctx: AppContext, request: FastifyRequest): Promise<{ user: User; realm: Realm }> {
  if (request.headers.authorization) return authenticateApiRequest(ctx, request);
  const found = await authenticateBySession(
    ctx,
    request.cookies[SESSION_COOKIE],
    request.host,
    request.method,
    request.headers["x-csrftoken"],
    sessionUse(request),
  );
  sessionOfRequest.set(request, found.sessionId);
  return found;
}

/**
 * For endpoints visitors may call: as authenticateJsonRequest when the request carries an
 * Authorization header or a live session; null (a visitor) when it carries neither. A session
 * cookie that names no live session is no credential, as in Django (an anonymous request).
 */
async function authenticateJsonRequestIfSent(ctx: AppContext, request: FastifyRequest): Promise<{ user: User; realm: Realm } | null> {
  if (request.headers.authorization) return authenticateJsonRequest(ctx, request);
  if (!request.cookies[SESSION_COOKIE]) return null;
  try {
    return await authenticateJsonRequest(ctx, request);
  } catch (error) {
    if (error instanceof SessionRequiredError) return null;
    throw error;
  }
}

/**
 * A /json request without an Authorization header: its session (the `sessionid` cookie's value),
 * and for a method that may change state the CSRF token it sent.
 */
export async function authenticateBySession(
  ctx: AppContext,
  sessionKey: string | undefined,
  host: string | undefined,
  method: string,
  csrfHeader: string | string[] | undefined,
  seen?: SessionUse,
): Promise<{ user: User; realm: Realm; sessionId: string }> {
  const found = sessionKey ? await userOfSession(ctx, sessionKey, host, seen) : null;
  if (!found) throw new SessionRequiredError();
  if (!SAFE_METHODS.has(method)) checkCsrfToken(csrfHeader, found.csrfToken);
  return { user: found.user, realm: found.realm, sessionId: found.sessionId };
}

function checkCsrfToken(sent: string | string[] | undefined, expected: string): void {
  if (typeof sent !== "string" || sent === "") throw new CsrfError("CSRF token missing.");
  if (!apiKeysEqual(sent, expected)) throw new CsrfError("CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
}

/**
 * Zulip's process_client for browser views: requests from the web app are the "website" client,
 * except Zulip's desktop app, which names itself in its User-Agent.
 */
function webClientName(request: FastifyRequest): string {
  const name = clientNameFromUserAgent(request.headers["user-agent"]);
  return name.startsWith("Zulip") ? name : "website";
}

export const JSON_SURFACE: ApiSurface = {
  prefix: "/json",
  authenticate: authenticateJsonRequest,
  authenticateIfSent: authenticateJsonRequestIfSent,
  unauthorized: () => new SessionRequiredError(),
  clientName: webClientName,
};

/** Starts a web session: the `sessionid` and `csrftoken` cookies (HttpOnly, SameSite=Lax, Secure on https). */
export function setSessionCookies(ctx: AppContext, reply: FastifyReply, session: { key: string; csrfToken: string; maxAge: number }): void {
  const options = { path: "/", httpOnly: true, sameSite: "lax" as const, secure: ctx.config.externalUrl.startsWith("https:"), maxAge: session.maxAge };
  reply.setCookie(SESSION_COOKIE, session.key, options);
  reply.setCookie(CSRF_COOKIE, session.csrfToken, options);
}

export function clearSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: "/" });
  reply.clearCookie(CSRF_COOKIE, { path: "/" });
}
