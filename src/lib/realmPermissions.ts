import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { isGuest } from "../models/roles.js";
import { REALM_GROUP_PERMISSIONS, storedRealmGroupPermission, type RealmGroupPermissionName } from "../models/realmSettings.js";
import { userGroupStore } from "../store/userGroups.js";
import type { AccessSubject } from "./streamAccess.js";

/**
 * Organization-level permissions (Zulip's Realm.REALM_PERMISSION_GROUP_SETTINGS): the one place
 * that decides whether a user holds one.
 */

/** The user group holding a realm permission: the stored group, or Zulip's default system group. */
export async function realmGroupPermissionId(q: Executor, realm: Realm, name: RealmGroupPermissionName): Promise<number> {
  const stored = storedRealmGroupPermission(realm, name);
  if (stored !== undefined) return stored;
  return (await userGroupStore.getSystemGroup(q, realm.id, REALM_GROUP_PERMISSIONS[name].default_group_name)).id;
}

/** realmGroupPermissionId with the realm's system groups (name → id) at hand: no query. */
export function realmGroupPermissionIdAmong(realm: Realm, name: RealmGroupPermissionName, systemGroups: ReadonlyMap<string, number>): number {
  const stored = storedRealmGroupPermission(realm, name);
  if (stored !== undefined) return stored;
  const id = systemGroups.get(REALM_GROUP_PERMISSIONS[name].default_group_name);
  if (id === undefined) throw new Error(`realm ${realm.id} has no system group ${REALM_GROUP_PERMISSIONS[name].default_group_name}`);
  return id;
}

/**
 * Zulip's user_has_permission_for_group_setting: membership (direct or through subgroups) of the
 * setting's group; guests never hold a permission that may not be granted to role:everyone.
 */
export async function hasRealmPermission(q: Executor, subject: AccessSubject, realm: Realm, name: RealmGroupPermissionName): Promise<boolean> {
  if (!REALM_GROUP_PERMISSIONS[name].allow_everyone_group && isGuest(subject.user)) return false;
  return (await subject.groupIds(q)).has(await realmGroupPermissionId(q, realm, name));
}

/** hasRealmPermission for several permissions, with the realm's system groups (name → id) at hand. */
export async function hasRealmPermissions<N extends RealmGroupPermissionName>(
  q: Executor,
  subject: AccessSubject,
  realm: Realm,
  names: readonly N[],
  systemGroups: ReadonlyMap<string, number>,
): Promise<Record<N, boolean>> {
  const groupIds = await subject.groupIds(q);
  const held = (name: N) =>
    (REALM_GROUP_PERMISSIONS[name].allow_everyone_group || !isGuest(subject.user)) && groupIds.has(realmGroupPermissionIdAmong(realm, name, systemGroups));
  return Object.fromEntries(names.map((name) => [name, held(name)])) as Record<N, boolean>;
}
