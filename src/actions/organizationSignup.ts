import { createHash } from "node:crypto";
import * as z from "zod";
import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import { apiKeysEqual, randomString } from "../lib/apiKeys.js";
import { passwordLengthAllowed } from "../lib/passwords.js";
import { isReservedSubdomain, REALM_NAME_MAX_LENGTH, SUBDOMAIN_MAX_LENGTH, subdomainProblem } from "../models/organizations.js";
import { SYSTEM_BOT_REALM, SYSTEM_BOTS } from "../models/systemBots.js";
import { confirmationStore } from "../store/confirmations.js";
import { realmStore } from "../store/realms.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { nowSeconds } from "../util/time.js";
import { ensureSystemBots } from "./onboarding.js";
import { doCreateOrganization, OrganizationExistsError } from "./organizations.js";
import { checkFullName } from "./users.js";
import { ApiError, badRequest } from "../lib/errors.js";

/**
 * Creating an organization from the sign-up page (Zulip's /new/, create_realm and the realm
 * creation part of accounts_register), when PARLEY_ORGANIZATION_SIGNUP is on:
 *
 * 1. An address typed on /new/ gets a one-time link /new/confirm/<key>/ (Zulip's
 *    Confirmation.REALM_CREATION), valid CONFIRMATION_SECONDS. Anyone may create an
 *    organization, also with an address that has accounts elsewhere, so the email always goes.
 * 2. The link's form names the organization and its subdomain and the owner's name and password;
 *    the owner's address is the confirmed one. Creating the organization uses the link.
 *
 * A confirmation row needs a realm and the organization does not exist yet: the row belongs to
 * the system bots' realm (created here if this is the server's first organization). Only the
 * key's SHA-256 is stored, as for password resets, so the table holds no working links.
 */
const ORGANIZATION_SIGNUP = "organization_signup";

/** Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS (1), which its realm creation links use. */
export const CONFIRMATION_SECONDS = 24 * 3600;

const KEY_LENGTH = 32; // [A-Za-z0-9]: about 190 bits
const KEY_FORMAT = /^[A-Za-z0-9]{32}$/;
const signupData = z.object({ email: z.string() });
const emailSchema = z.email();

/** Why a link cannot be used; the page shows the message and changes nothing. */
export class OrganizationSignupLinkError extends Error {
  constructor(readonly reason: "invalid" | "used" | "expired") {
    super(
      reason === "invalid"
        ? "This link is not valid. Check that you copied the whole link from the email."
        : reason === "used"
          ? "This link has already been used to create an organization. Log in to it, or ask for a new link to create another one."
          : "This link has expired: links to create an organization work for 24 hours. Ask for a new one.",
    );
  }
}

/** The address form's check (Zulip's RealmCreationForm): a valid address that no system bot uses. Returns it trimmed, or throws ApiError(400). */
export function checkSignupEmail(raw: string): string {
  const email = raw.trim();
  if (email === "") throw badRequest("Please enter your email address.");
  if (email.length > 254 || !emailSchema.safeParse(email).success) throw badRequest("Enter a valid email address.");
  if (SYSTEM_BOTS.some((bot) => bot.email.toLowerCase() === email.toLowerCase())) throw badRequest(`${email} is reserved for system bots`);
  return email;
}

/** Step 1, in the caller's transaction: a new link for `email` (checked by checkSignupEmail), emailed. */
export async function doRequestOrganizationSignup(tx: Tx, externalUrl: string, email: string): Promise<void> {
  await ensureSystemBots(tx);
  const owner = await realmStore.getByStringId(tx.q, SYSTEM_BOT_REALM);
  if (!owner) throw new Error("Internal error: the system bots' realm is missing");
  const key = randomString(KEY_LENGTH);
  const now = nowSeconds();
  await confirmationStore.insert(tx.q, {
    realm_id: owner.id,
    user_id: null,
    kind: ORGANIZATION_SIGNUP,
    confirmation_key: keyDigest(key),
    data: JSON.stringify({ email }),
    created_at: now,
    expires_at: now + CONFIRMATION_SECONDS,
  });
  const link = `${externalUrl.replace(/\/+$/, "")}/new/confirm/${key}/`;
  await queueEmail(tx, {
    to: email,
    subject: "Create your organization",
    text:
      `Hi there,\n\nSomeone (possibly you) asked to create a new organization on ${externalUrl} with this email address.\n\n` +
      `To choose its name and address and create your owner account, open this link within 24 hours; it works once:\n    <${link}>\n\n` +
      `If you did not ask for this, you can ignore this email.\n\nThanks,\nParley\n`,
    template: "organization_signup",
  });
}

/** What a usable link stands for: the confirmed address of the organization's owner. */
export interface OrganizationSignupLink {
  email: string;
  confirmationId: number;
}

