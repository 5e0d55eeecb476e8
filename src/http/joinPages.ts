import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { realmServesHost } from "../lib/realms.js";
import {
  checkSignupFields,
  checkStartLinkSignup,
  doAcceptInvitation,
  InvitationLinkError,
  type SignupLink,
  usableSignupLink,
} from "../actions/invitationSignup.js";
import { createSession } from "../actions/login.js";
import { checkNewPassword } from "../actions/users.js";
import { transaction, type AppContext } from "../appContext.js";
import { hashPassword } from "../lib/passwords.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { ApiError } from "../lib/errors.js";
import { checkFormToken, clearFormToken, formToken, formTokenField, JOIN_FORM } from "./formCsrf.js";
import { sendHtml, simplePage, tooManyAttemptsPage } from "./webApp.js";
import { CsrfError, sessionUse, setSessionCookies } from "./webSession.js";
import { realmUrl } from "../lib/realms.js";

/**
 * An invitation's link, /join/<key>/ (Zulip's accounts_home_from_multiuse_invite and the
 * registration form of an invited user): GET checks the key and shows the sign-up form with the
 * invited address fixed; POST creates the account (invitationSignup.ts), signs the new user in
 * with a web session and redirects to the app. A reusable link first asks for the address and
 * mails a one-time link to it (also a /join/<key>/ link), which then shows the sign-up form.
 *
 * The form is protected against cross-site submission by a double-submit token (formCsrf.ts).
 */
interface FormValues {
  email?: string;
  full_name?: string;
  error?: string;
}

export async function joinPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { key: string } }>("/join/:key/", async (request, reply) => {
    let link: SignupLink;
    try {
      link = await signupLinkOnHost(ctx, request, request.params.key);
    } catch (error) {
      if (error instanceof InvitationLinkError) return linkErrorPage(reply, error);
      throw error;
    }
    return sendHtml(reply, 200, await signupPage(ctx, request.params.key, link, formToken(ctx, request, reply, JOIN_FORM), {}));
  });

  app.post<{ Params: { key: string } }>("/join/:key/", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined);
    try {
      checkFormToken(request, JOIN_FORM);
    } catch (error) {
      if (!(error instanceof CsrfError)) throw error;
      return sendHtml(
        reply,
        403,
        simplePage(
          "Forbidden",
          `<h1>Forbidden</h1><p class="error" role="alert">CSRF verification failed. Open the invitation link again and resubmit the form.</p>`,
        ),
      );
    }
    const token = formToken(ctx, request, reply, JOIN_FORM);
    const limit = await ctx.rateLimiter.hit(`join:${request.ip}`, ctx.config.rateLimits.ip);
    if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
    const key = request.params.key;
    const values = { email: field("email") ?? "", full_name: field("full_name") ?? "" };
    let link: SignupLink | undefined;
    try {
      link = await signupLinkOnHost(ctx, request, key);
      if (link.email === null) return await startLinkSignup(ctx, request, reply, link, values.email);
      // The cheap checks first, so a mistyped form costs no password hash.
      await checkSignupFields(ctx.db.kysely, link, values);
      const password = checkNewPassword(field("password") ?? "", ctx.config.dev);
      const passwordHash = await hashPassword(password, ctx.config.fastPasswordHashing);
      const user = await transaction(ctx, (tx) => doAcceptInvitation(tx, key, { full_name: values.full_name, password_hash: passwordHash }));
      setSessionCookies(ctx, reply, await createSession(ctx, user, sessionUse(request)));
      clearFormToken(ctx, reply, JOIN_FORM);
      return reply.redirect("/", 302);
    } catch (error) {
      if (error instanceof InvitationLinkError) return linkErrorPage(reply, error);
      if (!(error instanceof ApiError) || error.status >= 500 || !link) throw error;
      return sendHtml(reply, 400, await signupPage(ctx, key, link, token, { ...values, error: error.message }));
    }
  });
}

/**
 * usableSignupLink, on the host of the link's organization only: opened on another
 * organization's host, a link is one that does not exist there (404, as Zulip's).
 */
async function signupLinkOnHost(ctx: AppContext, request: FastifyRequest, key: string): Promise<SignupLink> {
  const link = await usableSignupLink(ctx.db.kysely, key);
  if (!realmServesHost(ctx.config, link.realm, request.host)) throw new InvitationLinkError("invalid");
  return link;
}

/** A reusable link's address step: a one-time link by email (limited per IP and per address, as every email-sending form). */
async function startLinkSignup(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, link: SignupLink, rawEmail: string): Promise<FastifyReply> {
  const rule = ctx.config.rateLimits.email;
  for (const key of [`join_email:${request.ip}`, `join_email:${rawEmail.trim().toLowerCase()}`]) {
    const limit = await ctx.rateLimiter.hit(key, rule);
    if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
  }
  const email = await transaction(ctx, (tx) => checkStartLinkSignup(tx, realmUrl(ctx.config, link.realm), link, rawEmail));
  const body = `<h1>Check your email</h1><p>We sent a link to <strong>${escapeHtml(email)}</strong>. Open it within 24 hours to finish creating your account in ${escapeHtml(link.realm.name)}.</p>`;
  return sendHtml(reply, 200, simplePage("Check your email", body));
}

function linkErrorPage(reply: FastifyReply, error: InvitationLinkError): FastifyReply {
  // Zulip answers every unusable confirmation link with 404.
  return sendHtml(
    reply,
    404,
    simplePage(
      "Invitation link",
      `<h1>Invitation link</h1><p class="error" role="alert">${escapeHtml(error.message)}</p><p class="hint"><a href="/login/">Log in</a></p>`,
    ),
  );
}

async function signupPage(ctx: AppContext, key: string, link: SignupLink, token: string, values: FormValues): Promise<string> {
  const { invitation, realm } = link;
  const referrer = await userStore.getById(ctx.db.kysely, invitation.referred_by);
  const action = `/join/${encodeURIComponent(key)}/`;
  const head =
    `<h1>Join ${escapeHtml(realm.name)}</h1>` +
    (referrer ? `<p class="hint">${escapeHtml(referrer.full_name)} invited you.</p>` : "") +
    (values.error ? `<p class="error" role="alert">${escapeHtml(values.error)}</p>` : "") +
    `<form method="post" action="${escapeHtml(action)}">` +
    formTokenField(token);
  const tail = `</form><p class="hint">Already have an account? <a href="/login/">Log in</a></p>`;
  if (link.email === null) {
    // A reusable link: the address first, confirmed by email.
    const body =
      head +
      `<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="email" required autofocus value="${escapeHtml(values.email ?? "")}">` +
      `<button type="submit">Continue</button>` +
      tail;
    return simplePage(`Join ${realm.name}`, body);
  }
  const body =
    head +
    `<label for="email">Email</label><input id="email" type="email" value="${escapeHtml(link.email)}" readonly>` +
    `<label for="full_name">Full name</label><input id="full_name" type="text" name="full_name" autocomplete="name" required autofocus maxlength="100" value="${escapeHtml(values.full_name ?? "")}">` +
    `<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="new-password" required>` +
    `<button type="submit">Sign up</button>` +
    tail;
  return simplePage(`Join ${realm.name}`, body);
}
