import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import { randomString } from "../lib/apiKeys.js";
import { ApiError } from "../lib/errors.js";
import { authFlowStore } from "../store/authFlows.js";
import { localPath } from "../util/localPath.js";
import { nowSeconds } from "../util/time.js";

/**
 * A sign-in through an identity provider spans two requests: the browser leaves for the provider
 * and comes back later, maybe to another process. What it set out to do is kept in the database
 * under a random id that travels as the provider's `state` (OAuth, OpenID Connect) or `RelayState`
 * (SAML), and is taken once when the browser returns: a second use of the same answer, or an
 * answer to a flow this server never started, finds nothing.
 */

/** Where the signed-in account goes: a web session, or Zulip's mobile or desktop app (otp: 64 hex digits). */
export type AppFlow = { kind: "web"; next: string } | { kind: "mobile"; otp: string } | { kind: "desktop"; otp: string };

export interface LoginIntent {
  flow: AppFlow;
  /** Started from a sign-up link (`/accounts/register/social/...`) rather than a login one. */
  signup: boolean;
  /** The provider's own values for the return (PKCE verifier, nonce, SAML request id, IdP name). */
  extra: Record<string, string>;
}

/** How long a person may spend at the provider. */
const FLOW_SECONDS = 15 * 60;

/** Zulip's validate_otp_params errors. */
export class BadFlowParameterError extends ApiError {
  constructor(message: string) {
    super(message, { code: "BAD_REQUEST", status: 400 });
  }
}

/**
 * The intent of a request to a login or sign-up URL: `mobile_flow_otp` or `desktop_flow_otp`
 * (Zulip's apps; 64 hex digits, one at most) or `next` (a path on this server; anything else is /).
 */
export function intentFromRequest(request: FastifyRequest, signup: boolean): LoginIntent {
  const query = request.query as Record<string, unknown>;
  const mobile = query.mobile_flow_otp;
  const desktop = query.desktop_flow_otp;
  for (const otp of [mobile, desktop]) {
    if (otp !== undefined && !(typeof otp === "string" && /^[0-9a-fA-F]{64}$/.test(otp))) throw new BadFlowParameterError("Invalid OTP");
  }
  if (mobile !== undefined && desktop !== undefined) throw new BadFlowParameterError("Can't use both mobile_flow_otp and desktop_flow_otp together.");
  const flow: AppFlow =
    typeof mobile === "string"
      ? { kind: "mobile", otp: mobile.toLowerCase() }
      : typeof desktop === "string"
        ? { kind: "desktop", otp: desktop.toLowerCase() }
        : { kind: "web", next: localPath(query.next) ?? "/" };
  return { flow, signup, extra: {} };
}

/** Keeps the intent until the browser returns; the id is the provider's state or RelayState. */
export async function saveFlow(ctx: AppContext, backend: string, intent: LoginIntent): Promise<string> {
  const id = randomBytes(24).toString("base64url");
  const now = nowSeconds();
  await authFlowStore.deleteExpired(ctx.db.kysely, now);
  await authFlowStore.insert(ctx.db.kysely, { id, backend, data: JSON.stringify(intent), expires_at: now + FLOW_SECONDS });
  return id;
}

/** The intent saved under the id for this backend, taken: null if unknown, expired, used or another backend's. */
export async function takeFlow(ctx: AppContext, backend: string, id: unknown): Promise<LoginIntent | null> {
  if (typeof id !== "string" || id === "" || id.length > 200) return null;
  const row = await authFlowStore.take(ctx.db.kysely, id, nowSeconds());
  if (!row || row.backend !== backend) return null;
  return JSON.parse(row.data) as LoginIntent;
}

/**
 * The desktop app's one-time login token (Zulip's ExternalAuthResult.store_data for
 * finish_desktop_flow): 32 letters and digits like an API key, good once and for 15 seconds
 * (LOGIN_KEY_EXPIRATION_SECONDS), turned into a web session by /accounts/login/subdomain/<token>.
 */
const DESKTOP_LOGIN = "desktop_login";
const DESKTOP_LOGIN_SECONDS = 15;
const TOKEN_FORMAT = /^[A-Za-z0-9]{32}$/;

export async function saveDesktopLogin(ctx: AppContext, userId: number): Promise<string> {
  const token = randomString(32);
  const now = nowSeconds();
  await authFlowStore.deleteExpired(ctx.db.kysely, now);
  await authFlowStore.insert(ctx.db.kysely, { id: token, backend: DESKTOP_LOGIN, data: JSON.stringify({ userId }), expires_at: now + DESKTOP_LOGIN_SECONDS });
  return token;
}

/** Whether the token has the form of one (Zulip's has_api_key_format). */
export function isDesktopLoginToken(token: string): boolean {
  return TOKEN_FORMAT.test(token);
}

/** The user id of a desktop login token, taken: null if unknown, used or expired. */
export async function takeDesktopLogin(ctx: AppContext, token: string): Promise<number | null> {
  if (!isDesktopLoginToken(token)) return null;
  const row = await authFlowStore.take(ctx.db.kysely, token, nowSeconds());
  if (!row || row.backend !== DESKTOP_LOGIN) return null;
  const data = JSON.parse(row.data) as { userId?: unknown };
  return typeof data.userId === "number" ? data.userId : null;
}

function stateCookie(key: string): string {
  return `${key}_oauth_state`;
}

/**
 * Binds a flow id to this browser: a cookie for the provider's callback path (/complete/<key>/).
 * The callback must bring the same id (takeBrowserFlow), so an answer a person was sent to by
 * someone else (who started the flow in their own browser) signs nobody in. Not for SAML: the
 * IdP's answer is a cross-site POST, which carries no Lax cookie.
 */
export function bindFlowToBrowser(ctx: AppContext, reply: FastifyReply, key: string, flowId: string): void {
  reply.setCookie(stateCookie(key), flowId, {
    path: `/complete/${key}/`,
    httpOnly: true,
    sameSite: "lax",
    secure: ctx.config.externalUrl.startsWith("https:"),
    maxAge: 15 * 60,
  });
}

/** The flow id is the one this browser was given, and the flow is still there: taken. */
export async function takeBrowserFlow(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  backend: string,
  key: string,
  flowId: unknown,
): Promise<LoginIntent | null> {
  const held = request.cookies[stateCookie(key)];
  reply.clearCookie(stateCookie(key), { path: `/complete/${key}/` });
  if (typeof flowId !== "string" || held !== flowId) return null;
  return takeFlow(ctx, backend, flowId);
}
