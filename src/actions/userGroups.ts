import type { Realm, User, UserGroup } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest, OldSettingValueMismatchError, UserGroupDeactivatedError } from "../lib/errors.js";
import {
  checkGroupSettingValue,
  normalizeGroupSetting,
  sameGroupSetting,
  storeGroupSetting,
  systemGroupIds,
  USER_GROUP_SETTING_NAMES,
  USER_GROUP_SETTINGS,
  type GroupSettingChange,
  type GroupSettingValue,
  type UserGroupSettingName,
} from "../lib/groupSettings.js";
import { REALM_GROUP_PERMISSION_NAMES, storedRealmGroupPermission } from "../models/realmSettings.js";
import type { AccessSubject } from "../lib/streamAccess.js";
import { accessUserGroupForUpdate, checkCanCreateUserGroup, requireMemberOrAdmin } from "../lib/userGroupAccess.js";
import { userGroupPayload, userGroupSettingValue } from "../lib/userGroupPayload.js";
import { auditLogStore } from "../store/auditLog.js";
import { settingGroupStore } from "../store/streams.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { sendNotificationBotDirectMessages } from "./notificationBot.js";
import { MAX_USER_GROUP_NAME_LENGTH } from "../models/limits.js";

/** Zulip's NamedUserGroup.INVALID_NAME_PREFIXES. */
const INVALID_NAME_PREFIXES = ["@", "role:", "user:", "stream:", "channel:"];

const STREAM_SETTING_COLUMNS = [
  "can_add_subscribers_group",
  "can_administer_channel_group",
  "can_remove_subscribers_group",
  "can_send_message_group",
  "can_subscribe_group",
] as const;

export interface CreateUserGroupRequest {
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  settings: Partial<Record<UserGroupSettingName, GroupSettingValue>>;
}

export interface UpdateUserGroupRequest {
  name?: string;
  description?: string;
  settings: Partial<Record<UserGroupSettingName, GroupSettingChange>>;
}

// ---- checks shared by the endpoints ----

/** Zulip's check_user_group_name. */
function checkUserGroupName(name: string): string {
  if (name.trim() === "") throw badRequest("User group name can't be empty!");
  if (name.length > MAX_USER_GROUP_NAME_LENGTH) {
    throw badRequest(`User group name cannot exceed ${MAX_USER_GROUP_NAME_LENGTH} characters.`);
  }
  for (const prefix of INVALID_NAME_PREFIXES) {
    if (name.startsWith(prefix)) throw badRequest(`User group name cannot start with '${prefix}'.`);
  }
  return name;
}

async function checkNameAvailable(tx: Tx, realm: Realm, name: string): Promise<void> {
  if (await userGroupStore.nameTaken(tx.q, realm.id, name)) throw badRequest(`User group '${name}' already exists.`);
}

/** Zulip's user_ids_to_users(allow_deactivated=False): every id an active user of the realm. */
async function activeUsersByIds(tx: Tx, realm: Realm, ids: readonly number[]): Promise<User[]> {
  const users = await userStore.listByIds(tx.q, realm.id, [...new Set(ids)]);
  const byId = new Map(users.filter((u) => u.is_active).map((u) => [u.id, u]));
  for (const id of ids) if (!byId.has(id)) throw badRequest(`Invalid user ID: ${id}`);
  return [...byId.values()];
}

/**
 * Zulip's lock_subgroups_with_respect_to_supergroup checks: each id a named group of the realm,
 * none deactivated. Returns them with every group below them (for the cycle check).
 */
async function accessPotentialSubgroups(tx: Tx, realm: Realm, ids: readonly number[]): Promise<{ subgroups: UserGroup[]; recursive: Set<number> }> {
  const found = await userGroupStore.listNamedByIds(tx.q, realm.id, ids);
  const missing = ids.find((id) => !found.some((g) => g.id === id));
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  if (found.some((g) => g.deactivated)) throw new UserGroupDeactivatedError();
  return {
    subgroups: found,
    recursive: await userGroupStore.withRecursiveSubgroups(
      tx.q,
      found.map((g) => g.id),
    ),
  };
}

async function realmAudience(tx: Tx, realm: Realm): Promise<number[]> {
  return userStore.listActiveIds(tx.q, realm.id);
}

// ---- POST /user_groups/create ----