/** The link of `key`, or OrganizationSignupLinkError. */
export async function usableOrganizationSignupLink(q: Executor, key: string): Promise<OrganizationSignupLink> {
  if (!KEY_FORMAT.test(key)) throw new OrganizationSignupLinkError("invalid");
  const digest = keyDigest(key);
  const confirmation = await confirmationStore.getByKey(q, ORGANIZATION_SIGNUP, digest);
  if (!confirmation || !apiKeysEqual(confirmation.confirmation_key, digest)) throw new OrganizationSignupLinkError("invalid");
  if (confirmation.used_at !== null) throw new OrganizationSignupLinkError("used");
  if (confirmation.expires_at < nowSeconds()) throw new OrganizationSignupLinkError("expired");
  const { email } = parseJsonColumn(signupData, confirmation.data, "confirmations.data (organization sign-up)");
  return { email, confirmationId: confirmation.id };
}

/** The creation form's fields as typed. */
export interface OrganizationForm {
  realm_name: string;
  realm_subdomain: string;
  full_name: string;
  password: string;
}

/** Each field's problem, in the words the form shows; empty when the form is good. */
export type OrganizationFormErrors = Partial<Record<keyof OrganizationForm, string>>;

/**
 * The form's checks (Zulip's RegistrationForm with realm_creation, check_subdomain_available):
 * every field's problem at once, so the form shows them all. `q` sees the organizations that
 * exist ("already in use").
 */
export async function organizationFormErrors(q: Executor, form: OrganizationForm, dev: boolean): Promise<OrganizationFormErrors> {
  const errors: OrganizationFormErrors = {};
  const name = form.realm_name.trim();
  if (name === "") errors.realm_name = "Enter a name for your organization.";
  else if ([...name].length > REALM_NAME_MAX_LENGTH) errors.realm_name = `The organization name can have at most ${REALM_NAME_MAX_LENGTH} characters.`;
  const subdomainError = await subdomainErrorOf(q, form.realm_subdomain);
  if (subdomainError !== undefined) errors.realm_subdomain = subdomainError;
  try {
    checkFullName(form.full_name);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    errors.full_name = error.message;
  }
  if (!passwordLengthAllowed(form.password, dev)) errors.password = "The password is too weak.";
  return errors;
}

/** Zulip's check_subdomain_available texts; the lengths are those of `parley create-organization`. */
async function subdomainErrorOf(q: Executor, subdomain: string): Promise<string | undefined> {
  if (subdomain === "") return "Choose a subdomain for your organization.";
  switch (subdomainProblem(subdomain)) {
    case "dash":
      return "Subdomain cannot start or end with a '-'.";
    case "characters":
      return "Subdomain can only have lowercase letters, numbers, and '-'s.";
    case "length":
      return subdomain.length > SUBDOMAIN_MAX_LENGTH
        ? `Subdomain can have at most ${SUBDOMAIN_MAX_LENGTH} characters.`
        : "Subdomain needs to have length 3 or greater.";
    case undefined:
      break;
  }
  if (await realmStore.getByStringId(q, subdomain)) return "Subdomain already in use. Please choose a different one.";
  if (isReservedSubdomain(subdomain)) return "Subdomain reserved. Please choose a different one.";
  return undefined;
}

/** The form was refused; `errors` says why, field by field. */
export class OrganizationFormError extends Error {
  constructor(readonly errors: OrganizationFormErrors) {
    super(Object.values(errors).join(" "));
  }
}

/**
 * Step 2, in the caller's transaction: checks the link and the form again (another request may
 * have taken the subdomain or used the link meanwhile), uses the link, and creates the
 * organization with its owner. `passwordHash` is hashPassword() of the form's password,
 * computed before the transaction.
 */
export async function doCreateOrganizationFromSignup(
  tx: Tx,
  key: string,
  form: OrganizationForm,
  passwordHash: string,
  dev: boolean,
): Promise<{ realm: Realm; owner: User }> {
  const link = await usableOrganizationSignupLink(tx.q, key);
  const errors = await organizationFormErrors(tx.q, form, dev);
  if (Object.keys(errors).length > 0) throw new OrganizationFormError(errors);
  if (!(await confirmationStore.markUsed(tx.q, link.confirmationId, nowSeconds()))) throw new OrganizationSignupLinkError("used");
  try {
    return await doCreateOrganization(tx, {
      string_id: form.realm_subdomain,
      name: form.realm_name.trim(),
      owner: { email: link.email, full_name: checkFullName(form.full_name), password_hash: passwordHash },
    });
  } catch (error) {
    if (error instanceof OrganizationExistsError)
      throw new OrganizationFormError({ realm_subdomain: "Subdomain already in use. Please choose a different one." });
    throw error;
  }
}

function keyDigest(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
