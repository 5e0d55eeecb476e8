import { doDeactivateUser } from "../../actions/users.js";
import { type AppContext, transaction } from "../../appContext.js";
import type { Realm, User } from "../../db/schema.js";
import { Role } from "../../models/roles.js";
import { ldapAccountStore } from "../../store/ldapAccounts.js";
import { userStore } from "../../store/users.js";
import { type AccountChanges, applyDirectoryValues, planDirectoryValues } from "./accounts.js";
import type { DirectoryPerson, LdapDirectory } from "./directory.js";

/**
 * `parley ldap-sync` (Zulip's sync_ldap_user_data): every active human account of the organization
 * is looked up in the directory (by the entry it signed in as, else by its email address); names
 * and addresses are copied from the directory, and with deactivate_missing the accounts the
 * directory does not have are deactivated. The directory is asked first, and the changes are then
 * made in one transaction, so a directory that fails half-way changes nothing; a sync that would
 * deactivate every owner of the organization changes nothing either (as Zulip's refuses).
 */

export interface SyncResult {
  /** One line per account that changes or is missing. */
  lines: string[];
  checked: number;
  updated: number;
  deactivated: number;
  /** Missing from the directory but kept (deactivate_missing off, or the last owners). */
  missing: number;
}

interface Planned {
  user: User;
  person: DirectoryPerson | null;
  changes: AccountChanges | null;
}

export class SyncRefusedError extends Error {}

export async function syncLdapAccounts(
  ctx: AppContext,
  realm: Realm,
  directory: LdapDirectory,
  options: { deactivateMissing: boolean; dryRun: boolean },
): Promise<SyncResult> {
  const users = (await userStore.listInRealm(ctx.db.kysely, realm.id)).filter((u) => u.is_active && !u.is_bot);
  const links = await ldapAccountStore.listDns(
    ctx.db.kysely,
    users.map((u) => u.id),
  );
  const planned: Planned[] = [];
  for (const user of users) {
    const dn = links.get(user.id);
    const person = (dn === undefined ? null : await directory.findByDn(dn)) ?? (await directory.findByEmail(user.delivery_email));
    planned.push({ user, person, changes: person === null ? null : planDirectoryValues(user, person) });
  }
  const missing = planned.filter((p) => p.person === null);
  const toDeactivate = options.deactivateMissing ? missing : [];
  const owners = users.filter((u) => u.role === Role.OWNER);
  if (owners.length > 0 && owners.every((owner) => toDeactivate.some((p) => p.user.id === owner.id))) {
    throw new SyncRefusedError("LDAP sync would have deactivated all organization owners; nothing was changed.");
  }
  const result: SyncResult = { lines: [], checked: users.length, updated: 0, deactivated: 0, missing: 0 };
  for (const { user, changes } of planned) {
    if (changes === null) {
      if (options.deactivateMissing) {
        result.deactivated++;
        result.lines.push(`deactivated ${user.delivery_email}: not in the directory`);
      } else {
        result.missing++;
        result.lines.push(`not in the directory: ${user.delivery_email} (kept: deactivate_missing is off)`);
      }
      continue;
    }
    const parts = [
      ...(changes.fullName ? [`full name "${changes.fullName.from}" -> "${changes.fullName.to}"`] : []),
      ...(changes.email ? [`email ${changes.email.from} -> ${changes.email.to}`] : []),
    ];
    for (const reason of changes.skipped) result.lines.push(`${user.delivery_email}: not copied: ${reason}`);
    if (parts.length > 0) {
      result.updated++;
      result.lines.push(`updated ${user.delivery_email}: ${parts.join(", ")}`);
    }
  }
  if (options.dryRun) return result;
  await transaction(ctx, async (tx) => {
    for (const { user, person } of planned) {
      const current = await userStore.getInRealm(tx.q, realm.id, user.id);
      if (!current || !current.is_active) continue;
      if (person === null) {
        if (options.deactivateMissing) await doDeactivateUser(tx, current, null);
        continue;
      }
      await applyDirectoryValues(tx, current, person);
      await ldapAccountStore.link(tx.q, realm.id, current.id, person.dn);
    }
  });
  return result;
}
