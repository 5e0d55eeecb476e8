import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { apiKeysEqual } from "../lib/apiKeys.js";
import { ApiError, RateLimitedError } from "../lib/errors.js";
import { isOwner } from "../models/roles.js";
import { escapeHtml } from "../util/html.js";
import { formTokenField } from "../http/formCsrf.js";
import { formField } from "../http/pageForms.js";
import { sendHtml, simplePage } from "../http/webApp.js";
import { checkSameOriginForm, sessionUser } from "../http/webSession.js";
import {
  backupCodesLeft,
  beginTwoFactorSetup,
  disableTwoFactor,
  finishTwoFactorSetup,
  hasTwoFactor,
  organizationAllowsTwoFactor,
  pendingTwoFactorSetup,
  regenerateBackupCodes,
  setOrganizationTwoFactor,
  twoFactorOffered,
  type TwoFactorSetup,
} from "./twoFactor.js";

/**
 * The pages where a signed-in user manages two-factor authentication, at django-two-factor-auth's
 * URLs as Zulip serves them: /account/two_factor/ (the state, and for owners the organization's
 * switch), …/setup/ (QR code and key, confirmed by a code; then the backup codes, shown once),
 * …/backup/tokens/ (new backup codes) and …/disable/, both after a fresh code. Server-rendered
 * forms carrying the session's CSRF token, like the web app's requests (X-CSRFToken).
 */
/** Listed in HTTP_ROUTES (src/http/routes.ts). */
export const TWO_FACTOR_PATH = "/account/two_factor/";
const SETUP_PATH = `${TWO_FACTOR_PATH}setup/`;
const BACKUP_PATH = `${TWO_FACTOR_PATH}backup/tokens/`;
const DISABLE_PATH = `${TWO_FACTOR_PATH}disable/`;
const ORGANIZATION_PATH = `${TWO_FACTOR_PATH}organization/`;

type SignedIn = { user: User; realm: Realm; csrfToken: string };

