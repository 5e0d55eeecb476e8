import { randomBytes } from "node:crypto";
import { urlOfRequest } from "../lib/realms.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Profile } from "@node-saml/node-saml";
import type { AppContext } from "../appContext.js";
import { samlAssertionStore } from "../store/samlAssertions.js";
import { finishExternalLogin, refusal, type ExternalBackend, type ExternalEntry } from "./external.js";
import { saveFlow, takeFlow, type LoginIntent } from "./flows.js";
import { AssertionRefused, checkBinding, identityOf, replayKey } from "./samlAssertion.js";
import {
  ACS_PATH,
  CLOCK_SKEW_MS,
  loadNodeSaml,
  METADATA_PATH,
  REQUEST_LIFETIME_MS,
  SamlConfigError,
  samlForRequest,
  samlForResponse,
  spMetadata,
  spUrls,
  type SamlIdp,
  type SamlSettings,
} from "./samlConfig.js";
import type { AuthSettings } from "./settings.js";

/**
 * SAML 2.0 sign-in, as Zulip's SAMLAuthBackend: one login button per configured IdP
 * (`saml:<idp>`), an AuthnRequest sent by the HTTP-Redirect binding with the flow id as
 * RelayState, and the IdP's Response posted back to /complete/saml/. That POST comes from the
 * IdP's page, cross-site, so the browser sends no SameSite=Lax cookie with it: the flow is
 * found by RelayState alone, and the Response must answer the request that flow sent.
 *
 * Accepted only: an assertion signed by one of the IdP's certificates, issued by that IdP, for
 * this SP (audience), within its time window, answering our request (InResponseTo) at our URL
 * (Recipient), and never accepted before (saml_assertions).
 */

const BACKEND = "saml";

function entries(settings: AuthSettings): ExternalEntry[] {
  return (settings.saml?.idps ?? []).map((idp) => ({
    name: `saml:${idp.name}`,
    display_name: idp.display_name ?? "SAML",
    // Zulip has no default logo for SAML.
    display_icon: idp.display_icon ?? null,
    path: `saml/${idp.name}`,
  }));
}

function failed(reply: FastifyReply, status: number, message: string): FastifyReply {
  return refusal(reply, status, "SAML sign-in failed", message);
}

function misconfigured(ctx: AppContext, reply: FastifyReply, error: SamlConfigError): FastifyReply {
  ctx.log.error({ err: error }, "SAML is misconfigured");
  return refusal(reply, 503, "SAML sign-in unavailable", "This server's SAML configuration cannot be used. Its administrator has been told.");
}

async function begin(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, intent: LoginIntent, idpName: string | undefined): Promise<FastifyReply> {
  const settings = ctx.config.auth.saml;
  const idp = settings?.idps.find((i) => i.name === idpName);
  if (!settings || !idp) return refusal(reply, 404, "Not available", "This server does not offer that way of signing in.");
  // An NCName (xsd:ID): not starting with a digit.
  const requestId = `_${randomBytes(20).toString("hex")}`;
  let saml;
  try {
    saml = await samlForRequest(ctx.config, settings, idp, requestId, await urlOfRequest(ctx, request));
  } catch (error) {
    if (error instanceof SamlConfigError) return misconfigured(ctx, reply, error);
    throw error;
  }
  const relayState = await saveFlow(ctx, BACKEND, {
    ...intent,
    extra: { ...intent.extra, idp: idp.name, request_id: requestId, issued_at: new Date().toISOString() },
  });
  return reply.redirect(await saml.getAuthorizeUrlAsync(relayState, undefined, {}), 302);
}

