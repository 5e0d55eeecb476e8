import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createSession } from "../actions/login.js";
import type { AppContext } from "../appContext.js";
import { getDefaultRealm } from "../lib/realms.js";
import { simplePage, sendHtml } from "../http/webApp.js";
import { setSessionCookies } from "../http/webSession.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import type { AuthSettings } from "./settings.js";
import type { LoginIntent } from "./flows.js";

/**
 * Sign-in through an identity provider, the part every provider shares. A provider's module
 * (src/auth/<provider>.ts) sends the browser away (`begin`), checks the answer it brings back
 * (its own routes, mounted by `mount`), and hands the identity it proved to finishExternalLogin,
 * which signs the person in to their account, creates one where the organization allows it, and
 * ends the flow the way it started (web session, Zulip's mobile or desktop app).
 */

/** Zulip's names of the external methods (AUTH_BACKEND_NAME_MAP), as realm_authentication_methods keys. */
export type ExternalMethod = "GitHub" | "GitLab" | "Google" | "SAML" | "OpenID Connect";

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
 * Signs the person with the proved identity in, as the intent asked.
 * TODO(issue 36, helper extauth): account creation when the organization allows it, Zulip's
 * mobile and desktop app flows, deactivated realm, method turned off for the realm.
 */
export async function finishExternalLogin(
  ctx: AppContext,
  _request: FastifyRequest,
  reply: FastifyReply,
  intent: LoginIntent,
  identity: ExternalIdentity,
): Promise<FastifyReply> {
  const realm = await getDefaultRealm(ctx.db.kysely);
  const user = realm ? await userStore.getByEmail(ctx.db.kysely, realm.id, identity.email) : undefined;
  if (!user || user.is_bot) return refusal(reply, 403, "No account", `There is no account for ${identity.email} in this organization.`);
  if (!user.is_active) return refusal(reply, 403, "Account deactivated", `The account for ${identity.email} has been deactivated.`);
  setSessionCookies(ctx, reply, await createSession(ctx, user));
  return reply.redirect(intent.flow.kind === "web" ? intent.flow.next : "/", 302);
}

/** A page saying why the sign-in did not happen. */
export function refusal(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return sendHtml(
    reply,
    status,
    simplePage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="hint"><a href="/login/">Back to login</a></p>`),
  );
}
