import * as z from "zod";
import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { badRequest, TargetUserDeactivatedError, UserGroupDeactivatedError } from "./errors.js";
import { realmSettings } from "../models/realmSettings.js";
import type { SystemGroupName } from "../models/systemGroups.js";
import { settingGroupStore } from "../store/streams.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";

/**
 * Zulip's group-setting values (/api/group-setting-values): who holds a permission is either a
 * named user group (its id) or an anonymous group, written {direct_members, direct_subgroups}
 * and stored as a `user_groups` row with named = 0.
 */
export type AnonymousGroupValue = { direct_members: number[]; direct_subgroups: number[] };
export type GroupSettingValue = number | AnonymousGroupValue;

export const groupSettingValueSchema = z.union([z.int(), z.object({ direct_members: z.array(z.int()), direct_subgroups: z.array(z.int()) }).strict()]);
export const groupSettingChangeSchema = z.object({ new: groupSettingValueSchema, old: groupSettingValueSchema.optional() }).strict();
export type GroupSettingChange = z.output<typeof groupSettingChangeSchema>;

/** Zulip's GroupPermissionSetting for each channel permission (Stream.stream_permission_group_settings). */
export interface PermissionConfig {
  allowEveryone: boolean;
  /** False where role:owners may not hold the permission (Zulip 9's allow_owners_group; can_mention_group). */
  allowOwners?: boolean;
  /**
   * A system group name, or "stream_creator_or_nobody" / "group_creator": an anonymous group of
   * the creator.
   */
  defaultGroup: SystemGroupName | "stream_creator_or_nobody" | "group_creator";
}

export const STREAM_GROUP_SETTINGS = {
  can_add_subscribers_group: { allowEveryone: false, defaultGroup: "role:nobody" },
  can_administer_channel_group: { allowEveryone: false, defaultGroup: "stream_creator_or_nobody" },
  can_remove_subscribers_group: { allowEveryone: false, defaultGroup: "role:administrators" },
  can_send_message_group: { allowEveryone: true, defaultGroup: "role:everyone" },
  can_subscribe_group: { allowEveryone: false, defaultGroup: "role:nobody" },
} as const satisfies Record<string, PermissionConfig>;
export type StreamGroupSettingName = keyof typeof STREAM_GROUP_SETTINGS;
export const STREAM_GROUP_SETTING_NAMES = Object.keys(STREAM_GROUP_SETTINGS) as StreamGroupSettingName[];

/**
 * Zulip's NamedUserGroup.GROUP_PERMISSION_SETTINGS. System groups take role:nobody for every
 * setting (default_for_system_groups); the API spec refuses role:owners for can_mention_group.
 */
export const USER_GROUP_SETTINGS = {
  can_add_members_group: { allowEveryone: false, defaultGroup: "group_creator" },
  can_join_group: { allowEveryone: false, defaultGroup: "role:nobody" },
  can_leave_group: { allowEveryone: true, defaultGroup: "role:everyone" },
  can_manage_group: { allowEveryone: false, defaultGroup: "group_creator" },
  can_mention_group: { allowEveryone: true, allowOwners: false, defaultGroup: "role:everyone" },
  can_remove_members_group: { allowEveryone: false, defaultGroup: "role:nobody" },
} as const satisfies Record<string, PermissionConfig>;
export type UserGroupSettingName = keyof typeof USER_GROUP_SETTINGS;
export const USER_GROUP_SETTING_NAMES = Object.keys(USER_GROUP_SETTINGS) as UserGroupSettingName[];

/** System group name → id in the realm. */
export async function systemGroupIds(q: Executor, realmId: number): Promise<Map<string, number>> {
  return new Map((await userGroupStore.listSystemGroups(q, realmId)).map((g) => [g.name!, g.id]));
}

