import type { Realm, User, UserGroup } from "../db/schema.js";
import type { Dialect } from "../db/dialect.js";
import type { Executor } from "../db/tx.js";
import { badRequest, BotRequestNotAllowedError, GuestNotAllowedError, InsufficientPermissionError, UserGroupDeactivatedError } from "./errors.js";
import { isGuest } from "../models/roles.js";
import { userGroupStore } from "../store/userGroups.js";
import { USER_GROUP_SETTINGS, type UserGroupSettingName } from "./groupSettings.js";
import { hasRealmPermission } from "./realmPermissions.js";
import type { AccessSubject } from "./streamAccess.js";
import { systemBotStore } from "../store/systemBots.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";

/**
 * THE place that decides who may do what with a user group (Zulip 10.2's zerver/lib/user_groups.py
 * access_user_group_* and zerver/decorator.py): create, read membership, manage, join, leave, add
 * or remove members, and mention. Only named groups are reachable from the API; anonymous groups
 * (group-setting values) look missing.
 */

/** Zulip's require_member_or_admin: endpoints (user groups, bots, custom emoji) that refuse guests and bots. */
export function requireMemberOrAdmin(user: User): void {
  if (isGuest(user)) throw new GuestNotAllowedError();
  if (user.is_bot) throw new BotRequestNotAllowedError();
}

/** Zulip's require_user_group_create_permission: the realm's can_create_groups. */
export async function checkCanCreateUserGroup(q: Executor, subject: AccessSubject, realm: Realm): Promise<void> {
  requireMemberOrAdmin(subject.user);
  if (!(await hasRealmPermission(q, subject, realm, "can_create_groups"))) throw new InsufficientPermissionError();
}

/** Zulip's get_user_group_by_id_in_realm: "Invalid user group" when missing; deactivated ones refused unless allowed. */
export async function getUserGroupInRealm(
  q: Executor,
  realmId: number,
  groupId: number,
  opts: { allowDeactivated?: boolean; lock?: Dialect } = {},
): Promise<UserGroup> {
  const group = await userGroupStore.getNamed(q, realmId, groupId, opts.lock);
  if (!group) throw badRequest("Invalid user group");
  if (!opts.allowDeactivated && group.deactivated) throw new UserGroupDeactivatedError();
  return group;
}

/** The id of the group holding a setting of `group` (system groups leave them unset: role:nobody). */
export function groupSettingId(group: UserGroup, name: UserGroupSettingName, nobodyId: number): number {
  return group[`${name}_id`] ?? nobodyId;
}

/**
 * Zulip's user_has_permission_for_group_setting: membership of the setting's group, directly or
 * through subgroups; guests never hold a setting that may not be granted to role:everyone.
 */
async function hasUserGroupPermission(q: Executor, subject: AccessSubject, settingGroupId: number, name: UserGroupSettingName): Promise<boolean> {
  if (!USER_GROUP_SETTINGS[name].allowEveryone && isGuest(subject.user)) return false;
  return (await subject.groupIds(q)).has(settingGroupId);
}

/**
 * Zulip's access_user_group_for_update: system groups are never changed through the API; the
 * realm's can_manage_all_groups and the group's can_manage_group allow everything; otherwise the
 * named setting (can_join_group, can_add_members_group, ...) must be held.
 */
export async function accessUserGroupForUpdate(
  q: Executor,
  subject: AccessSubject,
  realm: Realm,
  groupId: number,
  permission: UserGroupSettingName,
  opts: { allowDeactivated?: boolean; lock?: Dialect } = {},
): Promise<UserGroup> {
  const group = await getUserGroupInRealm(q, realm.id, groupId, opts);
  if (await mayUpdateUserGroup(q, subject, realm, group, permission)) return group;
  throw new InsufficientPermissionError();
}

async function mayUpdateUserGroup(q: Executor, subject: AccessSubject, realm: Realm, group: UserGroup, permission: UserGroupSettingName): Promise<boolean> {
  if (group.is_system_group) return false;
  if (await hasRealmPermission(q, subject, realm, "can_manage_all_groups")) return true;
  const nobody = -1; // a user-created group always has its settings stored
  if (await hasUserGroupPermission(q, subject, groupSettingId(group, "can_manage_group", nobody), "can_manage_group")) return true;
  return permission !== "can_manage_group" && (await hasUserGroupPermission(q, subject, groupSettingId(group, permission, nobody), permission));
}

/**
 * Zulip's check_user_group_mention_allowed: a message mentioning @*group* (not silently) needs
 * the group's can_mention_group; role:everyone lets anyone, system bots included.
 */
export async function checkUserGroupMentionAllowed(q: Executor, subject: AccessSubject, realm: Realm, groupIds: Iterable<number>): Promise<void> {
  const groups = await userGroupStore.listNamedByIds(q, realm.id, [...groupIds]);
  if (groups.length === 0) return;
  const systemGroups = new Map((await userGroupStore.listSystemGroups(q, realm.id)).map((g) => [g.name, g.id]));
  const everyone = systemGroups.get("role:everyone");
  const nobody = systemGroups.get("role:nobody")!;
  let isSystemBot: boolean | null = null;
  for (const group of groups.sort((a, b) => a.id - b.id)) {
    const settingId = groupSettingId(group, "can_mention_group", nobody);
    if (settingId === everyone) continue;
    isSystemBot ??= (await systemBotStore.listByIds(q, SYSTEM_BOT_REALM, [subject.user.id])).length > 0;
    if (isSystemBot || !(await hasUserGroupPermission(q, subject, settingId, "can_mention_group"))) {
      throw badRequest(`You are not allowed to mention user group '${group.name}'.`);
    }
  }
}
