import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { checkSignupFields, doAcceptInvitation, InvitationLinkError, usableInvitation } from "../actions/invitationSignup.js";
import { createSession } from "../actions/login.js";
import { checkNewPassword } from "../actions/users.js";
import { transaction, type AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { apiKeysEqual } from "../lib/apiKeys.js";
import { hashPassword } from "../lib/passwords.js";
import type { Invitation } from "../store/invitations.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { ApiError } from "./errors.js";
import { sendHtml, simplePage } from "./webApp.js";
import { setSessionCookies } from "./webSession.js";

/**
 * An invitation's link, /join/<key>/ (Zulip's accounts_home_from_multiuse_invite and the
 * registration form of an invited user): GET checks the key and shows the sign-up form (the
 * invited address fixed, or a field for it on a reusable link); POST creates the account
 * (invitationSignup.ts), signs the new user in with a web session and redirects to the app.
 *
 * The form is protected against cross-site submission by a double-submit token: GET sets it in
 * an HttpOnly, SameSite=Strict cookie for /join/ and in a hidden field; POST must bring both, equal.
 */
const FORM_CSRF_COOKIE = "join_csrftoken";
const FORM_CSRF_FIELD = "csrfmiddlewaretoken";

interface FormValues {
  email?: string;
  full_name?: string;
  error?: string;
}

export async function joinPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { key: string } }>("/join/:key/", async (request, reply) => {
    let found;
    try {
      found = await usableInvitation(ctx.db.kysely, request.params.key);
    } catch (error) {
      if (error instanceof InvitationLinkError) return linkErrorPage(reply, error);
      throw error;
    }
    const token = formToken(ctx, request, reply);
    return sendHtml(reply, 200, await signupPage(ctx, found.invitation, found.realm, token, {}));
  });

  app.post<{ Params: { key: string } }>("/join/:key/", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined);
    const cookieToken = request.cookies[FORM_CSRF_COOKIE];
    const sentToken = field(FORM_CSRF_FIELD);
    if (!cookieToken || !sentToken || !apiKeysEqual(cookieToken, sentToken)) {
      return sendHtml(reply, 403, simplePage("Forbidden", `<h1>Forbidden</h1><p class="error" role="alert">CSRF verification failed. Open the invitation link again and resubmit the form.</p>`));
    }
    const limit = ctx.rateLimiter.hit(`join:${request.ip}`, ctx.config.rateLimits.ip);
    if (limit.retryAfter > 0) {
      reply.header("Retry-After", String(Math.ceil(limit.retryAfter)));
      return sendHtml(reply, 429, simplePage("Too many attempts", `<h1>Too many attempts</h1><p>Try again in ${Math.ceil(limit.retryAfter)} seconds.</p>`));
    }
    const key = request.params.key;
    const values = { email: field("email"), full_name: field("full_name") ?? "" };
    let found: { invitation: Invitation; realm: Realm } | undefined;
    try {
      found = await usableInvitation(ctx.db.kysely, key);
      // The cheap checks first, so a mistyped form costs no password hash.
      await checkSignupFields(ctx.db.kysely, found.invitation, found.realm, values);
      const password = checkNewPassword(field("password") ?? "", ctx.config.dev);
      const passwordHash = await hashPassword(password, ctx.config.fastPasswordHashing);
      const user = await transaction(ctx, (tx) => doAcceptInvitation(tx, key, { ...values, password_hash: passwordHash }));
      setSessionCookies(ctx, reply, await createSession(ctx, user));
      reply.clearCookie(FORM_CSRF_COOKIE, { path: "/join/" });
      return reply.redirect("/", 302);
    } catch (error) {
      if (error instanceof InvitationLinkError) return linkErrorPage(reply, error);
      if (!(error instanceof ApiError) || error.status >= 500 || !found) throw error;
      return sendHtml(reply, 400, await signupPage(ctx, found.invitation, found.realm, sentToken, { ...values, error: error.message }));
    }
  });
}

/** The form's token: the one this browser already holds (several open forms keep working), else a new one. */
function formToken(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): string {
  const held = request.cookies[FORM_CSRF_COOKIE];
  if (held && /^[A-Za-z0-9_-]{32}$/.test(held)) return held;
  const token = randomBytes(24).toString("base64url");
  reply.setCookie(FORM_CSRF_COOKIE, token, { path: "/join/", httpOnly: true, sameSite: "strict", secure: ctx.config.externalUrl.startsWith("https:") });
  return token;
}

function linkErrorPage(reply: FastifyReply, error: InvitationLinkError): FastifyReply {
  // Zulip answers every unusable confirmation link with 404.
  return sendHtml(reply, 404, simplePage("Invitation link", `<h1>Invitation link</h1><p class="error" role="alert">${escapeHtml(error.message)}</p><p class="hint"><a href="/login/">Log in</a></p>`));
}

async function signupPage(ctx: AppContext, invitation: Invitation, realm: Realm, token: string, values: FormValues): Promise<string> {
  const referrer = await userStore.getById(ctx.db.kysely, invitation.referred_by);
  const action = `/join/${encodeURIComponent(invitation.confirmation_key)}/`;
  const emailField = invitation.is_multiuse
    ? `<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="email" required autofocus value="${escapeHtml(values.email ?? "")}">`
    : `<label for="email">Email</label><input id="email" type="email" value="${escapeHtml(invitation.email ?? "")}" readonly>`;
  const body =
    `<h1>Join ${escapeHtml(realm.name)}</h1>` +
    (referrer ? `<p class="hint">${escapeHtml(referrer.full_name)} invited you.</p>` : "") +
    (values.error ? `<p class="error" role="alert">${escapeHtml(values.error)}</p>` : "") +
    `<form method="post" action="${escapeHtml(action)}">` +
    `<input type="hidden" name="${FORM_CSRF_FIELD}" value="${escapeHtml(token)}">` +
    emailField +
    `<label for="full_name">Full name</label><input id="full_name" type="text" name="full_name" autocomplete="name" required maxlength="100"${invitation.is_multiuse ? "" : " autofocus"} value="${escapeHtml(values.full_name ?? "")}">` +
    `<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="new-password" required>` +
    `<button type="submit">Sign up</button></form>` +
    `<p class="hint">Already have an account? <a href="/login/">Log in</a></p>`;
  return simplePage(`Join ${realm.name}`, body);
}
