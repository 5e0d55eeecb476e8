import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  checkSignupEmail,
  doCreateOrganizationFromSignup,
  doRequestOrganizationSignup,
  type OrganizationForm,
  OrganizationFormError,
  type OrganizationFormErrors,
  organizationFormErrors,
  OrganizationSignupLinkError,
  usableOrganizationSignupLink,
} from "../actions/organizationSignup.js";
import { transaction, type AppContext } from "../appContext.js";
import { ApiError } from "../lib/errors.js";
import { hashPassword, PASSWORD_MAX_LENGTH } from "../lib/passwords.js";
import { realmUrl } from "../lib/realms.js";
import { REALM_NAME_MAX_LENGTH, SUBDOMAIN_MAX_LENGTH } from "../models/organizations.js";
import { escapeHtml } from "../util/html.js";
import { clearFormToken, type FormCsrf, formToken, formTokenField } from "./formCsrf.js";
import { sendHtml, simplePage, tooManyAttemptsPage } from "./webApp.js";
import { csrfFailedPage, formAccepted, formField } from "./pageForms.js";

/**
 * The sign-up page for new organizations (Zulip's /new/ with OPEN_REALM_CREATION), served only
 * when PARLEY_ORGANIZATION_SIGNUP is on and only on the bare root domain; anywhere else every
 * /new/ URL is the usual 404.
 *
 * - GET /new/: the address form; POST emails a one-time link (actions/organizationSignup.ts) and
 *   shows "Check your email", whatever the address. Limited per IP and per address like every
 *   email-sending form.
 * - GET /new/confirm/<key>/: the creation form (organization name, subdomain, the owner's name
 *   and password; the owner's address is the confirmed one). POST creates the organization and
 *   its owner and redirects to the new organization's login page, `<subdomain>.<root domain>`.
 *   An unusable link shows an error page (404, as Zulip's confirmation links) and changes nothing.
 *
 * Both forms carry a double-submit CSRF token (formCsrf.ts) whose cookie covers /new/.
 */
const SIGNUP_FORM: FormCsrf = { cookie: "new_organization_csrftoken", path: "/new/" };

type LinkParams = { Params: { key: string } };

export async function organizationSignupPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  // Off, or on another host than the root domain: as if the routes did not exist.
  app.addHook("onRequest", async (request, reply) => {
    if (!signupServed(ctx, request)) return reply.callNotFound();
  });

  // The creation form redirects to the new organization's own host: the page's form-action must allow it.
  app.addHook("onSend", async (_request, reply, payload) => {
    const policy = reply.getHeader("content-security-policy");
    if (typeof policy === "string")
      reply.header("content-security-policy", policy.replace("form-action 'self'", `form-action 'self' ${organizationsSource(ctx)}`));
    return payload;
  });

  app.get("/new/", async (request, reply) => sendHtml(reply, 200, emailPage(formToken(ctx, request, reply, SIGNUP_FORM), {})));

  app.post("/new/", async (request, reply) => {
    if (!formAccepted(ctx, request, SIGNUP_FORM)) return csrfFailedPage(reply, { path: "/new/", text: "Create a new organization" });
    const token = formToken(ctx, request, reply, SIGNUP_FORM);
    const typed = formField(request, "email");
    let email: string;
    try {
      email = checkSignupEmail(typed);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return sendHtml(reply, 400, emailPage(token, { email: typed, error: error.message }));
    }
    const rule = ctx.config.rateLimits.email;
    for (const key of [`organization_signup:${request.ip}`, `organization_signup:${email.toLowerCase()}`]) {
      const limit = await ctx.rateLimiter.hit(key, rule);
      if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
    }
    await transaction(ctx, (tx) => doRequestOrganizationSignup(tx, ctx.config.externalUrl, email));
    const body =
      `<h1>Check your email</h1><p>We sent a link to <strong>${escapeHtml(email)}</strong>. Open it within 24 hours to create your organization.</p>` +
      `<p class="hint">No email? Check your spam folder, or make sure you typed your address right. <a href="/new/">Try again</a></p>`;
    return sendHtml(reply, 200, simplePage("Check your email", body));
  });

  app.get<LinkParams>("/new/confirm/:key/", async (request, reply) => {
    try {
      const link = await usableOrganizationSignupLink(ctx.db.kysely, request.params.key);
      return sendHtml(reply, 200, creationPage(ctx, request.params.key, link.email, formToken(ctx, request, reply, SIGNUP_FORM), emptyForm(), {}));
    } catch (error) {
      if (error instanceof OrganizationSignupLinkError) return linkErrorPage(reply, error);
      throw error;
    }
  });

  app.post<LinkParams>("/new/confirm/:key/", async (request, reply) => {
    if (!formAccepted(ctx, request, SIGNUP_FORM)) return csrfFailedPage(reply, { path: "/new/", text: "Create a new organization" });
    const token = formToken(ctx, request, reply, SIGNUP_FORM);
    const limit = await ctx.rateLimiter.hit(`organization_signup_confirm:${request.ip}`, ctx.config.rateLimits.ip);
    if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
    const { key } = request.params;
    const form: OrganizationForm = {
      realm_name: formField(request, "realm_name"),
      realm_subdomain: formField(request, "realm_subdomain").trim(),
      full_name: formField(request, "full_name"),
      password: formField(request, "password"),
    };
    try {
      // The link first: a dead link gets its error page whatever the form holds.
      const link = await usableOrganizationSignupLink(ctx.db.kysely, key);
      // The cheap checks before the password hash; they run again in the transaction.
      const errors = await organizationFormErrors(ctx.db.kysely, form, ctx.config.dev);
      if (Object.keys(errors).length > 0) return sendHtml(reply, 400, creationPage(ctx, key, link.email, token, form, errors));
      const passwordHash = await hashPassword(form.password, ctx.config.fastPasswordHashing);
      try {
        const { realm } = await transaction(ctx, (tx) => doCreateOrganizationFromSignup(tx, key, form, passwordHash, ctx.config.dev));
        clearFormToken(ctx, reply, SIGNUP_FORM);
        return reply.redirect(`${realmUrl(ctx.config, realm)}/login/`, 302);
      } catch (error) {
        if (error instanceof OrganizationFormError) return sendHtml(reply, 400, creationPage(ctx, key, link.email, token, form, error.errors));
        throw error;
      }
    } catch (error) {
      if (error instanceof OrganizationSignupLinkError) return linkErrorPage(reply, error);
      throw error;
    }
  });
}