export async function twoFactorPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  /** The page's user, or null after answering (not offered, not signed in, a forged form). */
  async function visitor(request: FastifyRequest, reply: FastifyReply, form = false): Promise<SignedIn | null> {
    if (!ctx.config.twoFactor) {
      sendHtml(reply, 404, page("Two-factor authentication", "<p>This server does not offer two-factor authentication.</p>"));
      return null;
    }
    const found = await sessionUser(ctx, request);
    if (!found) {
      reply.redirect("/login/", 302);
      return null;
    }
    if (form && !formAccepted(ctx, request, found.csrfToken)) {
      sendHtml(reply, 403, page("Forbidden", `<p class="error" role="alert">CSRF verification failed. Open the page again and resubmit the form.</p>`));
      return null;
    }
    return found;
  }

  app.get(TWO_FACTOR_PATH, async (request, reply) => {
    const found = await visitor(request, reply);
    return found ? sendHtml(reply, 200, await profilePage(ctx, found)) : reply;
  });

  app.get(SETUP_PATH, async (request, reply) => {
    const found = await visitor(request, reply);
    if (!found) return reply;
    if (!twoFactorOffered(ctx, found.realm)) return notOffered(reply);
    const setup = await beginTwoFactorSetup(ctx, found.realm, found.user);
    if (!setup) return reply.redirect(TWO_FACTOR_PATH, 302);
    return sendHtml(reply, 200, setupPage(found.csrfToken, setup));
  });

  app.post(SETUP_PATH, async (request, reply) => {
    const found = await visitor(request, reply, true);
    if (!found) return reply;
    if (!twoFactorOffered(ctx, found.realm)) return notOffered(reply);
    try {
      const codes = await finishTwoFactorSetup(ctx, found.realm, found.user, formField(request, "otp_token"));
      return sendHtml(reply, 200, backupCodesPage("Two-factor authentication is on", codes));
    } catch (error) {
      const setup = await pendingTwoFactorSetup(ctx, found.realm, found.user);
      if (!setup) return reply.redirect(TWO_FACTOR_PATH, 302);
      return codeRefused(reply, error, (message) => setupPage(found.csrfToken, setup, message));
    }
  });

  app.get(BACKUP_PATH, async (request, reply) => {
    const found = await visitor(request, reply);
    if (!found) return reply;
    if (!(await hasTwoFactor(ctx, found.user.id))) return reply.redirect(TWO_FACTOR_PATH, 302);
    return sendHtml(reply, 200, codeFormPage(BACKUP_PATH, found.csrfToken, "New backup codes", "Your old backup codes will stop working.", "Make new codes"));
  });

  app.post(BACKUP_PATH, async (request, reply) => {
    const found = await visitor(request, reply, true);
    if (!found) return reply;
    try {
      const codes = await regenerateBackupCodes(ctx, found.realm, found.user, formField(request, "otp_token"));
      return sendHtml(reply, 200, backupCodesPage("New backup codes", codes));
    } catch (error) {
      return codeRefused(reply, error, (message) =>
        codeFormPage(BACKUP_PATH, found.csrfToken, "New backup codes", "Your old backup codes will stop working.", "Make new codes", message),
      );
    }
  });

  app.get(DISABLE_PATH, async (request, reply) => {
    const found = await visitor(request, reply);
    if (!found) return reply;
    if (!(await hasTwoFactor(ctx, found.user.id))) return reply.redirect(TWO_FACTOR_PATH, 302);
    return sendHtml(reply, 200, codeFormPage(DISABLE_PATH, found.csrfToken, "Turn off two-factor authentication", DISABLE_TEXT, "Turn off"));
  });

  app.post(DISABLE_PATH, async (request, reply) => {
    const found = await visitor(request, reply, true);
    if (!found) return reply;
    try {
      await disableTwoFactor(ctx, found.realm, found.user, formField(request, "otp_token"));
      return reply.redirect(TWO_FACTOR_PATH, 302);
    } catch (error) {
      return codeRefused(reply, error, (message) =>
        codeFormPage(DISABLE_PATH, found.csrfToken, "Turn off two-factor authentication", DISABLE_TEXT, "Turn off", message),
      );
    }
  });

  app.post(ORGANIZATION_PATH, async (request, reply) => {
    const found = await visitor(request, reply, true);
    if (!found) return reply;
    if (!isOwner(found.user)) return sendHtml(reply, 403, page("Forbidden", `<p class="error" role="alert">Only organization owners can change this.</p>`));
    await setOrganizationTwoFactor(ctx, found.user, found.realm, formField(request, "enabled") === "true");
    return reply.redirect(TWO_FACTOR_PATH, 302);
  });
}

const DISABLE_TEXT = "You will sign in with your password alone, and your backup codes will stop working.";

function formAccepted(ctx: AppContext, request: FastifyRequest, csrfToken: string): boolean {
  try {
    checkSameOriginForm(ctx, request);
  } catch {
    return false;
  }
  const sent = formField(request, "csrfmiddlewaretoken");
  return sent !== "" && apiKeysEqual(sent, csrfToken);
}

function page(title: string, body: string): string {
  return simplePage(
    title,
    `<h1>${escapeHtml(title)}</h1>${body}<p class="hint"><a href="${TWO_FACTOR_PATH}">Two-factor authentication</a> · <a href="/">Back to Parley</a></p>`,
  );
}

function notOffered(reply: FastifyReply): FastifyReply {
  return sendHtml(reply, 403, page("Two-factor authentication", "<p>Your organization has turned two-factor authentication off.</p>"));
}

