import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { urlOfRequest } from "../lib/realms.js";
import type { Configuration } from "openid-client";
import type { AppContext } from "../appContext.js";
import { type ExternalBackend, type ExternalEntry, finishExternalLogin, refusal } from "./external.js";
import { bindFlowToBrowser, type LoginIntent, saveFlow, takeBrowserFlow } from "./flows.js";
import type { AuthSettings } from "./settings.js";
import { loadOpenidClient } from "./socialOAuth.js";

/**
 * OpenID Connect (Zulip's GenericOpenIdConnectBackend), any number of providers, with
 * openid-client: the provider's configuration from its discovery document (read at the first
 * sign-in, kept while the process runs; a failure is not kept, so the next sign-in tries again),
 * the authorization code flow with PKCE (S256), `state` (the flow's id, flows.ts) and a nonce,
 * and the ID token checked by the library (signature against the provider's keys, issuer,
 * audience, expiry, nonce). The email and name come from the ID token's claims, else from the
 * userinfo endpoint; the email must be marked verified unless the provider's
 * `accept_unverified_email` says otherwise.
 *
 * The first provider has Zulip's entry (`oidc:oidc`, /accounts/login/social/oidc), which Zulip's
 * apps know; the others are `oidc:<name>` at /accounts/login/social/oidc/<name>. All come back
 * to /complete/oidc/.
 */

type OidcProvider = AuthSettings["oidc"][number];

const KEY = "oidc";
const CALLBACK_PATH = "/complete/oidc/";

/** Discovered configurations by issuer and client, shared by the server's requests. */
const discovered = new Map<string, Promise<Configuration>>();

async function discovery(provider: OidcProvider): Promise<Configuration> {
  const client = await loadOpenidClient();
  const issuer = new URL(provider.issuer);
  // An http:// issuer is the operator's explicit choice (a provider on a private network, tests).
  const options = issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : undefined;
  const config = await client.discovery(issuer, provider.client_id, provider.client_secret, undefined, options);
  // The library trusts an ID token that comes straight from the token endpoint without its
  // signature (OpenID Connect Core 3.1.3.7 allows it over TLS); Parley checks it against the
  // provider's keys anyway, so that a token the provider did not sign is refused whatever
  // the transport.
  client.enableNonRepudiationChecks(config);
  return config;
}

function discover(provider: OidcProvider): Promise<Configuration> {
  const cacheKey = `${provider.issuer} ${provider.client_id}`;
  let found = discovered.get(cacheKey);
  if (!found) {
    found = discovery(provider);
    discovered.set(cacheKey, found);
    found.catch(() => discovered.delete(cacheKey));
  }
  return found;
}

function providerEntry(provider: OidcProvider, first: boolean): ExternalEntry {
  return {
    name: first ? "oidc:oidc" : `oidc:${provider.name}`,
    display_name: provider.display_name ?? "OIDC",
    display_icon: provider.display_icon ?? null,
    path: first ? KEY : `${KEY}/${provider.name}`,
  };
}

function providerFor(settings: AuthSettings, idp: string | undefined): OidcProvider | undefined {
  return idp === undefined ? settings.oidc[0] : settings.oidc.slice(1).find((p) => p.name === idp);
}

/** The callback on the URL of the organization the sign-in started at: the browser comes back to the same host. */
async function redirectUri(ctx: AppContext, request: FastifyRequest): Promise<string> {
  return `${(await urlOfRequest(ctx, request)).replace(/\/+$/, "")}${CALLBACK_PATH}`;
}

function unreachable(ctx: AppContext, reply: FastifyReply, provider: OidcProvider, error: unknown): FastifyReply {
  ctx.log.warn({ err: error, issuer: provider.issuer }, "OpenID Connect discovery failed");
  const name = provider.display_name ?? provider.name;
  return refusal(reply, 502, "Sign-in unavailable", `Parley cannot reach ${name} right now. Try again later, or ask the server's administrator.`);
}