/** Whether this request may see the sign-up pages: the setting is on and it is addressed to the bare root domain. */
function signupServed(ctx: AppContext, request: FastifyRequest): boolean {
  const { organizationSignup, rootDomain } = ctx.config;
  if (!organizationSignup || rootDomain === undefined) return false;
  const host = request.host.toLowerCase();
  const colon = host.lastIndexOf(":");
  const name = (colon === -1 || host.includes("]") ? host : host.slice(0, colon)).replace(/\.$/, "");
  return name === rootDomain;
}

/** The CSP source of every organization's host: the external URL's scheme and port, any subdomain of the root domain. */
function organizationsSource(ctx: AppContext): string {
  const url = new URL(ctx.config.externalUrl);
  return `${url.protocol}//*.${ctx.config.rootDomain ?? url.hostname}${url.port === "" ? "" : `:${url.port}`}`;
}

function emptyForm(): OrganizationForm {
  return { realm_name: "", realm_subdomain: "", full_name: "", password: "" };
}

function linkErrorPage(reply: FastifyReply, error: OrganizationSignupLinkError): FastifyReply {
  return sendHtml(
    reply,
    404,
    simplePage(
      "Create a new organization",
      `<h1>Create a new organization</h1><p class="error" role="alert">${escapeHtml(error.message)}</p>` +
        `<p class="hint"><a href="/new/">Ask for a new link</a></p>`,
    ),
  );
}

function emailPage(csrfToken: string, values: { email?: string; error?: string }): string {
  const body =
    `<h1>Create a new organization</h1>` +
    `<p>Enter your email address. We will send you a link to set up your organization; you will be its owner.</p>` +
    `<form method="post" action="/new/">` +
    formTokenField(csrfToken) +
    `<label for="email">Email</label>` +
    `<input id="email" type="email" name="email" autocomplete="email" required autofocus maxlength="254" value="${escapeHtml(values.email ?? "")}"` +
    (values.error ? ` aria-invalid="true" aria-describedby="email-error">` : ">") +
    (values.error ? `<p class="error" id="email-error" role="alert">${escapeHtml(values.error)}</p>` : "") +
    `<button type="submit">Continue</button></form>`;
  return simplePage("Create a new organization", body);
}

function creationPage(ctx: AppContext, key: string, email: string, csrfToken: string, form: OrganizationForm, errors: OrganizationFormErrors): string {
  // The first field with a problem has the focus, else the first field.
  const focused = (["realm_name", "realm_subdomain", "full_name", "password"] as const).find((name) => errors[name] !== undefined) ?? "realm_name";
  const input = (name: keyof OrganizationForm, label: string, attributes: string, hint = "") => {
    const error = errors[name];
    const described = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
    const value = name === "password" ? "" : ` value="${escapeHtml(form[name])}"`;
    return (
      `<label for="${name}">${label}</label>` +
      `<input id="${name}" name="${name}" ${attributes}${name === focused ? " autofocus" : ""}${value}${error ? ` aria-invalid="true"` : ""}${described ? ` aria-describedby="${described}"` : ""}>` +
      (hint ? `<p class="hint" id="${name}-hint">${hint}</p>` : "") +
      (error ? `<p class="error" id="${name}-error">${escapeHtml(error)}</p>` : "")
    );
  };
  const suffix = `.${ctx.config.rootDomain ?? ""}`;
  const problems = Object.keys(errors).length;
  const body =
    `<h1>Create a new organization</h1>` +
    (problems > 0 ? `<p class="error" role="alert">Please correct the ${problems === 1 ? "field" : "fields"} marked below.</p>` : "") +
    `<form method="post" action="/new/confirm/${encodeURIComponent(key)}/">` +
    formTokenField(csrfToken) +
    input("realm_name", "Organization name", `type="text" required maxlength="${REALM_NAME_MAX_LENGTH}" autocomplete="organization"`) +
    input(
      "realm_subdomain",
      "Organization URL",
      `type="text" required maxlength="${SUBDOMAIN_MAX_LENGTH}" autocapitalize="none" spellcheck="false" pattern="[a-z0-9\\-]+"`,
      `Your organization will be at <strong>&lt;subdomain&gt;${escapeHtml(suffix)}</strong>: 3 to ${SUBDOMAIN_MAX_LENGTH} lowercase letters, digits and '-'.`,
    ) +
    `<label for="email">Email</label><input id="email" type="email" name="username" autocomplete="username" value="${escapeHtml(email)}" readonly>` +
    input("full_name", "Your name", `type="text" required maxlength="100" autocomplete="name"`) +
    input("password", "Password", `type="password" required maxlength="${PASSWORD_MAX_LENGTH}" autocomplete="new-password"`) +
    `<button type="submit">Create organization</button></form>`;
  return simplePage("Create a new organization", body);
}
