import fs from "node:fs";
import type { CacheProvider, SAML, SamlConfig } from "@node-saml/node-saml";
import type { Config } from "../config.js";
import { lazy } from "../util/lazy.js";
import type { AuthSettings } from "./settings.js";

/**
 * This server as a SAML service provider (SP), in the terms of @node-saml/node-saml: its
 * entityID, its assertion consumer service (Zulip's /complete/saml/), its keys, and one IdP's
 * certificates. The PEM files the settings name are read once, on first use.
 */

/** @node-saml/node-saml and the XML packages under it, loaded at the first SAML request: most servers never make one. */
export const loadNodeSaml = lazy(() => import("@node-saml/node-saml"));

export type SamlSettings = NonNullable<AuthSettings["saml"]>;
export type SamlIdp = SamlSettings["idps"][number];

/** Zulip's URLs: the assertion consumer service and the SP metadata. */
export const ACS_PATH = "/complete/saml/";
export const METADATA_PATH = "/saml/metadata.xml";

/**
 * How far the IdP's clock may be from ours when NotBefore and NotOnOrAfter are checked. Zulip
 * (python3-saml) allows 300 s; two minutes covers NTP-synchronised machines while keeping the
 * window in which a stolen assertion works short.
 */
export const CLOCK_SKEW_MS = 2 * 60 * 1000;

/** How long a request id is answerable: as long as the flow that carries it (src/auth/flows.ts). */
export const REQUEST_LIFETIME_MS = 15 * 60 * 1000;

/** NameIDPolicy: any format; the email comes from an attribute or an email-shaped NameID. */
const NAME_ID_UNSPECIFIED = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified";

/** A file the settings name cannot be read: the server is misconfigured. */
export class SamlConfigError extends Error {}

interface SpKeys {
  privateKey: string;
  certificate: string;
}

interface Loaded {
  keys: SpKeys | null;
  idpCerts: Map<string, string[]>;
}

const loaded = new WeakMap<SamlSettings, Loaded>();

function readPem(file: string, what: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new SamlConfigError(`cannot read ${what} ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function load(settings: SamlSettings): Loaded {
  let files = loaded.get(settings);
  if (files) return files;
  const { sp_private_key_file: keyFile, sp_certificate_file: certFile } = settings;
  files = {
    keys: keyFile && certFile ? { privateKey: readPem(keyFile, "the SP private key"), certificate: readPem(certFile, "the SP certificate") } : null,
    idpCerts: new Map(settings.idps.map((idp) => [idp.name, idp.x509cert_files.map((file) => readPem(file, `the certificate of IdP ${idp.name}`))])),
  };
  loaded.set(settings, files);
  return files;
}

/**
 * This server's entityID and assertion consumer service URL. The ACS is on `base`, the URL of the
 * organization the sign-in started at (lib/realms.ts urlOfRequest), so the IdP posts back to the
 * same host; the server's external URL by default (the metadata).
 */
export function spUrls(config: Config, settings: SamlSettings, base: string = config.externalUrl): { entityId: string; acsUrl: string } {
  return { entityId: settings.sp_entity_id ?? `${config.externalUrl}${METADATA_PATH}`, acsUrl: `${base}${ACS_PATH}` };
}

/** What the SP sends and checks, common to every IdP (and the metadata). */
function spOptions(config: Config, settings: SamlSettings, base?: string): Omit<SamlConfig, "idpCert"> {
  const { entityId, acsUrl } = spUrls(config, settings, base);
  const { keys } = load(settings);
  return {
    issuer: entityId,
    audience: entityId,
    callbackUrl: acsUrl,
    identifierFormat: NAME_ID_UNSPECIFIED,
    // A requested AuthnContext (node-saml: PasswordProtectedTransport, exact) makes IdPs that
    // signed the person in otherwise (Kerberos, a security key) refuse; the IdP decides.
    disableRequestedAuthnContext: true,
    // The assertion itself must carry the IdP's signature; a signature over the Response alone
    // is not asked for (many IdPs sign only the assertion) and is not enough.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS,
    signatureAlgorithm: "sha256",
    digestAlgorithm: "sha256",
    ...(keys ? { privateKey: keys.privateKey, publicCert: keys.certificate, decryptionPvk: keys.privateKey, signMetadata: true } : {}),
  };
}

/** A request id node-saml should accept as answered: only the one the flow started with. */
function answering(requestId: string, issuedAt: string): CacheProvider {
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === requestId ? issuedAt : null),
    removeAsync: async () => null,
  };
}

/** The SP for an IdP, to send an AuthnRequest with the given id. */
export async function samlForRequest(config: Config, settings: SamlSettings, idp: SamlIdp, requestId: string, base: string): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await loadNodeSaml();
  return new SAML({
    ...spOptions(config, settings, base),
    idpCert: load(settings).idpCerts.get(idp.name) ?? [],
    entryPoint: idp.url,
    idpIssuer: idp.entity_id,
    generateUniqueId: () => requestId,
    validateInResponseTo: ValidateInResponseTo.never,
  });
}

/** The SP for an IdP, to check a Response that must answer the request with the given id. */
export async function samlForResponse(config: Config, settings: SamlSettings, idp: SamlIdp, requestId: string, issuedAt: string, base: string): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await loadNodeSaml();
  return new SAML({
    ...spOptions(config, settings, base),
    idpCert: load(settings).idpCerts.get(idp.name) ?? [],
    entryPoint: idp.url,
    idpIssuer: idp.entity_id,
    validateInResponseTo: ValidateInResponseTo.always,
    cacheProvider: answering(requestId, issuedAt),
  });
}

/** The SP metadata (signed when the SP has keys), for the IdPs' administrators. */
export async function spMetadata(config: Config, settings: SamlSettings): Promise<string> {
  const { SAML } = await loadNodeSaml();
  const { keys } = load(settings);
  const saml = new SAML({ ...spOptions(config, settings), idpCert: "unused: metadata only" });
  return saml.generateServiceProviderMetadata(keys?.certificate ?? null, keys?.certificate ?? null);
}
