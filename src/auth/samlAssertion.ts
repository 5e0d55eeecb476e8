import { createHash } from "node:crypto";
import type { Profile } from "@node-saml/node-saml";
import * as z from "zod";
import type { SamlIdp } from "./samlConfig.js";

/**
 * What Parley reads from an assertion @node-saml/node-saml has verified (the IdP's signature
 * over it, its time window, its audience, the Response's InResponseTo), and the checks that
 * library leaves to its caller: the assertion's own issuer, and the bearer confirmation that
 * binds it to our request and our URL (SAML 2.0 Web Browser SSO profile, 4.1.4.2-3).
 */

const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

/** An assertion that is signed and timely but not for this sign-in. */
export class AssertionRefused extends Error {}

/** node-saml's xml2js form of the verified assertion: elements are arrays, `$` attributes, `_` text. */
interface XmlNode {
  $?: Record<string, string>;
  _?: string;
  [child: string]: unknown;
}

function children(node: XmlNode | undefined, name: string): XmlNode[] {
  const list = node?.[name];
  return Array.isArray(list) ? (list as XmlNode[]) : [];
}

function verifiedAssertion(profile: Profile): XmlNode {
  const parsed = profile.getAssertion?.() as { Assertion?: XmlNode } | undefined;
  if (!parsed?.Assertion) throw new AssertionRefused("the assertion could not be read");
  return parsed.Assertion;
}

/**
 * Checks what node-saml does not: the assertion was issued by the IdP the flow went to, and it
 * has a bearer confirmation naming our request and our assertion consumer service.
 */
export function checkBinding(profile: Profile, idp: SamlIdp, requestId: string, acsUrl: string): void {
  if (profile.issuer !== idp.entity_id) throw new AssertionRefused(`the assertion was issued by ${String(profile.issuer)}, not by ${idp.entity_id}`);
  const assertion = verifiedAssertion(profile);
  const confirmations = children(children(assertion, "Subject")[0], "SubjectConfirmation").filter((c) => c.$?.Method === BEARER);
  const data = confirmations.flatMap((c) => children(c, "SubjectConfirmationData")).map((d) => d.$ ?? {});
  if (!data.some((d) => d.InResponseTo === requestId))
    throw new AssertionRefused("the assertion does not answer our request (SubjectConfirmationData InResponseTo)");
  if (!data.some((d) => d.InResponseTo === requestId && d.Recipient === acsUrl))
    throw new AssertionRefused(`the assertion is not addressed to ${acsUrl} (SubjectConfirmationData Recipient)`);
}

/**
 * The assertion's identity for the replay store (a digest of issuer and ID), and until when it
 * must be remembered: its latest NotOnOrAfter, at least `minimum` (while the request it answers
 * is answerable) and at most a day.
 */
export function replayKey(profile: Profile, nowMs: number, minimumMs: number): { id: string; expiresAt: number } {
  const assertion = verifiedAssertion(profile);
  const assertionId = assertion.$?.ID;
  if (!assertionId) throw new AssertionRefused("the assertion has no ID");
  const subject = children(assertion, "Subject")[0];
  const limits = [
    ...children(assertion, "Conditions").map((c) => c.$?.NotOnOrAfter),
    ...children(subject, "SubjectConfirmation").flatMap((c) => children(c, "SubjectConfirmationData").map((d) => d.$?.NotOnOrAfter)),
  ]
    .map((value) => (value === undefined ? NaN : Date.parse(value)))
    .filter((ms) => Number.isFinite(ms));
  const until = Math.min(Math.max(nowMs + minimumMs, ...limits), nowMs + 24 * 3600 * 1000);
  const id = createHash("sha256")
    .update(`${String(profile.issuer)}\n${assertionId}`)
    .digest("hex");
  return { id, expiresAt: Math.ceil(until / 1000) };
}

/** The first non-empty text of an attribute (a single value or a list). */
function text(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(text).find((v) => v !== undefined);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

const isEmail = (value: string | undefined): value is string => value !== undefined && z.email().safeParse(value).success;

/**
 * The email and name the IdP states: `attr_email` (else, when the assertion lacks it, the NameID),
 * an email address, `attr_full_name` (else `attr_first_name` and `attr_last_name`). Null email: the
 * assertion names nobody Parley can sign in.
 */
export function identityOf(profile: Profile, idp: SamlIdp): { email: string | null; fullName: string | null } {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const attribute = (name: string | undefined) => (name === undefined ? undefined : text(attributes[name]));
  const stated = attribute(idp.attr_email) ?? text(profile.nameID);
  const email = isEmail(stated) ? stated : null;
  const parts = [attribute(idp.attr_first_name), attribute(idp.attr_last_name)].filter((p) => p !== undefined);
  const fullName = attribute(idp.attr_full_name) ?? (parts.length > 0 ? parts.join(" ") : null);
  return { email, fullName };
}
