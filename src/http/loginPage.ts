import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import { externalMethodDicts } from "../auth/entries.js";
import { ROUTED_HASHES } from "../contract/hash.js";
import { passwordAuthEnabled, realmMethodsEnabled } from "../lib/authMethods.js";
import { realmOfRequest } from "../lib/realms.js";
import { escapeHtml } from "../util/html.js";
import { localPath } from "../util/localPath.js";
import { formToken, formTokenField, LOGIN_FORM } from "./formCsrf.js";
import { sendHtml, sendNoOrganizationPage, simplePage } from "./webApp.js";
import { sessionUser } from "./webSession.js";

/**
 * `/login/`: the password form (posting to POST /accounts/login/, sessions.ts) when the
 * organization has Email or LDAP on, and a button per identity provider it has on (Zulip's
 * login.html); the form (in a hidden field, as Zulip's) and each button carry the page's `next`,
 * a local path (util/localPath.ts), anything else being dropped. A link's hash, which never
 * reaches the server, is added to them by the page's script (/static/login.js, LOGIN_SCRIPT). Its
 * own module rather than webApp.ts: the buttons come from the providers' modules
 * (auth/entries.ts), which use webApp.ts's page helpers.
 */
export async function loginPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Querystring: { next?: unknown } }>("/login/", async (request, reply) => {
    if (await sessionUser(ctx, request)) return reply.redirect("/", 302);
    if (ctx.config.rootDomain !== undefined && !(await realmOfRequest(ctx, request))) return sendNoOrganizationPage(reply, request.host);
    const next = localPath(request.query.next);
    return sendHtml(reply, 200, await loginPage(ctx, request, { csrfToken: formToken(ctx, request, reply, LOGIN_FORM), next }));
  });
  app.get("/accounts/login/", async (_request, reply) => reply.redirect("/login/", 302));
  app.get("/static/login.js", async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").header("Cache-Control", "public, max-age=3600").send(LOGIN_SCRIPT),
  );
}

/**
 * The sign-in page's script (a file: the Content-Security-Policy allows no inline script). A
 * signed-out browser that opens a link such as `/#narrow/channel/1-general` is sent from `/` to
 * /login/, and keeps the link's hash across the redirect, but the hash never reaches the server:
 * as Zulip's login page, the script makes `/` + the hash the form's `next` and the provider
 * buttons' `next`, where none other was given (empty or `/`), so that signing in lands on the
 * link. Only hashes the web app routes (contract/hash.ts ROUTED_HASHES). The hash is read from
 * `location.href` as the browser keeps it (percent-encoded), not from `location.hash`, which some
 * browsers decode. The server still checks every `next` (util/localPath.ts); `/#…` is local.
 */
const LOGIN_SCRIPT = `"use strict";
(() => {
  const routed = ${JSON.stringify(ROUTED_HASHES)};
  const href = location.href;
  const at = href.indexOf("#");
  if (at < 0) return;
  const hash = href.slice(at);
  if (!routed.includes(hash.slice(1).split("/")[0])) return;
  const next = "/" + hash;
  const unset = (value) => value === null || value === "" || value === "/";
  for (const form of document.querySelectorAll('form[action="/accounts/login/"]')) {
    let field = form.querySelector('input[name="next"]');
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = "next";
      form.append(field);
    }
    if (unset(field.value)) field.value = next;
  }
  for (const link of document.querySelectorAll("a.external-login")) {
    const url = new URL(link.href);
    if (url.origin !== location.origin || !unset(url.searchParams.get("next"))) continue;
    url.searchParams.set("next", next);
    link.href = url.href;
  }
})();
`;

/**
 * The sign-in page of the request's organization (its host's, lib/realms.ts) with its CSRF token,
 * the error of a failed attempt, the email typed and where to go after.
 */
export async function loginPage(
  ctx: AppContext,
  request: FastifyRequest,
  { error, email, csrfToken, next }: { error?: string; email?: string; csrfToken: string; next?: string },
): Promise<string> {
  const realm = await realmOfRequest(ctx, request);
  if (realm?.deactivated) return deactivatedPage(realm.name);
  const methods = realm ? realmMethodsEnabled(ctx.config, realm) : { Email: true };
  const external = externalMethodDicts(ctx, realm);
  const parts = [`<h1>Log in to ${escapeHtml(realm?.name ?? "Parley")}</h1>`];
  if (error) parts.push(`<p class="error" role="alert">${escapeHtml(error)}</p>`);
  if (passwordAuthEnabled(methods)) {
    parts.push(
      `<form method="post" action="/accounts/login/">` +
        formTokenField(csrfToken) +
        (next ? `<input type="hidden" name="next" value="${escapeHtml(next)}">` : "") +
        `<label for="username">Email</label><input id="username" type="email" name="username" autocomplete="username" required autofocus value="${escapeHtml(email ?? "")}">` +
        `<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>` +
        `<button type="submit">Log in</button></form>`,
    );
  }
  if (external.length > 0) {
    const query = next ? `?${new URLSearchParams({ next }).toString()}` : "";
    const buttons = external.map(
      (entry) =>
        `<li><a class="external-login" href="${escapeHtml(entry.login_url + query)}">` +
        (entry.display_icon ? `<img src="${escapeHtml(entry.display_icon)}" alt="" width="20" height="20">` : "") +
        `<span>Log in with ${escapeHtml(entry.display_name)}</span></a></li>`,
    );
    parts.push(`<nav aria-label="Other ways to log in"><ul class="external-logins">${buttons.join("")}</ul></nav>`);
  }
  if (methods.Email) parts.push(`<p class="hint"><a href="/accounts/password/reset/">Forgot your password?</a></p>`);
  if (ctx.config.dev) parts.push(`<p class="hint"><a href="/devlogin/">Development login</a> (no password)</p>`);
  parts.push(`<script src="/static/login.js"></script>`);
  return simplePage("Log in", parts.join(""));
}

/** Zulip's deactivated.html: a deactivated organization offers no way to sign in. */
function deactivatedPage(realmName: string): string {
  return simplePage(
    "Deactivated organization",
    `<h1>Deactivated organization</h1><p role="alert">The organization ${escapeHtml(realmName)} has been deactivated. ` +
      `Please contact the server's administrator to reactivate it.</p>`,
  );
}