/** A refused code: the form again with the reason (429 with Retry-After when rate limited). */
function codeRefused(reply: FastifyReply, error: unknown, again: (message: string) => string): FastifyReply {
  if (!(error instanceof ApiError) || error.status >= 500) throw error;
  if (error instanceof RateLimitedError) {
    reply.headers(error.headers);
    return sendHtml(reply, 429, again(`Too many attempts. Try again in ${error.headers["Retry-After"]} seconds.`));
  }
  return sendHtml(reply, 400, again(error.message));
}

async function profilePage(ctx: AppContext, { user, realm, csrfToken }: SignedIn): Promise<string> {
  const enabled = await hasTwoFactor(ctx, user.id);
  const allowed = organizationAllowsTwoFactor(realm);
  let body: string;
  if (!allowed) {
    body = `<p class="state">Your organization has turned two-factor authentication off${enabled ? ": your password alone signs you in." : "."}</p>`;
  } else if (enabled) {
    const left = await backupCodesLeft(ctx, user.id);
    body =
      `<p class="state">Two-factor authentication is <strong>on</strong>: signing in with your password also needs a code from your authenticator app.</p>` +
      `<p>You have ${left} backup code${left === 1 ? "" : "s"} left.</p>` +
      `<p><a href="${BACKUP_PATH}">Make new backup codes</a> · <a href="${DISABLE_PATH}">Turn off</a></p>`;
  } else {
    body =
      `<p class="state">Two-factor authentication is <strong>off</strong>.</p>` +
      `<p>With it on, signing in with your password also needs a code from an authenticator app on your phone (FreeOTP, Google Authenticator, Aegis, 1Password…).</p>` +
      `<p><a href="${SETUP_PATH}">Set up two-factor authentication</a></p>`;
  }
  if (isOwner(user)) {
    body +=
      `<h2>Organization</h2><p>Two-factor authentication is ${allowed ? "available to" : "turned off for"} the members of ${escapeHtml(realm.name)}.</p>` +
      `<form method="post" action="${ORGANIZATION_PATH}">${formTokenField(csrfToken)}<input type="hidden" name="enabled" value="${allowed ? "false" : "true"}">` +
      `<button type="submit">${allowed ? "Turn off for the organization" : "Turn on for the organization"}</button></form>`;
  }
  return page("Two-factor authentication", body);
}

function codeField(): string {
  return `<label for="otp_token">Code</label><input id="otp_token" name="otp_token" autocomplete="one-time-code" required autofocus maxlength="20">`;
}

function setupPage(csrfToken: string, setup: TwoFactorSetup, error?: string): string {
  const body =
    `<p>Scan this QR code with your authenticator app, or type the key into it.</p>` +
    `<p><img class="qr" src="${setup.qrCode}" alt="QR code of ${escapeHtml(setup.uri)}" width="240" height="240"></p>` +
    `<p>Key: <code class="secret">${escapeHtml(setup.secret.replace(/(.{4})/g, "$1 ").trim())}</code></p>` +
    `<p>Then enter the 6-digit code the app shows.</p>` +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
    `<form method="post" action="${SETUP_PATH}">${formTokenField(csrfToken)}${codeField()}<button type="submit">Turn on</button></form>`;
  return page("Set up two-factor authentication", body);
}

function codeFormPage(action: string, csrfToken: string, title: string, text: string, button: string, error?: string): string {
  const body =
    `<p>${escapeHtml(text)} Enter a code from your authenticator app (or a backup code) to go on.</p>` +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
    `<form method="post" action="${action}">${formTokenField(csrfToken)}${codeField()}<button type="submit">${escapeHtml(button)}</button></form>`;
  return page(title, body);
}

function backupCodesPage(title: string, codes: readonly string[]): string {
  const body =
    `<p>These are your backup codes. Each one signs you in once in place of a code from your app, if you lose your phone. ` +
    `Save them somewhere safe now: they are not shown again.</p>` +
    `<ul class="backup-codes">${codes.map((code) => `<li><code>${escapeHtml(code)}</code></li>`).join("")}</ul>`;
  return page(title, body);
}
