import type { FastifyInstance } from "fastify";
import { createSession, endSession, passwordLogin } from "../actions/login.js";
import type { AppContext } from "../appContext.js";
import { secondFactorRequired } from "../auth/twoFactor.js";
import { beginSecondStep, finishSecondStep, isSecondStep } from "../auth/twoFactorLogin.js";
import { requireRealmOfRequest } from "../lib/realms.js";
import { localPath } from "../util/localPath.js";
import { errorEnvelope } from "./mount.js";
import { checkFormToken, clearFormToken, formToken, LOGIN_FORM } from "./formCsrf.js";
import { loginPage } from "./loginPage.js";
import { formField } from "./pageForms.js";
import { sendHtml, wantsHtml } from "./webApp.js";
import { checkSameOriginForm, clearSessionCookies, CsrfError, SESSION_COOKIE, sessionUse, setSessionCookies } from "./webSession.js";

/**
 * Web sessions (Zulip's /accounts/login/ and /accounts/logout/): a password login sets the
 * `sessionid` and `csrftoken` cookies (HttpOnly, SameSite=Lax, Secure on https, webSession.ts).
 * The session authenticates the web app's /json requests and the endpoints a browser reaches
 * directly: file URLs under /user_uploads and the tus upload endpoint. Lax cookies are not sent
 * with cross-site POST/PATCH requests, so another site cannot upload as the user.
 * Both refuse a form posted from another site (checkSameOriginForm), and the sign-in form must
 * also bring the double-submit token of the /login/ page (formCsrf.ts), as Django's CSRF
 * middleware wants in Zulip: 403 CSRF_FAILED, and no session, without it.
 * A failed login from the /login/ form (a browser asking for HTML) shows the form again with the error.
 * The form's `next` (a local path, util/localPath.ts) is where a successful login goes, as in Zulip.
 * A user with two-factor authentication gets no session from the password alone: the second step
 * (src/auth/twoFactorLogin.ts) asks for a code and posts it back here.
 */
export { SESSION_COOKIE };

export async function sessionPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.post<{ Body: { username?: string; password?: string } }>("/accounts/login/", async (request, reply) => {
    // Where the /login/ page was asked to go after signing in (its hidden field): kept through a
    // failed attempt, followed after a successful one.
    const next = localPath(formField(request, "next"));
    try {
      checkSameOriginForm(ctx, request);
      checkFormToken(request, LOGIN_FORM);
    } catch (error) {
      // A person gets the form again, with a token that works; other clients Zulip's JSON error.
      if (!(error instanceof CsrfError) || !wantsHtml(request)) throw error;
      const message = "Your sign-in form expired (CSRF verification failed). Please log in again.";
      return sendHtml(reply, 403, await loginPage(ctx, request, { error: message, csrfToken: formToken(ctx, request, reply, LOGIN_FORM), next }));
    }
    if (isSecondStep(request)) return finishSecondStep(ctx, request, reply);
    const { username, password } = (request.body ?? {}) as { username?: unknown; password?: unknown };
    if (typeof username !== "string" || typeof password !== "string") {
      return reply.status(400).send({ result: "error", msg: "Missing 'username' or 'password' argument", code: "BAD_REQUEST" });
    }
    try {
      const { user, realm } = await passwordLogin(ctx, await requireRealmOfRequest(ctx, request), username.trim(), password);
      if (await secondFactorRequired(ctx, realm, user)) return beginSecondStep(ctx, request, reply, user, next ?? "/");
      setSessionCookies(ctx, reply, await createSession(ctx, user, sessionUse(request)));
      clearFormToken(ctx, reply, LOGIN_FORM);
      return reply.redirect(next ?? "/", 302);
    } catch (error) {
      const { status, body, headers } = errorEnvelope(error);
      if (wantsHtml(request) && status < 500) {
        const retry = headers["Retry-After"];
        const message = retry ? `Too many failed attempts. Try again in ${retry} seconds.` : String(body.msg);
        return sendHtml(
          reply.headers(headers),
          status,
          await loginPage(ctx, request, { error: message, email: username, csrfToken: formToken(ctx, request, reply, LOGIN_FORM), next }),
        );
      }
      return reply.status(status).headers(headers).send(body);
    }
  });

  app.post("/accounts/logout/", async (request, reply) => {
    checkSameOriginForm(ctx, request);
    const key = request.cookies[SESSION_COOKIE];
    if (key) await endSession(ctx, key);
    clearSessionCookies(reply);
    return reply.redirect("/login/", 302);
  });
}
