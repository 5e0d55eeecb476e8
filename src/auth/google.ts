import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Configuration } from "openid-client";
import type { AppContext } from "../appContext.js";
import { ICON_PATH, mountProviderIcon } from "./providerIcons.js";
import { type ExternalBackend, finishExternalLogin, refusal } from "./external.js";
import type { AuthSettings } from "./settings.js";
import { discoveryOptions, loadOpenidClient, notOffered, type OAuthProvider, sendToProvider, takeProviderAnswer, withTransportPolicy } from "./socialOAuth.js";

/**
 * Sign-in with Google (Zulip's GoogleAuthBackend): OpenID Connect against Google's issuer,
 * discovered once and kept; openid-client checks the ID token (signature, issuer, audience,
 * expiry, nonce). Google vouches for the address only with `email_verified` true.
 */

type GoogleSettings = NonNullable<AuthSettings["google"]>;

const KEY = "google";

/** Discovered configurations by issuer and client; a failed discovery is forgotten, to be tried again. */
const discovered = new Map<string, Promise<Configuration>>();

async function discovery(settings: GoogleSettings): Promise<Configuration> {
  const client = await loadOpenidClient();
  const found = await client.discovery(
    new URL(settings.issuer),
    settings.client_id,
    settings.client_secret,
    undefined,
    await discoveryOptions(settings.issuer),
  );
  return withTransportPolicy(found, settings.issuer);
}

function discover(settings: GoogleSettings): Promise<Configuration> {
  const cacheKey = JSON.stringify([settings.issuer, settings.client_id, settings.client_secret]);
  let config = discovered.get(cacheKey);
  if (!config) {
    config = discovery(settings);
    discovered.set(cacheKey, config);
    config.catch(() => discovered.delete(cacheKey));
  }
  return config;
}

function provider(settings: GoogleSettings): OAuthProvider {
  return { key: KEY, title: "Google", scopes: ["openid", "email", "profile"], openid: true, configuration: () => discover(settings) };
}

async function complete(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const settings = ctx.config.auth.google;
  if (!settings) return notOffered(reply);
  const answer = await takeProviderAnswer(ctx, request, reply, provider(settings));
  if (!("tokens" in answer)) return answer;
  const claims = answer.tokens.claims();
  const email = typeof claims?.email === "string" ? claims.email : "";
  // Google has sent the flag as a string in some tokens.
  const verified = claims?.email_verified === true || claims?.email_verified === "true";
  if (email === "" || !verified) {
    return refusal(reply, 403, "No verified email", "Google has not verified the email address of your account, so it cannot sign you in here.");
  }
  const given = typeof claims?.given_name === "string" ? claims.given_name : "";
  const family = typeof claims?.family_name === "string" ? claims.family_name : "";
  const fullName = (typeof claims?.name === "string" ? claims.name.trim() : "") || `${given} ${family}`.trim() || null;
  return finishExternalLogin(ctx, request, reply, { flow: answer.intent.flow, signup: answer.intent.signup, extra: {} }, { method: "Google", email, fullName });
}

export const googleBackend: ExternalBackend = {
  method: "Google",
  key: KEY,
  entries: (settings) =>
    settings.google
      ? [
          {
            name: KEY,
            display_name: settings.google.display_name ?? "Google",
            display_icon: settings.google.display_icon ?? ICON_PATH + "googl_e-icon.png",
            path: KEY,
          },
        ]
      : [],
  begin: async (ctx, request, reply, intent) =>
    ctx.config.auth.google ? sendToProvider(ctx, request, reply, provider(ctx.config.auth.google), intent) : notOffered(reply),
  mount(app: FastifyInstance, ctx: AppContext) {
    mountProviderIcon(app, "googl_e-icon.png");
    app.get("/complete/google/", (request, reply) => complete(ctx, request, reply));
  },
};
