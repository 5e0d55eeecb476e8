import type { FastifyReply, FastifyRequest } from "fastify";
import { urlOfRequest } from "../lib/realms.js";
import type { authorizationCodeGrant, Configuration, DiscoveryRequestOptions } from "openid-client";
import type { AppContext } from "../appContext.js";
import { lazy } from "../util/lazy.js";
import { refusal } from "./external.js";
import { bindFlowToBrowser, saveFlow, takeBrowserFlow, type LoginIntent } from "./flows.js";

/**
 * The OAuth 2 authorization-code round trip that GitHub, GitLab and Google sign-in share
 * (openid-client does the protocol): `sendToProvider` saves the flow, with a PKCE verifier (and a
 * nonce for OpenID Connect), and redirects the browser to the provider with the flow id as
 * `state`; `takeProviderAnswer` checks the browser's return to /complete/<key>/ and trades the
 * code for tokens.
 *
 * The flow id also goes into a cookie for /complete/<key>/, and the return must bring the same:
 * the answer to a flow started in another browser (a link an attacker sends after starting a
 * sign-in with their own account) is refused, as python-social-auth keeps `state` in the session.
 */

/** openid-client, loaded at the first sign-in through a provider (here and in oidc.ts). */
export const loadOpenidClient = lazy(() => import("openid-client"));

/** Seconds a request to a provider may take. */
const PROVIDER_TIMEOUT_SECONDS = 10;

export interface OAuthProvider {
  /** The backend's key: /accounts/login/social/<key>, /complete/<key>/. */
  key: string;
  /** What people call the provider, in the pages' words ("GitHub"). */
  title: string;
  scopes: string[];
  /** OpenID Connect: a nonce goes out and the ID token must come back with it. */
  openid: boolean;
  configuration(ctx: AppContext): Promise<Configuration>;
}

/** A base URL that paths are relative to: a provider may live under a path (https://example.com/gitlab). */
export function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

/** An openid-client configuration for a provider that is not discovered (GitHub, GitLab); endpoints relative to base. */
export async function oauthConfiguration(
  endpoints: { base: string; authorize: string; token: string },
  clientId: string,
  clientSecret: string,
): Promise<Configuration> {
  const client = await loadOpenidClient();
  const config = new client.Configuration(
    {
      issuer: endpoints.base,
      authorization_endpoint: new URL(endpoints.authorize, withSlash(endpoints.base)).href,
      token_endpoint: new URL(endpoints.token, withSlash(endpoints.base)).href,
    },
    clientId,
    clientSecret,
  );
  return withTransportPolicy(config, endpoints.base);
}

/**
 * A time limit on every request to the provider; plain http only where the operator configured
 * an http:// URL (a provider on the same host, tests). openid-client refuses it otherwise.
 */
export async function withTransportPolicy(config: Configuration, base: string): Promise<Configuration> {
  config.timeout = PROVIDER_TIMEOUT_SECONDS;
  if (base.startsWith("http:")) (await loadOpenidClient()).allowInsecureRequests(config);
  return config;
}

/** The same policy for the discovery request of an OpenID provider. */
export async function discoveryOptions(base: string): Promise<DiscoveryRequestOptions> {
  const client = await loadOpenidClient();
  return { timeout: PROVIDER_TIMEOUT_SECONDS, ...(base.startsWith("http:") ? { execute: [client.allowInsecureRequests] } : {}) };
}

/**
 * /complete/<key>/ on the URL of the organization the sign-in started at (`base`, lib/realms.ts
 * urlOfRequest): where the provider sends the browser back, to the same host.
 */
export function callbackUrl(base: string, key: string): string {
  return new URL(`/complete/${key}/`, base).href;
}

/** The provider's configuration, or the "unreachable" page (logged) when it cannot be had. */
async function configurationOrPage(ctx: AppContext, reply: FastifyReply, provider: OAuthProvider): Promise<Configuration | FastifyReply> {
  try {
    return await provider.configuration(ctx);
  } catch (error) {
    ctx.log.warn({ err: error, provider: provider.key }, "identity provider unreachable");
    return unreachable(reply, provider);
  }
}

