import * as z from "zod";
import { doCreateUser } from "../../actions/createUser.js";
import { emailValidationError, existingUserError } from "../../actions/invitations.js";
import { checkFullName, doChangeFullName, doChangeUserDeliveryEmail, doDeactivateUser, isLastOwner } from "../../actions/users.js";
import { type AppContext, transaction } from "../../appContext.js";
import type { Realm, User } from "../../db/schema.js";
import type { Tx } from "../../db/tx.js";
import { ApiError, AuthenticationFailedError, UserDeactivatedError } from "../../lib/errors.js";
import { realmSettings } from "../../models/realmSettings.js";
import { ldapAccountStore } from "../../store/ldapAccounts.js";
import { userStore } from "../../store/users.js";
import type { DirectoryPerson } from "./directory.js";
import { realmUrl } from "../../lib/realms.js";

/**
 * Parley's accounts as the directory says they should be (Zulip's ZulipLDAPAuthBackend and
 * ZulipLDAPUserPopulator): the account of a directory entry is the one linked to its DN at an
 * earlier sign-in (ldap_accounts), else the one with the entry's email address; its full name and
 * email are copied from the directory through the user actions (so clients get the events).
 */

/** Why a person the directory vouched for gets no account. */
export class NoLdapAccountError extends ApiError {
  constructor(message: string) {
    super(message, { code: "AUTHENTICATION_FAILED", status: 401 });
  }
}

const emailSchema = z.email();

/** What changed for one account. */
export interface AccountChanges {
  fullName?: { from: string; to: string };
  email?: { from: string; to: string };
  /** The directory's value that could not be copied, and why. */
  skipped: string[];
}

/**
 * The account a successful LDAP sign-in signs in to, brought up to date; a first sign-in creates
 * it when the organization lets people join without an invitation. A deactivated account is
 * refused (the password was right, so saying so tells nothing new).
 */
export async function accountForLdapLogin(ctx: AppContext, realm: Realm, person: DirectoryPerson): Promise<User> {
  return transaction(ctx, async (tx) => {
    const existing = await accountOf(tx, realm, person);
    if (existing) {
      if (existing.is_bot) throw new AuthenticationFailedError();
      if (!existing.is_active) throw new UserDeactivatedError();
      const changes = await applyDirectoryValues(tx, existing, person);
      for (const reason of changes.skipped) ctx.log.warn({ userId: existing.id, dn: person.dn }, `LDAP sign-in: ${reason}`);
      await ldapAccountStore.link(tx.q, realm.id, existing.id, person.dn);
      return (await userStore.getById(tx.q, existing.id)) ?? existing;
    }
    const user = await createAccount(tx, realm, person, realmUrl(ctx.config, realm));
    await ldapAccountStore.link(tx.q, realm.id, user.id, person.dn);
    return user;
  });
}

/** The account linked to the entry's DN, else the one with its email address. */
export async function accountOf(tx: Tx, realm: Realm, person: DirectoryPerson): Promise<User | undefined> {
  const linkedId = await ldapAccountStore.getUserIdByDn(tx.q, realm.id, person.dn);
  const linked = linkedId === undefined ? undefined : await userStore.getInRealm(tx.q, realm.id, linkedId);
  if (linked) return linked;
  return person.email === null ? undefined : userStore.getByEmail(tx.q, realm.id, person.email);
}

async function createAccount(tx: Tx, realm: Realm, person: DirectoryPerson, orgUrl: string): Promise<User> {
  const email = person.email;
  if (email === null) throw new NoLdapAccountError("The directory has no email address for you, so no account can be created.");
  // Zulip's get_or_build_user: the organization must let this address join without an invitation.
  const taken = await existingUserError(tx.q, realm, email);
  if (taken) throw new NoLdapAccountError(`No account can be created for ${email}: ${taken[0]}`);
  if (realmSettings(realm).invite_required) {
    throw new NoLdapAccountError(`There is no account for ${email} in this organization, and joining it requires an invitation.`);
  }
  const invalid = emailValidationError(realm, email);
  if (invalid) throw new NoLdapAccountError(`There is no account for ${email} in this organization, and it cannot join: ${invalid}`);
  return doCreateUser(tx, realm, { email, full_name: validName(person.fullName) ?? email.slice(0, email.indexOf("@")), password_hash: null, realmUrl: orgUrl });
}

function validName(name: string | null): string | null {
  if (name === null) return null;
  try {
    return checkFullName(name);
  } catch {
    return null;
  }
}

/** Copies the directory's full name and email address to the account (events go out). */
export async function applyDirectoryValues(tx: Tx, user: User, person: DirectoryPerson): Promise<AccountChanges> {
  const changes = planDirectoryValues(user, person);
  if (changes.fullName) await doChangeFullName(tx, user, changes.fullName.to, null);
  if (changes.email) {
    const other = await userStore.getByEmail(tx.q, user.realm_id, changes.email.to);
    if (other && other.id !== user.id) {
      changes.skipped.push(`email ${changes.email.to} is another account's`);
      delete changes.email;
    } else {
      await doChangeUserDeliveryEmail(tx, { ...user, ...(changes.fullName ? { full_name: changes.fullName.to } : {}) }, changes.email.to, null);
    }
  }
  return changes;
}

/** What applyDirectoryValues would change (without the check that the address is free). */
export function planDirectoryValues(user: User, person: DirectoryPerson): AccountChanges {
  const changes: AccountChanges = { skipped: [] };
  const name = validName(person.fullName);
  if (person.fullName !== null && name === null) changes.skipped.push(`full name "${person.fullName}" is not a valid name`);
  if (name !== null && name !== user.full_name) changes.fullName = { from: user.full_name, to: name };
  const email = person.email;
  if (email !== null && email.toLowerCase() !== user.delivery_email.toLowerCase()) {
    if (emailSchema.safeParse(email).success && email.length <= 254) changes.email = { from: user.delivery_email, to: email };
    else changes.skipped.push(`email "${email}" is not a valid address`);
  }
  return changes;
}

/**
 * deactivate_missing at sign-in: the directory has nobody by the address typed, so the account
 * with that address is deactivated (its owner cannot sign in through LDAP any more either). The
 * last owner of the organization is kept, as the sync keeps one.
 */
export async function deactivateMissingAccount(ctx: AppContext, realm: Realm, user: User): Promise<boolean> {
  return transaction(ctx, async (tx) => {
    const current = await userStore.getInRealm(tx.q, realm.id, user.id);
    if (!current || !current.is_active || current.is_bot) return false;
    if (await isLastOwner(tx, current)) {
      ctx.log.warn({ userId: current.id }, "LDAP: the directory does not have the organization's last owner; not deactivated");
      return false;
    }
    await doDeactivateUser(tx, current, null);
    ctx.log.info({ userId: current.id }, "LDAP: deactivated an account the directory does not have");
    return true;
  });
}