export async function checkCreateUserGroup(tx: Tx, subject: AccessSubject, realm: Realm, req: CreateUserGroupRequest): Promise<{ group_id: number }> {
  await checkCanCreateUserGroup(tx.q, subject, realm);
  const members = await activeUsersByIds(tx, realm, req.members);
  const name = checkUserGroupName(req.name);
  const groups = await systemGroupIds(tx.q, realm.id);
  const nobody = groups.get("role:nobody")!;
  const settings = new Map<UserGroupSettingName, GroupSettingValue>();
  for (const setting of USER_GROUP_SETTING_NAMES) {
    const given = req.settings[setting];
    if (given !== undefined) settings.set(setting, await checkGroupSettingValue(tx.q, realm.id, setting, USER_GROUP_SETTINGS[setting], given, nobody));
  }
  await checkNameAvailable(tx, realm, name);
  const subgroupIds = [...new Set(req.subgroups ?? [])];
  if (subgroupIds.length > 0) await accessPotentialSubgroups(tx, realm, subgroupIds);

  const creator = subject.user;
  const settingIds: Partial<Record<`${UserGroupSettingName}_id`, number>> = {};
  for (const setting of USER_GROUP_SETTING_NAMES) {
    const fallback = USER_GROUP_SETTINGS[setting].defaultGroup;
    // Zulip's "group_creator" default: an anonymous group holding the creator alone.
    const value = settings.get(setting) ?? (fallback === "group_creator" ? { direct_members: [creator.id], direct_subgroups: [] } : groups.get(fallback)!);
    settingIds[`${setting}_id`] = await storeGroupSetting(tx.q, realm.id, value);
  }
  const group = await userGroupStore.insert(tx.q, {
    realm_id: realm.id,
    name,
    description: req.description,
    named: 1,
    is_system_group: 0,
    date_created: nowSeconds(),
    creator_id: creator.id,
    ...settingIds,
  });
  const memberIds = req.members.filter((id, i) => req.members.indexOf(id) === i);
  await userGroupStore.addMembers(tx.q, group.id, memberIds);
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "user_group_created", acting_user_id: creator.id, modified_group_id: group.id });
  for (const member of members) {
    await auditLogStore.insert(tx.q, {
      realm_id: realm.id,
      event_type: "user_group_direct_user_membership_added",
      acting_user_id: creator.id,
      modified_user_id: member.id,
      modified_group_id: group.id,
    });
  }
  // The add event lists the group as created, before its subgroups (Zulip sends add_subgroups next).
  tx.sendEventOnCommit({ type: "user_group", op: "add", group: await userGroupPayload(tx.q, realm.id, group) }, await realmAudience(tx, realm));
  if (subgroupIds.length > 0) await doAddSubgroups(tx, realm, group, subgroupIds, creator);
  return { group_id: group.id };
}

// ---- PATCH /user_groups/{id} ----

export async function checkUpdateUserGroup(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, req: UpdateUserGroupRequest): Promise<void> {
  requireMemberOrAdmin(subject.user);
  const changedSettings = USER_GROUP_SETTING_NAMES.filter((n) => req.settings[n] !== undefined);
  if (req.name === undefined && req.description === undefined && changedSettings.length === 0) throw badRequest("No new data supplied");
  let group = await accessUserGroupForUpdate(tx.q, subject, realm, groupId, "can_manage_group", { allowDeactivated: true, lock: tx.dialect });
  const actor = subject.user;

  if (req.name !== undefined && req.name !== group.name) {
    const name = checkUserGroupName(req.name);
    await checkNameAvailable(tx, realm, name);
    group = await doUpdateUserGroup(tx, realm, group, { name }, "user_group_name_changed", actor);
  }
  if (req.description !== undefined && req.description !== group.description) {
    group = await doUpdateUserGroup(tx, realm, group, { description: req.description }, "user_group_description_changed", actor);
  }

  const nobody = (await systemGroupIds(tx.q, realm.id)).get("role:nobody")!;
  for (const setting of changedSettings) {
    const change = req.settings[setting]!;
    const current = await userGroupSettingValue(tx.q, realm.id, group, setting);
    // Zulip's validate_group_setting_value_change: 'old' guards against races, before the new value is checked.
    if (change.old !== undefined && !sameGroupSetting(normalizeGroupSetting(change.old, nobody), current)) {
      throw new OldSettingValueMismatchError();
    }
    if (sameGroupSetting(normalizeGroupSetting(change.new, nobody), current)) continue;
    const value = await checkGroupSettingValue(tx.q, realm.id, setting, USER_GROUP_SETTINGS[setting], change.new, nobody);
    group = await doChangeUserGroupSetting(tx, realm, group, setting, current, value, actor);
  }
}