export async function sendToProvider(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  provider: OAuthProvider,
  intent: LoginIntent,
): Promise<FastifyReply> {
  const client = await loadOpenidClient();
  const config = await configurationOrPage(ctx, reply, provider);
  if (!(config instanceof client.Configuration)) return config;
  const verifier = client.randomPKCECodeVerifier();
  const nonce = provider.openid ? client.randomNonce() : undefined;
  const flowId = await saveFlow(ctx, provider.key, { ...intent, extra: { ...intent.extra, verifier, ...(nonce ? { nonce } : {}) } });
  bindFlowToBrowser(ctx, reply, provider.key, flowId);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(await urlOfRequest(ctx, request), provider.key),
    scope: provider.scopes.join(" "),
    state: flowId,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...(nonce ? { nonce } : {}),
  });
  return reply.redirect(url.href, 302);
}

export type ProviderAnswer = { intent: LoginIntent; tokens: Awaited<ReturnType<typeof authorizationCodeGrant>>; config: Configuration };

/**
 * The browser's return to /complete/<key>/: the provider's error, a state this browser did not
 * start (or already used), and a code the provider does not honour each end in a page saying so;
 * otherwise the tokens and the flow's intent.
 */
export async function takeProviderAnswer(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  provider: OAuthProvider,
): Promise<ProviderAnswer | FastifyReply> {
  const query = request.query as Record<string, unknown>;
  const intent = await takeBrowserFlow(ctx, request, reply, provider.key, provider.key, query.state);
  if (typeof query.error === "string") {
    const said = query.error === "access_denied" ? "the request was denied" : query.error;
    return refusal(reply, 403, "Sign-in cancelled", `${provider.title} did not sign you in (${said}). Nothing was changed; you can try again.`);
  }
  if (!intent)
    return refusal(reply, 400, "Sign-in expired", `This ${provider.title} sign-in is unknown, was already used, or has expired. Please start again.`);
  const client = await loadOpenidClient();
  const config = await configurationOrPage(ctx, reply, provider);
  if (!(config instanceof client.Configuration)) return config;
  const current = new URL(request.url, callbackUrl(await urlOfRequest(ctx, request), provider.key));
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      expectedState: query.state as string,
      pkceCodeVerifier: intent.extra.verifier,
      ...(provider.openid ? { expectedNonce: intent.extra.nonce } : {}),
    });
    return { intent, tokens, config };
  } catch (error) {
    ctx.log.info({ err: error, provider: provider.key }, "identity provider answer refused");
    return refusal(reply, 403, "Sign-in failed", `${provider.title} did not confirm who you are. Please start again.`);
  }
}

/** A GET of the provider's API with the person's access token: its status and JSON (status 0: no answer). */
export async function providerApiGet(answer: ProviderAnswer, url: string): Promise<{ status: number; body: unknown }> {
  const client = await loadOpenidClient();
  let res: Response;
  let text: string;
  try {
    res = await client.fetchProtectedResource(
      answer.config,
      answer.tokens.access_token,
      new URL(url),
      "GET",
      undefined,
      new Headers({ Accept: "application/json", "User-Agent": "Parley" }),
    );
    text = await res.text();
  } catch {
    return { status: 0, body: null };
  }
  try {
    return { status: res.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
  } catch {
    return { status: res.status, body: null };
  }
}

export function unreachable(reply: FastifyReply, provider: OAuthProvider): FastifyReply {
  return refusal(reply, 502, "Sign-in unavailable", `${provider.title} could not be reached. Please try again later.`);
}

/** A provider's route on a server that does not offer it. */
export function notOffered(reply: FastifyReply): FastifyReply {
  return refusal(reply, 404, "Not available", "This server does not offer that way of signing in.");
}