/** The API value of each group: its id when named, members and subgroups when anonymous. */
export async function groupSettingApiValues(q: Executor, realmId: number, groupIds: readonly number[]): Promise<Map<number, GroupSettingValue>> {
  const rows = await settingGroupStore.listByIds(q, realmId, groupIds);
  const anonymous = rows.filter((r) => !r.named).map((r) => r.id);
  const membership = await settingGroupStore.directMembership(q, anonymous);
  const result = new Map<number, GroupSettingValue>();
  for (const row of rows) {
    const m = membership.get(row.id);
    result.set(row.id, m ? { direct_members: m.members, direct_subgroups: m.subgroups } : row.id);
  }
  return result;
}

/** Zulip's parse_group_setting_value: no one → role:nobody; exactly one subgroup → that group. */
export function normalizeGroupSetting(value: GroupSettingValue, nobodyId: number): GroupSettingValue {
  if (typeof value === "number") return value;
  const members = [...new Set(value.direct_members)].sort((a, b) => a - b);
  const subgroups = [...new Set(value.direct_subgroups)].sort((a, b) => a - b);
  if (members.length === 0 && subgroups.length === 0) return nobodyId;
  const [onlySubgroup] = subgroups;
  if (members.length === 0 && subgroups.length === 1 && onlySubgroup !== undefined) return onlySubgroup;
  return { direct_members: members, direct_subgroups: subgroups };
}

export function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const eq = (x: number[], y: number[]) => {
    const [sx, sy] = [[...x].sort((m, n) => m - n), [...y].sort((m, n) => m - n)];
    return sx.length === sy.length && sx.every((v, i) => v === sy[i]);
  };
  return eq(a.direct_members, b.direct_members) && eq(a.direct_subgroups, b.direct_subgroups);
}

/**
 * Zulip's access_user_group_for_setting: every group must be a named group of the realm, and the
 * system groups a setting does not allow are refused with Zulip's text. Returns the normalized value.
 */
export async function checkGroupSettingValue(
  q: Executor,
  realmId: number,
  settingName: string,
  config: PermissionConfig,
  raw: GroupSettingValue,
  nobodyId: number,
): Promise<GroupSettingValue> {
  const value = normalizeGroupSetting(raw, nobodyId);
  const groupIds = typeof value === "number" ? [value] : value.direct_subgroups;
  const groups = await settingGroupStore.listByIds(q, realmId, groupIds);
  for (const id of groupIds) {
    const group = groups.find((g) => g.id === id);
    if (!group || !group.named) throw badRequest("Invalid user group");
    if (group.deactivated) throw new UserGroupDeactivatedError();
    if (group.is_system_group) {
      const refused = group.name === "role:internet" || (group.name === "role:everyone" && !config.allowEveryone);
      if (refused) throw badRequest(`'${settingName}' setting cannot be set to '${group.name}' group.`);
    }
  }
  // Zulip checks role:owners only for a named-group value (check_setting_configuration_for_system_groups).
  if (typeof value === "number" && config.allowOwners === false && groups[0]?.is_system_group && groups[0].name === "role:owners") {
    throw badRequest(`'${settingName}' setting cannot be set to 'role:owners' group.`);
  }
  if (typeof value !== "number" && value.direct_members.length > 0) {
    const users = await userStore.listByIds(q, realmId, value.direct_members);
    for (const id of value.direct_members) {
      const user = users.find((u) => u.id === id);
      if (!user) throw badRequest("Invalid user ID: " + id);
      if (!user.is_active) throw new TargetUserDeactivatedError();
    }
  }
  return value;
}

/** Stores a checked value: the named group's id, or a new anonymous group (reusing `reuseAnonymousId`). */
export async function storeGroupSetting(q: Executor, realmId: number, value: GroupSettingValue, reuseAnonymousId?: number): Promise<number> {
  if (typeof value === "number") return value;
  if (reuseAnonymousId !== undefined) {
    await settingGroupStore.setMembership(q, reuseAnonymousId, value.direct_members, value.direct_subgroups);
    return reuseAnonymousId;
  }
  return settingGroupStore.createAnonymous(q, realmId, value.direct_members, value.direct_subgroups);
}

/** Zulip's web_public_streams_enabled(): the realm's enable_spectator_access (Zulip's default: off). */
export function webPublicStreamsEnabled(realm: Realm): boolean {
  return realmSettings(realm).enable_spectator_access;
}