async function begin(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, intent: LoginIntent, idp: string | undefined): Promise<FastifyReply> {
  const provider = providerFor(ctx.config.auth, idp);
  if (!provider) return refusal(reply, 404, "Not available", "This server does not offer that way of signing in.");
  let config: Configuration;
  try {
    config = await discover(provider);
  } catch (error) {
    return unreachable(ctx, reply, provider, error);
  }
  const client = await loadOpenidClient();
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = await saveFlow(ctx, KEY, { ...intent, extra: { provider: provider.name, verifier, nonce } });
  bindFlowToBrowser(ctx, reply, KEY, state);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: await redirectUri(ctx, request),
    scope: provider.scopes.join(" "),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return reply.redirect(url.href, 302);
}

/** The person's email, whether the provider marks it verified, and their name, from ID-token claims or userinfo. */
interface Claims {
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  given_name?: unknown;
  family_name?: unknown;
}

function fullNameOf(claims: Claims): string | null {
  if (typeof claims.name === "string" && claims.name.trim() !== "") return claims.name.trim();
  const parts = [claims.given_name, claims.family_name].filter((p): p is string => typeof p === "string" && p.trim() !== "");
  return parts.length > 0 ? parts.join(" ") : null;
}

async function complete(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query as Record<string, unknown>;
  const intent = await takeBrowserFlow(ctx, request, reply, KEY, KEY, query.state);
  if (!intent)
    return refusal(reply, 400, "Sign-in failed", "This sign-in attempt is unknown, has expired or was already used. Start again from the login page.");
  const provider = ctx.config.auth.oidc.find((p) => p.name === intent.extra.provider);
  if (!provider) return refusal(reply, 400, "Sign-in failed", "This server no longer offers that way of signing in.");
  if (typeof query.error === "string") {
    if (query.error === "access_denied") return reply.redirect("/login/", 302);
    return refusal(reply, 403, "Sign-in failed", `The identity provider answered: ${query.error}.`);
  }
  let config: Configuration;
  try {
    config = await discover(provider);
  } catch (error) {
    return unreachable(ctx, reply, provider, error);
  }
  const client = await loadOpenidClient();
  let claims: Claims;
  try {
    // The redirect URI the token request names must be the one the authorization request named.
    const currentUrl = new URL(await redirectUri(ctx, request));
    currentUrl.search = new URL(request.url, "http://localhost").search;
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: intent.extra.verifier,
      expectedState: query.state as string,
      expectedNonce: intent.extra.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    claims = idToken as Claims;
    if (claims.email === undefined || fullNameOf(claims) === null) {
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { ...userinfo, ...Object.fromEntries(Object.entries(idToken).filter(([, v]) => v !== undefined)) };
    }
  } catch (error) {
    ctx.log.info({ err: error, issuer: provider.issuer }, "OpenID Connect sign-in refused");
    return refusal(reply, 403, "Sign-in failed", "The identity provider's answer could not be verified. Start again from the login page.");
  }
  if (typeof claims.email !== "string" || claims.email === "")
    return refusal(reply, 403, "Sign-in failed", "The identity provider did not give an email address.");
  if (claims.email_verified !== true && !provider.accept_unverified_email)
    return refusal(reply, 403, "Email not verified", `The identity provider has not verified ${claims.email}.`);
  return finishExternalLogin(ctx, request, reply, intent, { method: "OpenID Connect", email: claims.email, fullName: fullNameOf(claims) });
}

export const oidcBackend: ExternalBackend = {
  method: "OpenID Connect",
  key: KEY,
  entries: (settings) => settings.oidc.map((provider, i) => providerEntry(provider, i === 0)),
  begin,
  mount(app: FastifyInstance, ctx: AppContext) {
    app.get(CALLBACK_PATH, (request, reply) => complete(ctx, request, reply));
  },
};