async function doUpdateUserGroup(
  tx: Tx,
  realm: Realm,
  group: UserGroup,
  changes: { name: string } | { description: string },
  auditType: string,
  actor: User,
): Promise<UserGroup> {
  await userGroupStore.update(tx.q, group.id, changes);
  const [property, value] = "name" in changes ? (["name", changes.name] as const) : (["description", changes.description] as const);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: auditType,
    acting_user_id: actor.id,
    modified_group_id: group.id,
    extra_data: { old_value: group[property], new_value: value },
  });
  tx.sendEventOnCommit({ type: "user_group", op: "update", group_id: group.id, data: changes }, await realmAudience(tx, realm));
  return { ...group, ...changes };
}

/** Zulip's do_change_user_group_permission_setting; an anonymous value reuses the setting's own anonymous group. */
async function doChangeUserGroupSetting(
  tx: Tx,
  realm: Realm,
  group: UserGroup,
  setting: UserGroupSettingName,
  oldValue: GroupSettingValue,
  value: GroupSettingValue,
  actor: User,
): Promise<UserGroup> {
  const column = `${setting}_id` as const;
  const oldGroupId = group[column];
  const oldAnonymous = oldGroupId !== null && typeof oldValue !== "number";
  const groupId = await storeGroupSetting(tx.q, realm.id, value, oldAnonymous && typeof value !== "number" ? oldGroupId! : undefined);
  await userGroupStore.update(tx.q, group.id, { [column]: groupId });
  if (oldAnonymous && typeof value === "number") await settingGroupStore.deleteAnonymous(tx.q, oldGroupId!);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "user_group_group_based_setting_changed",
    acting_user_id: actor.id,
    modified_group_id: group.id,
    extra_data: { old_value: oldValue, new_value: value, property: setting },
  });
  tx.sendEventOnCommit({ type: "user_group", op: "update", group_id: group.id, data: { [setting]: value } }, await realmAudience(tx, realm));
  return { ...group, [column]: groupId };
}

// ---- POST /user_groups/{id}/members and /subgroups ----

export interface MembershipChanges {
  add?: number[];
  delete?: number[];
  add_subgroups?: number[];
  delete_subgroups?: number[];
}

/** POST /user_groups/{id}/members: each non-empty list applied in Zulip's order, in one transaction. */
export async function checkUpdateUserGroupMembers(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, req: MembershipChanges): Promise<void> {
  requireMemberOrAdmin(subject.user);
  const { add = [], delete: remove = [], add_subgroups: addSubgroups = [], delete_subgroups: removeSubgroups = [] } = req;
  if (add.length === 0 && remove.length === 0 && addSubgroups.length === 0 && removeSubgroups.length === 0) {
    throw badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
  }
  if (add.length > 0) await checkAddMembers(tx, subject, realm, groupId, add);
  if (remove.length > 0) await checkRemoveMembers(tx, subject, realm, groupId, remove);
  if (addSubgroups.length > 0) await checkAddSubgroups(tx, subject, realm, groupId, addSubgroups);
  if (removeSubgroups.length > 0) await checkRemoveSubgroups(tx, subject, realm, groupId, removeSubgroups);
}

