import * as z from "zod";
import { transaction } from "../appContext.js";
import {
  checkCreateUserGroup,
  checkDeactivateUserGroup,
  checkUpdateUserGroup,
  checkUpdateUserGroupMembers,
  checkUpdateUserGroupSubgroups,
} from "../actions/userGroups.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { accessUserById } from "../lib/access.js";
import { groupSettingChangeSchema, groupSettingValueSchema, USER_GROUP_SETTING_NAMES } from "../lib/groupSettings.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { getUserGroupInRealm, requireMemberOrAdmin } from "../lib/userGroupAccess.js";
import { userGroupsForRealm } from "../lib/userGroupPayload.js";
import { groupMembershipStore, userGroupStore } from "../store/userGroups.js";

const groupIdOf = (path: Record<string, string>) => pathParam.int(path.user_group_id, "user_group_id");
const idList = p.json(z.array(z.int()));
const settingValue = p.json(groupSettingValueSchema).optional();
const settingChange = p.json(groupSettingChangeSchema).optional();

/** The can_*_group parameters that were sent. */
function pickSettings<T>(params: Record<string, unknown>): Partial<Record<(typeof USER_GROUP_SETTING_NAMES)[number], T>> {
  return Object.fromEntries(USER_GROUP_SETTING_NAMES.filter((n) => params[n] !== undefined).map((n) => [n, params[n] as T]));
}

/** POST /user_groups/create */
export const addUserGroup = endpoint({
  auth: "user",
  params: {
    name: p.string({ trim: false }),
    description: p.string({ trim: false }),
    members: idList,
    subgroups: idList.optional(),
    can_add_members_group: settingValue,
    can_join_group: settingValue,
    can_leave_group: settingValue,
    can_manage_group: settingValue,
    can_mention_group: settingValue,
    can_remove_members_group: settingValue,
  },
  handler: ({ ctx, user, realm, params }) =>
    transaction(ctx, (tx) => checkCreateUserGroup(tx, new AccessSubject(user), realm, { ...params, settings: pickSettings(params) })),
});

/** GET /user_groups */
export const getUserGroups = endpoint({
  auth: "user",
  params: { include_deactivated_groups: p.bool().default(false) },
  handler: async ({ ctx, user, params }) => {
    requireMemberOrAdmin(user);
    return { user_groups: await userGroupsForRealm(ctx.db.kysely, user.realm_id, { includeDeactivated: params.include_deactivated_groups }) };
  },
});

/** PATCH /user_groups/{user_group_id} */
export const editUserGroup = endpoint({
  auth: "user",
  params: {
    name: p.string({ trim: false }).optional(),
    description: p.string({ trim: false }).optional(),
    can_add_members_group: settingChange,
    can_join_group: settingChange,
    can_leave_group: settingChange,
    can_manage_group: settingChange,
    can_mention_group: settingChange,
    can_remove_members_group: settingChange,
  },
  handler: async ({ ctx, user, realm, path, params }) => {
    await transaction(ctx, (tx) => checkUpdateUserGroup(tx, new AccessSubject(user), realm, groupIdOf(path), { ...params, settings: pickSettings(params) }));
  },
});

/** POST /user_groups/{user_group_id}/deactivate */
export const deactivateUserGroup = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    await transaction(ctx, (tx) => checkDeactivateUserGroup(tx, new AccessSubject(user), realm, groupIdOf(path)));
  },
});

/** POST /user_groups/{user_group_id}/members */
export const updateUserGroupMembers = endpoint({
  auth: "user",
  params: {
    add: idList.optional(),
    delete: idList.optional(),
    add_subgroups: idList.optional(),
    delete_subgroups: idList.optional(),
  },
  handler: async ({ ctx, user, realm, path, params }) => {
    await transaction(ctx, (tx) => checkUpdateUserGroupMembers(tx, new AccessSubject(user), realm, groupIdOf(path), params));
  },
});

/** POST /user_groups/{user_group_id}/subgroups */
export const updateUserGroupSubgroups = endpoint({
  auth: "user",
  params: { add: idList.optional(), delete: idList.optional() },
  handler: async ({ ctx, user, realm, path, params }) => {
    await transaction(ctx, (tx) => checkUpdateUserGroupSubgroups(tx, new AccessSubject(user), realm, groupIdOf(path), params));
  },
});

/** GET /user_groups/{user_group_id}/members: direct members, or everyone through subgroups too. */
export const getUserGroupMembers = endpoint({
  auth: "user",
  params: { direct_member_only: p.bool().default(false) },
  handler: async ({ ctx, user, path, params }) => {
    requireMemberOrAdmin(user);
    const q = ctx.db.kysely;
    const group = await getUserGroupInRealm(q, user.realm_id, groupIdOf(path));
    if (params.direct_member_only) return { members: await userGroupStore.directActiveMemberIds(q, group.id) };
    return { members: await userGroupStore.activeMemberIdsOfGroups(q, [...(await userGroupStore.withRecursiveSubgroups(q, [group.id]))]) };
  },
});

/** GET /user_groups/{user_group_id}/members/{user_id} */
export const getIsUserGroupMember = endpoint({
  auth: "user",
  params: { direct_member_only: p.bool().default(false) },
  handler: async ({ ctx, user, path, params }) => {
    requireMemberOrAdmin(user);
    const q = ctx.db.kysely;
    const group = await getUserGroupInRealm(q, user.realm_id, groupIdOf(path));
    const target = await accessUserById(q, user, pathParam.int(path.user_id, "user_id"), { forAdministration: false });
    const isMember = params.direct_member_only
      ? (await userGroupStore.directActiveMemberIds(q, group.id)).includes(target.id)
      : (await groupMembershipStore.membersOf(q, group.id, [target.id])).has(target.id);
    return { is_user_group_member: isMember };
  },
});

/** GET /user_groups/{user_group_id}/subgroups: direct subgroups, or every group below. */
export const getUserGroupSubgroups = endpoint({
  auth: "user",
  params: { direct_subgroup_only: p.bool().default(false) },
  handler: async ({ ctx, user, path, params }) => {
    requireMemberOrAdmin(user);
    const q = ctx.db.kysely;
    const group = await getUserGroupInRealm(q, user.realm_id, groupIdOf(path));
    const direct = await userGroupStore.directSubgroupIds(q, group.id);
    if (params.direct_subgroup_only) return { subgroups: direct };
    const below = await userGroupStore.withRecursiveSubgroups(q, direct);
    return { subgroups: [...below].sort((a, b) => a - b) };
  },
});
