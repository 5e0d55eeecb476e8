import type { UserGroup } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { settingGroupStore } from "../store/streams.js";
import { userGroupStore } from "../store/userGroups.js";
import { groupSettingApiValues, USER_GROUP_SETTING_NAMES, type GroupSettingValue, type UserGroupSettingName } from "./groupSettings.js";
import { groupSettingId } from "./userGroupAccess.js";
import { defined } from "../util/defined.js";

/**
 * The API shape of a named user group (Zulip's UserGroupDict, components/schemas/UserGroup):
 * GET /user_groups, POST /register's realm_user_groups and the user_group/add event. Members are
 * direct members with active accounts; settings are group ids or {direct_members, direct_subgroups}.
 */
export type UserGroupPayload = {
  id: number;
  name: string;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  date_created: number | null;
  creator_id: number | null;
  deactivated: boolean;
} & Record<UserGroupSettingName, GroupSettingValue>;

/** Zulip's user_groups_in_realm_serialized: every named group of the realm, ascending ids. */
/** `opts.systemGroups`: the realm's system groups (name → id), when the caller has them already. */
export async function userGroupsForRealm(
  q: Executor,
  realmId: number,
  opts: { includeDeactivated: boolean; systemGroups?: ReadonlyMap<string, number> },
): Promise<UserGroupPayload[]> {
  return buildUserGroupPayloads(q, realmId, await userGroupStore.listNamed(q, realmId, opts.includeDeactivated), opts.systemGroups?.get("role:nobody"));
}

/** The payload of one group (for the user_group/add event). */
export async function userGroupPayload(q: Executor, realmId: number, group: UserGroup): Promise<UserGroupPayload> {
  const [payload] = await buildUserGroupPayloads(q, realmId, [group]);
  return defined(payload, `the payload of group ${group.id}`);
}

/** The API value of one setting of a group. */
export async function userGroupSettingValue(q: Executor, realmId: number, group: UserGroup, name: UserGroupSettingName): Promise<GroupSettingValue> {
  const nobody = (await userGroupStore.getSystemGroup(q, realmId, "role:nobody")).id;
  const id = groupSettingId(group, name, nobody);
  return (await groupSettingApiValues(q, realmId, [id])).get(id) ?? id;
}

async function buildUserGroupPayloads(q: Executor, realmId: number, groups: readonly UserGroup[], nobodyId?: number): Promise<UserGroupPayload[]> {
  if (groups.length === 0) return [];
  const nobody = nobodyId ?? (await userGroupStore.getSystemGroup(q, realmId, "role:nobody")).id;
  const settingIds = groups.flatMap((g) => USER_GROUP_SETTING_NAMES.map((name) => groupSettingId(g, name, nobody)));
  const settingRows = await settingGroupStore.listByIds(q, realmId, settingIds);
  const anonymousIds = settingRows.filter((r) => r.named === 0).map((r) => r.id);
  // One pass for the groups' own membership and the anonymous setting groups' membership.
  const membership = await settingGroupStore.directMembership(q, [...new Set([...groups.map((g) => g.id), ...anonymousIds])]);
  const anonymous = new Set(anonymousIds);
  const settingValue = (id: number): GroupSettingValue => {
    if (!anonymous.has(id)) return id;
    const m = membership.get(id)!;
    return { direct_members: m.members, direct_subgroups: m.subgroups };
  };
  return groups.map((g) => {
    const own = membership.get(g.id)!;
    const settings = Object.fromEntries(USER_GROUP_SETTING_NAMES.map((name) => [name, settingValue(groupSettingId(g, name, nobody))]));
    return {
      id: g.id,
      name: g.name!,
      description: g.description,
      members: own.members,
      direct_subgroup_ids: own.subgroups,
      is_system_group: g.is_system_group === 1,
      date_created: g.date_created,
      creator_id: g.creator_id,
      deactivated: g.deactivated === 1,
      ...settings,
    } as UserGroupPayload;
  });
}