/** POST /user_groups/{id}/subgroups. */
export async function checkUpdateUserGroupSubgroups(
  tx: Tx,
  subject: AccessSubject,
  realm: Realm,
  groupId: number,
  req: { add?: number[]; delete?: number[] },
): Promise<void> {
  requireMemberOrAdmin(subject.user);
  const { add = [], delete: remove = [] } = req;
  if (add.length === 0 && remove.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  if (add.length > 0) await checkAddSubgroups(tx, subject, realm, groupId, add);
  if (remove.length > 0) await checkRemoveSubgroups(tx, subject, realm, groupId, remove);
}

/** Joining oneself needs can_join_group, or else the right to add anyone (can_add_members_group). */
async function checkAddMembers(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, ids: number[]): Promise<void> {
  const self = ids.length === 1 && ids[0] === subject.user.id;
  const group = await accessForSelfOrOthers(tx, subject, realm, groupId, self ? "can_join_group" : null, "can_add_members_group");
  const users = await activeUsersByIds(tx, realm, ids);
  const existing = await userGroupStore.directMembersAmong(
    tx.q,
    group.id,
    users.map((u) => u.id),
  );
  const already = users.find((u) => existing.has(u.id));
  if (already) throw badRequest(`User ${already.id} is already a member of this group`);
  const userIds = ids.filter((id, i) => ids.indexOf(id) === i);
  await userGroupStore.addMembers(tx.q, group.id, userIds);
  await recordMembership(tx, realm, group, userIds, "user_group_direct_user_membership_added", subject.user);
  tx.sendEventOnCommit({ type: "user_group", op: "add_members", group_id: group.id, user_ids: userIds }, await realmAudience(tx, realm));
  await notifyMembershipChange(tx, realm, subject.user, users, group, "added you to");
}

/** Leaving needs can_leave_group, or else the right to remove anyone (can_remove_members_group). */
async function checkRemoveMembers(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, ids: number[]): Promise<void> {
  const users = await activeUsersByIds(tx, realm, ids);
  const self = ids.length === 1 && ids[0] === subject.user.id;
  const group = await accessForSelfOrOthers(tx, subject, realm, groupId, self ? "can_leave_group" : null, "can_remove_members_group");
  const members = new Set(await userGroupStore.directActiveMemberIds(tx.q, group.id));
  const absent = ids.find((id) => !members.has(id));
  if (absent !== undefined) throw badRequest(`There is no member '${absent}' in this user group`);
  const userIds = ids.filter((id, i) => ids.indexOf(id) === i);
  await userGroupStore.removeMembers(tx.q, group.id, userIds);
  await recordMembership(tx, realm, group, userIds, "user_group_direct_user_membership_removed", subject.user);
  tx.sendEventOnCommit({ type: "user_group", op: "remove_members", group_id: group.id, user_ids: userIds }, await realmAudience(tx, realm));
  await notifyMembershipChange(tx, realm, subject.user, users, group, "removed you from");
}

async function accessForSelfOrOthers(
  tx: Tx,
  subject: AccessSubject,
  realm: Realm,
  groupId: number,
  selfPermission: "can_join_group" | "can_leave_group" | null,
  permission: "can_add_members_group" | "can_remove_members_group",
): Promise<UserGroup> {
  const opts = { allowDeactivated: true, lock: tx.dialect };
  if (selfPermission !== null) {
    try {
      return await accessUserGroupForUpdate(tx.q, subject, realm, groupId, selfPermission, opts);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  return accessUserGroupForUpdate(tx.q, subject, realm, groupId, permission, opts);
}

async function recordMembership(tx: Tx, realm: Realm, group: UserGroup, userIds: number[], eventType: string, actor: User): Promise<void> {
  for (const userId of userIds) {
    await auditLogStore.insert(tx.q, {
      realm_id: realm.id,
      event_type: eventType,
      acting_user_id: actor.id,
      modified_user_id: userId,
      modified_group_id: group.id,
    });
  }
}

/** Zulip's add_subgroups_to_group_backend: no duplicates, no cycles. */
async function checkAddSubgroups(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, ids: number[]): Promise<void> {
  const { subgroups, recursive } = await accessPotentialSubgroupsFor(tx, subject, realm, groupId, ids, "can_add_members_group");
  const existing = new Set(await userGroupStore.directSubgroupIds(tx.q, groupId));
  const already = subgroups.find((g) => existing.has(g.id));
  if (already) throw badRequest(`User group ${already.id} is already a subgroup of this group.`);
  if (recursive.has(groupId)) throw badRequest(`User group ${groupId} is already a subgroup of one of the passed subgroups.`);
  const group = (await userGroupStore.getNamed(tx.q, realm.id, groupId))!;
  await doAddSubgroups(
    tx,
    realm,
    group,
    ids.filter((id, i) => ids.indexOf(id) === i),
    subject.user,
  );
}

async function checkRemoveSubgroups(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, ids: number[]): Promise<void> {
  const { subgroups } = await accessPotentialSubgroupsFor(tx, subject, realm, groupId, ids, "can_manage_group");
  const existing = new Set(await userGroupStore.directSubgroupIds(tx.q, groupId));
  const absent = subgroups.find((g) => !existing.has(g.id));
  if (absent) throw badRequest(`User group ${absent.id} is not a subgroup of this group.`);
  const subgroupIds = ids.filter((id, i) => ids.indexOf(id) === i);
  await userGroupStore.removeSubgroups(tx.q, groupId, subgroupIds);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "user_group_direct_subgroup_membership_removed",
    acting_user_id: subject.user.id,
    modified_group_id: groupId,
    extra_data: { subgroup_ids: subgroupIds },
  });
  tx.sendEventOnCommit({ type: "user_group", op: "remove_subgroups", group_id: groupId, direct_subgroup_ids: subgroupIds }, await realmAudience(tx, realm));
}

/** Zulip's lock_subgroups_with_respect_to_supergroup: the supergroup's permission first, then the subgroups. */
async function accessPotentialSubgroupsFor(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number, ids: number[], permission: UserGroupSettingName) {
  await accessUserGroupForUpdate(tx.q, subject, realm, groupId, permission, { lock: tx.dialect });
  return accessPotentialSubgroups(tx, realm, ids);
}

async function doAddSubgroups(tx: Tx, realm: Realm, group: UserGroup, subgroupIds: number[], actor: User): Promise<void> {
  await userGroupStore.addSubgroups(tx.q, group.id, subgroupIds);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "user_group_direct_subgroup_membership_added",
    acting_user_id: actor.id,
    modified_group_id: group.id,
    extra_data: { subgroup_ids: subgroupIds },
  });
  tx.sendEventOnCommit({ type: "user_group", op: "add_subgroups", group_id: group.id, direct_subgroup_ids: subgroupIds }, await realmAudience(tx, realm));
}