/** The Response checked against the flow's request; a refusal's reason (for the log) otherwise. */
async function verifiedProfile(
  ctx: AppContext,
  base: string,
  settings: SamlSettings,
  intent: LoginIntent,
  samlResponse: string,
): Promise<{ profile: Profile; idp: SamlIdp } | string> {
  const idp = settings.idps.find((i) => i.name === intent.extra.idp);
  const requestId = intent.extra.request_id;
  const issuedAt = intent.extra.issued_at;
  if (!idp || !requestId || !issuedAt) return `the IdP ${String(intent.extra.idp)} is no longer configured`;
  let profile: Profile | null;
  try {
    const saml = await samlForResponse(ctx.config, settings, idp, requestId, issuedAt, base);
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    const { SamlStatusError } = await loadNodeSaml();
    if (error instanceof SamlConfigError || error instanceof SamlStatusError) throw error;
    return error instanceof Error ? error.message : String(error);
  }
  if (!profile) return "the Response carries no assertion";
  try {
    checkBinding(profile, idp, requestId, spUrls(ctx.config, settings, base).acsUrl);
    const now = Date.now();
    const { id, expiresAt } = replayKey(profile, now, REQUEST_LIFETIME_MS + CLOCK_SKEW_MS);
    if (!(await samlAssertionStore.remember(ctx.db.kysely, id, expiresAt, Math.floor(now / 1000)))) return "the assertion was accepted before (replay)";
  } catch (error) {
    if (error instanceof AssertionRefused) return error.message;
    throw error;
  }
  return { profile, idp };
}

/** A field of the posted form: urlencoded (what IdPs send) or multipart (@fastify/multipart's `{ value }`). */
function formField(request: FastifyRequest, name: string): unknown {
  const value = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "object" && value !== null && "value" in value ? value.value : value;
}

/** POST /complete/saml/: the IdP's Response (HTTP-POST binding). */
async function complete(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const settings = ctx.config.auth.saml;
  if (!settings) return refusal(reply, 404, "Not available", "This server does not offer SAML sign-in.");
  const samlResponse = formField(request, "SAMLResponse");
  const relayState = formField(request, "RelayState");
  if (typeof samlResponse !== "string" || samlResponse === "") {
    request.log.info("/complete/saml/: no SAMLResponse");
    return failed(reply, 400, "The identity provider's answer is missing.");
  }
  // Parley starts every SAML sign-in (no IdP-initiated sign-in): the flow is the proof that
  // this browser asked, and it can be taken once.
  const intent = await takeFlow(ctx, BACKEND, relayState);
  if (!intent) {
    request.log.info("/complete/saml/: unknown, used or expired RelayState");
    return failed(reply, 400, "This sign-in has expired or was already used. Please sign in again.");
  }
  let verified: { profile: Profile; idp: SamlIdp } | string;
  try {
    verified = await verifiedProfile(ctx, await urlOfRequest(ctx, request), settings, intent, samlResponse);
  } catch (error) {
    if (error instanceof SamlConfigError) return misconfigured(ctx, reply, error);
    const { SamlStatusError } = await loadNodeSaml();
    if (!(error instanceof SamlStatusError)) throw error;
    // The IdP answered that it did not sign the person in (cancelled, refused, no such user).
    request.log.info({ idp: intent.extra.idp }, `/complete/saml/: ${error.message}`);
    return failed(reply, 403, "The identity provider did not sign you in.");
  }
  if (typeof verified === "string") {
    request.log.warn({ idp: intent.extra.idp }, `/complete/saml/: Response refused: ${verified}`);
    return failed(reply, 403, "The identity provider's answer could not be verified. Please sign in again.");
  }
  const { email, fullName } = identityOf(verified.profile, verified.idp);
  if (!email) {
    request.log.warn({ idp: intent.extra.idp }, "/complete/saml/: the assertion names no email address");
    return failed(reply, 403, "The identity provider did not give an email address for this account.");
  }
  return finishExternalLogin(ctx, request, reply, intent, { method: "SAML", email, fullName });
}

/** GET /saml/metadata.xml: this SP's metadata, to register Parley with an IdP. */
async function metadata(ctx: AppContext, reply: FastifyReply): Promise<FastifyReply> {
  const settings = ctx.config.auth.saml;
  if (!settings) return refusal(reply, 404, "Not available", "This server does not offer SAML sign-in.");
  let xml: string;
  try {
    xml = await spMetadata(ctx.config, settings);
  } catch (error) {
    if (error instanceof SamlConfigError) return misconfigured(ctx, reply, error);
    throw error;
  }
  return reply.type("text/xml; charset=utf-8").header("Cache-Control", "no-cache").send(xml);
}

export const samlBackend: ExternalBackend = {
  method: "SAML",
  key: BACKEND,
  entries,
  begin,
  mount(app: FastifyInstance, ctx: AppContext): void {
    app.post(ACS_PATH, (request, reply) => complete(ctx, request, reply));
    app.get(METADATA_PATH, async (_request, reply) => metadata(ctx, reply));
  },
};
