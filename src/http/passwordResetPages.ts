import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import * as z from "zod";
import { doRequestPasswordReset, doResetPassword, type PasswordResetLink, PasswordResetLinkError, usablePasswordResetLink } from "../actions/passwordReset.js";
import { checkNewPassword } from "../actions/users.js";
import { transaction, type AppContext } from "../appContext.js";
import { methodEnabled } from "../auth/methods.js";
import { realmOfRequest, realmServesHost } from "../lib/realms.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { hashPassword } from "../lib/passwords.js";
import { escapeHtml } from "../util/html.js";
import { clearFormToken, type FormCsrf, formToken, formTokenField } from "./formCsrf.js";
import { sendHtml, simplePage, tooManyAttemptsPage } from "./webApp.js";
import { csrfFailedPage, formAccepted, formField } from "./pageForms.js";

/**
 * "Forgot your password?" (Zulip's /accounts/password/reset/ pages, actions/passwordReset.ts):
 *
 * - GET /accounts/password/reset/: the address form; POST queues the email and redirects to
 *   GET /accounts/password/reset/done/, "Check your email", whatever the address (no account
 *   enumeration). Limited per IP and per address like every email-sending form. When the
 *   organization has passwords ("Email") turned off, it sends nothing (Zulip does the same).
 * - GET /accounts/password/reset/<uidb64>/<token>/: the new-password form (twice, Zulip's
 *   new_password1/new_password2); POST sets it and redirects to GET /accounts/password/done/.
 *   An unusable link shows an error page (404, as Zulip's confirmation links) and changes nothing.
 *
 * Both forms carry a double-submit CSRF token (formCsrf.ts) whose cookie covers /accounts/password/.
 */
const PASSWORD_RESET_FORM: FormCsrf = { cookie: "password_reset_csrftoken", path: "/accounts/password/" };

const RESET_PATH = "/accounts/password/reset/";
const emailSchema = z.email();

type LinkParams = { Params: { uid: string; token: string } };

export async function passwordResetPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get(RESET_PATH, async (request, reply) => sendHtml(reply, 200, requestPage(formToken(ctx, request, reply, PASSWORD_RESET_FORM), {})));

  app.post(RESET_PATH, async (request, reply) => {
    if (!formAccepted(ctx, request, PASSWORD_RESET_FORM)) return csrfFailedPage(reply, { path: RESET_PATH, text: "Reset your password" });
    const token = formToken(ctx, request, reply, PASSWORD_RESET_FORM);
    const email = formField(request, "email").trim();
    if (!emailSchema.safeParse(email).success || email.length > 254) {
      return sendHtml(reply, 400, requestPage(token, { email, error: "Enter a valid email address." }));
    }
    // Zulip (ZulipPasswordResetForm.save): with passwords turned off for the organization the
    // form answers as always and sends nothing, so it tells nobody which method is on.
    const realm = await realmOfRequest(ctx, request);
    if (!realm || !methodEnabled(ctx, realm, "Email")) return reply.redirect(`${RESET_PATH}done/`, 302);
    const rule = ctx.config.rateLimits.email;
    for (const key of [`password_reset:${request.ip}`, `password_reset:${email.toLowerCase()}`]) {
      const limit = await ctx.rateLimiter.hit(key, rule);
      if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
    }
    await transaction(ctx, (tx) => doRequestPasswordReset(tx, ctx.config, realm.id, email));
    return reply.redirect(`${RESET_PATH}done/`, 302);
  });

  app.get(`${RESET_PATH}done/`, async (_request, reply) =>
    sendHtml(
      reply,
      200,
      simplePage(
        "Check your email",
        `<h1>Check your email</h1><p>If an account uses the address you entered, we sent it a link to choose a new password. ` +
          `The link works once, within 3 days.</p><p class="hint">No email? Check your spam folder, or make sure you typed the address ` +
          `your account uses. <a href="${RESET_PATH}">Try again</a> · <a href="/login/">Log in</a></p>`,
      ),
    ),
  );

  app.get<LinkParams>(`${RESET_PATH}:uid/:token/`, async (request, reply) => {
    const { uid, token } = request.params;
    try {
      const { user } = await usableLinkOnHost(ctx, request, uid, token);
      return sendHtml(reply, 200, setPasswordPage(linkPath(uid, token), user.delivery_email, formToken(ctx, request, reply, PASSWORD_RESET_FORM)));
    } catch (error) {
      if (error instanceof PasswordResetLinkError) return linkErrorPage(reply, error);
      throw error;
    }
  });

  app.post<LinkParams>(`${RESET_PATH}:uid/:token/`, async (request, reply) => {
    if (!formAccepted(ctx, request, PASSWORD_RESET_FORM)) return csrfFailedPage(reply, { path: RESET_PATH, text: "Reset your password" });
    const csrfToken = formToken(ctx, request, reply, PASSWORD_RESET_FORM);
    const limit = await ctx.rateLimiter.hit(`password_reset_confirm:${request.ip}`, ctx.config.rateLimits.ip);
    if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
    const { uid, token } = request.params;
    let email: string;
    try {
      // The link first: a dead link gets its error page whatever the form holds.
      email = (await usableLinkOnHost(ctx, request, uid, token)).user.delivery_email;
    } catch (error) {
      if (error instanceof PasswordResetLinkError) return linkErrorPage(reply, error);
      throw error;
    }
    const password = formField(request, "new_password1");
    try {
      // Django's SetPasswordForm: the two fields must match; then Zulip's strength rule.
      if (password !== formField(request, "new_password2")) throw badRequest("The two password fields didn’t match.");
      checkNewPassword(password, ctx.config.dev);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return sendHtml(reply, 400, setPasswordPage(linkPath(uid, token), email, csrfToken, error.message));
    }
    const passwordHash = await hashPassword(password, ctx.config.fastPasswordHashing);
    try {
      await transaction(ctx, (tx) => doResetPassword(ctx, tx, uid, token, passwordHash));
    } catch (error) {
      if (error instanceof PasswordResetLinkError) return linkErrorPage(reply, error);
      throw error;
    }
    clearFormToken(ctx, reply, PASSWORD_RESET_FORM);
    return reply.redirect("/accounts/password/done/", 302);
  });

  app.get("/accounts/password/done/", async (_request, reply) =>
    sendHtml(
      reply,
      200,
      simplePage(
        "Password reset complete",
        `<h1>Password reset complete</h1><p>Your password has been changed, and every browser signed in to your account was signed out.</p>` +
          `<p><a href="/login/">Log in</a> with your new password.</p>`,
      ),
    ),
  );
}

