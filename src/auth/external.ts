import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createSession } from "../actions/login.js";
import { ExternalSignupRefused, doExternalSignup } from "../actions/externalSignup.js";
import { type AppContext, transaction } from "../appContext.js";
import { realmOfRequest, realmUrl } from "../lib/realms.js";
import { simplePage, sendHtml } from "../http/webApp.js";
import { sessionUse, setSessionCookies } from "../http/webSession.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import type { AuthSettings } from "./settings.js";
import { finishDesktopFlow, finishMobileFlow } from "./appFlows.js";
import type { LoginIntent } from "./flows.js";
import { methodEnabled } from "./methods.js";

/**
 * Sign-in through an identity provider, the part every provider shares. A provider's module
 * (src/auth/<provider>.ts) sends the browser away (`begin`), checks the answer it brings back
 * (its own routes, mounted by `mount`), and hands the identity it proved to finishExternalLogin,
 * which signs the person in to their account, creates one where the organization allows it, and
 * ends the flow the way it started (web session, Zulip's mobile or desktop app).
 */

/** Zulip's names of the external methods (AUTH_BACKEND_NAME_MAP), as realm_authentication_methods keys. */
export type ExternalMethod = "GitHub" | "GitLab" | "Google" | "SAML" | "OpenID Connect";

/**
 * The order of the login page's buttons and of external_authentication_methods: Zulip's
 * EXTERNAL_AUTH_METHODS sorted by sort_order, highest first (SAML 9999, Google 150, GitHub 100,
 * OpenID Connect 100, GitLab 75; equal ones in the order Zulip defines them).
 */
export const EXTERNAL_METHOD_ORDER: readonly ExternalMethod[] = ["SAML", "Google", "GitHub", "OpenID Connect", "GitLab"];

/** One button on the login page and one entry of server_settings' external_authentication_methods. */
export interface ExternalEntry {
  /** Zulip's entry name: "github", "saml:<idp>", "oidc"… */
  name: string;
  display_name: string;
  display_icon: string | null;
  /** The provider's part of the login and sign-up URLs: "github", "saml/<idp>". */
  path: string;
}

export interface ExternalBackend {
  method: ExternalMethod;
  /** The URL segment after /accounts/login/social/ ("github", "oidc", "saml"). */
  key: string;
  /** The entries this server's settings configure; none when the provider is not configured. */
  entries(settings: AuthSettings): ExternalEntry[];
  /** Sends the browser to the provider for the entry (`idp`: the part after the key, if any). */
  begin(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, intent: LoginIntent, idp: string | undefined): Promise<FastifyReply>;
  /** Mounts the routes the provider sends the browser back to (/complete/<key>/…). */
  mount(app: FastifyInstance, ctx: AppContext): void;
}

/** What a provider proved: an email it vouches for (verified), and the person's name if it gave one. */
export interface ExternalIdentity {
  method: ExternalMethod;
  email: string;
  fullName: string | null;
}

/**
 * Signs the person with the proved identity in, as the intent asked (Zulip's
 * login_or_register_remote_user): to their account, or to a new one where the organization lets
 * the address join (actions/externalSignup.ts); then a web session and a redirect to `next`, or
 * the end of the mobile or desktop app's flow. Refused with a page, nothing created: a
 * deactivated organization or account, a method the organization turned off, an address that
 * may not join.
 */
export async function finishExternalLogin(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  intent: LoginIntent,
  identity: ExternalIdentity,
): Promise<FastifyReply> {
  // The organization of the host the provider sent the browser back to: the one the sign-in
  // started at (redirect URIs are built on its URL).
  const realm = await realmOfRequest(ctx, request);
  if (!realm) return refusal(reply, 404, "No organization", `There is no Parley organization at ${request.host}.`);
  if (realm.deactivated) return refusal(reply, 403, "Organization deactivated", "This organization has been deactivated.");
  if (!methodEnabled(ctx, realm, identity.method))
    return refusal(reply, 403, "Not available", `This organization does not allow signing in with ${identity.method}.`);
  const email = identity.email.trim();
  let user = await userStore.getByEmail(ctx.db.kysely, realm.id, email);
  if (user?.is_bot) return refusal(reply, 403, "No account", `There is no account for ${email} in this organization.`);
  if (user && !user.is_active) return refusal(reply, 403, "Account deactivated", `Your account ${email} has been deactivated.`);
  if (!user) {
    try {
      user = await transaction(ctx, (tx) => doExternalSignup(tx, realm, { email, fullName: identity.fullName }, realmUrl(ctx.config, realm)));
    } catch (error) {
      if (error instanceof ExternalSignupRefused) return refusal(reply, 403, "Cannot sign up", error.message);
      throw error;
    }
  }
  switch (intent.flow.kind) {
    case "mobile":
      return finishMobileFlow(ctx, reply, realm, user, intent.flow.otp);
    case "desktop":
      return finishDesktopFlow(ctx, reply, realm, user, intent.flow.otp);
    case "web":
      setSessionCookies(ctx, reply, await createSession(ctx, user, sessionUse(request)));
      return reply.redirect(intent.flow.next, 302);
  }
}

/** A page saying why the sign-in did not happen. */
export function refusal(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return sendHtml(
    reply,
    status,
    simplePage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="hint"><a href="/login/">Back to login</a></p>`),
  );
}