/**
 * Zulip's notify_for_user_group_subscription_changes: a direct message from the Notification Bot
 * to each human added or removed by someone else.
 */
async function notifyMembershipChange(
  tx: Tx,
  realm: Realm,
  actor: User,
  users: User[],
  group: UserGroup,
  verb: "added you to" | "removed you from",
): Promise<void> {
  const recipients = users.filter((u) => u.id !== actor.id && !u.is_bot);
  if (recipients.length === 0) return;
  const content = `@_**${actor.full_name}|${actor.id}** ${verb} the group @_*${group.name}*.`;
  await sendNotificationBotDirectMessages(
    tx,
    realm,
    recipients.map((user) => ({ user, content })),
  );
}

// ---- POST /user_groups/{id}/deactivate ----

/** Zulip's access_user_group_for_deactivation: refused while the group is a subgroup or holds a permission. */
export async function checkDeactivateUserGroup(tx: Tx, subject: AccessSubject, realm: Realm, groupId: number): Promise<void> {
  const group = await accessUserGroupForUpdate(tx.q, subject, realm, groupId, "can_manage_group", { lock: tx.dialect });
  const objections: Array<Record<string, unknown>> = [];
  const supergroups = await userGroupStore.directSupergroups(tx.q, group.id);
  const namedSupergroups = supergroups.filter((g) => g.named && !g.deactivated).map((g) => g.id);
  if (namedSupergroups.length > 0) objections.push({ type: "subgroup", supergroup_ids: namedSupergroups });

  // The group holds a setting directly, or as a subgroup of the anonymous group holding it.
  const using = new Set([group.id, ...supergroups.filter((g) => !g.named).map((g) => g.id)]);
  for (const stream of await userGroupStore.channelsUsingGroups(tx.q, realm.id, [...using])) {
    const settings = STREAM_SETTING_COLUMNS.filter((name) => using.has(stream[`${name}_id`] ?? -1));
    objections.push({ type: "channel", channel_id: stream.id, settings });
  }
  for (const other of await userGroupStore.namedGroupsUsingGroups(tx.q, realm.id, [...using])) {
    const settings = USER_GROUP_SETTING_NAMES.filter((name) => using.has(other[`${name}_id`] ?? -1));
    objections.push({ type: "user_group", group_id: other.id, settings });
  }
  const realmSettings = REALM_GROUP_PERMISSION_NAMES.filter((name) => using.has(storedRealmGroupPermission(realm, name) ?? -1));
  if (realmSettings.length > 0) objections.push({ type: "realm", settings: realmSettings });
  if (objections.length > 0) {
    throw new ApiError("Cannot deactivate user group in use.", { code: "CANNOT_DEACTIVATE_GROUP_IN_USE", data: { objections } });
  }
  await doDeactivateUserGroup(tx, realm, group, subject.user);
}

/** Zulip 10 deactivates rather than deletes; older clients learn of it as a removal (events/clientEvents.ts). */
async function doDeactivateUserGroup(tx: Tx, realm: Realm, group: UserGroup, actor: User): Promise<void> {
  await userGroupStore.update(tx.q, group.id, { deactivated: 1 });
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "user_group_deactivated", acting_user_id: actor.id, modified_group_id: group.id });
  tx.sendEventOnCommit({ type: "user_group", op: "update", group_id: group.id, data: { deactivated: true } }, await realmAudience(tx, realm));
}