/**
 * usablePasswordResetLink, on the host of the account's organization only: a link opened on
 * another organization's host is as dead there as a used one.
 */
async function usableLinkOnHost(ctx: AppContext, request: FastifyRequest, uid: string, token: string): Promise<PasswordResetLink> {
  const link = await usablePasswordResetLink(ctx.db.kysely, uid, token);
  if (!realmServesHost(ctx.config, link.realm, request.host)) throw new PasswordResetLinkError();
  return link;
}

function linkPath(uid: string, token: string): string {
  return `${RESET_PATH}${encodeURIComponent(uid)}/${encodeURIComponent(token)}/`;
}

function linkErrorPage(reply: FastifyReply, error: PasswordResetLinkError): FastifyReply {
  return sendHtml(
    reply,
    404,
    simplePage(
      "Reset your password",
      `<h1>Reset your password</h1><p class="error" role="alert">${escapeHtml(error.message)}</p>` +
        `<p class="hint"><a href="${RESET_PATH}">Ask for a new link</a> · <a href="/login/">Log in</a></p>`,
    ),
  );
}

function requestPage(csrfToken: string, values: { email?: string; error?: string }): string {
  const body =
    `<h1>Reset your password</h1>` +
    `<p>Enter your email address, and we will send you a link to choose a new password.</p>` +
    (values.error ? `<p class="error" role="alert">${escapeHtml(values.error)}</p>` : "") +
    `<form method="post" action="${RESET_PATH}">` +
    formTokenField(csrfToken) +
    `<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="email" required autofocus maxlength="254" value="${escapeHtml(values.email ?? "")}">` +
    `<button type="submit">Send reset link</button></form>` +
    `<p class="hint"><a href="/login/">Back to log in</a></p>`;
  return simplePage("Reset your password", body);
}

function setPasswordPage(action: string, email: string, csrfToken: string, error?: string): string {
  const body =
    `<h1>Choose a new password</h1>` +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
    `<form method="post" action="${escapeHtml(action)}">` +
    formTokenField(csrfToken) +
    `<label for="email">Email</label><input id="email" type="email" name="username" autocomplete="username" value="${escapeHtml(email)}" readonly>` +
    `<label for="new_password1">New password</label><input id="new_password1" type="password" name="new_password1" autocomplete="new-password" required autofocus maxlength="100">` +
    `<label for="new_password2">Confirm new password</label><input id="new_password2" type="password" name="new_password2" autocomplete="new-password" required maxlength="100">` +
    `<button type="submit">Change password</button></form>`;
  return simplePage("Choose a new password", body);
}
