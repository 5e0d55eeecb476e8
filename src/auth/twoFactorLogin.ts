import { createHash, randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { createSession } from "../actions/login.js";
import type { AppContext } from "../appContext.js";
import type { User } from "../db/schema.js";
import { ApiError, RateLimitedError } from "../lib/errors.js";
import { realmServesHost } from "../lib/realms.js";
import { realmStore } from "../store/realms.js";
import { twoFactorStore } from "../store/twoFactor.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { nowSeconds } from "../util/time.js";
import { clearFormToken, formToken, formTokenField, LOGIN_FORM } from "../http/formCsrf.js";
import { loginPage } from "../http/loginPage.js";
import { sendHtml, simplePage } from "../http/webApp.js";
import { sessionUse, setSessionCookies } from "../http/webSession.js";
import { checkSecondFactor } from "./twoFactor.js";

/**
 * The login form's second step (Zulip's TwoFactorLoginView, a wizard at /accounts/login/): after
 * the right password of a user with an authenticator app, no session yet: the server keeps the
 * half-done login for ten minutes under the hash of a random token that only this browser holds
 * (an HttpOnly, SameSite=Strict cookie for /accounts/login/), and shows a form asking for a code.
 * The form posts back to /accounts/login/ with django-two-factor-auth's field names; the session
 * starts only once a code (or a backup code) is accepted. Without the cookie there is nothing to
 * finish: another browser cannot complete the login, and GET /json/... stays 401 meanwhile.
 */
const PENDING_COOKIE = "two_factor_login";
const PENDING_SECONDS = 10 * 60;
/** django-formtools' management field of Zulip's TwoFactorLoginView, and the token step's field. */
const STEP_FIELD = "two_factor_login_view-current_step";
const TOKEN_FIELD = "token-otp_token";

const pendingId = (token: string) => createHash("sha256").update(token).digest("hex");

function cookieOptions(ctx: AppContext) {
  return { path: LOGIN_FORM.path, httpOnly: true, sameSite: "strict" as const, secure: ctx.config.externalUrl.startsWith("https:") };
}

/** Whether the POST to /accounts/login/ is the second step's form. */
export function isSecondStep(request: FastifyRequest): boolean {
  return ((request.body ?? {}) as Record<string, unknown>)[STEP_FIELD] === "token";
}

/** Keeps the login pending for this browser and asks for the code. */
export async function beginSecondStep(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, user: User, next: string): Promise<FastifyReply> {
  const token = randomBytes(32).toString("base64url");
  const now = nowSeconds();
  await twoFactorStore.insertPendingLogin(ctx.db.kysely, { id: pendingId(token), user_id: user.id, next, expires_at: now + PENDING_SECONDS }, now);
  reply.setCookie(PENDING_COOKIE, token, { ...cookieOptions(ctx), maxAge: PENDING_SECONDS });
  return sendHtml(reply, 200, secondStepPage(formToken(ctx, request, reply, LOGIN_FORM)));
}

/** Checks the code of the pending login of this browser and, if it is right, starts the session. */
export async function finishSecondStep(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const csrfToken = formToken(ctx, request, reply, LOGIN_FORM);
  const token = request.cookies[PENDING_COOKIE];
  const id = token ? pendingId(token) : null;
  const pending = id ? await twoFactorStore.getPendingLogin(ctx.db.kysely, id, nowSeconds()) : undefined;
  const startAgain = async (status: number, error: string) => {
    reply.clearCookie(PENDING_COOKIE, cookieOptions(ctx));
    return sendHtml(reply, status, await loginPage(ctx, request, { error, csrfToken }));
  };
  if (!id || !pending) return startAgain(400, "Your login took too long or was already finished. Please log in again.");
  const user = await userStore.getById(ctx.db.kysely, pending.user_id);
  const realm = user && (await realmStore.getById(ctx.db.kysely, user.realm_id));
  if (!user || !user.is_active || !realm || realm.deactivated) {
    await twoFactorStore.takePendingLogin(ctx.db.kysely, id);
    return startAgain(403, "This account has been deactivated.");
  }
  // The second step finishes on the host the first was made on, that of the user's organization.
  if (!realmServesHost(ctx.config, realm, request.host)) return startAgain(400, "Your login took too long or was already finished. Please log in again.");
  const body = (request.body ?? {}) as Record<string, unknown>;
  const typed = typeof body[TOKEN_FIELD] === "string" ? body[TOKEN_FIELD] : "";
  try {
    await checkSecondFactor(ctx, realm, user, typed);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    if (error instanceof RateLimitedError) {
      reply.headers(error.headers);
      return sendHtml(reply, 429, secondStepPage(csrfToken, `Too many attempts. Try again in ${error.headers["Retry-After"]} seconds.`));
    }
    return sendHtml(reply, 400, secondStepPage(csrfToken, error.message));
  }
  if (!(await twoFactorStore.takePendingLogin(ctx.db.kysely, id))) return startAgain(400, "This login was already finished. Please log in again.");
  reply.clearCookie(PENDING_COOKIE, cookieOptions(ctx));
  setSessionCookies(ctx, reply, await createSession(ctx, user, sessionUse(request)));
  clearFormToken(ctx, reply, LOGIN_FORM);
  return reply.redirect(pending.next, 302);
}

function secondStepPage(csrfToken: string, error?: string): string {
  const body =
    `<h1>Two-factor authentication</h1>` +
    `<p>Enter the 6-digit code from your authenticator app, or one of your backup codes.</p>` +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
    `<form method="post" action="${LOGIN_FORM.path}">` +
    formTokenField(csrfToken) +
    `<input type="hidden" name="${STEP_FIELD}" value="token">` +
    `<label for="otp_token">Code</label><input id="otp_token" name="${TOKEN_FIELD}" autocomplete="one-time-code" inputmode="text" required autofocus maxlength="20">` +
    `<button type="submit">Verify</button></form>` +
    `<p class="hint"><a href="/login/">Log in again</a></p>`;
  return simplePage("Two-factor authentication", body);
}
