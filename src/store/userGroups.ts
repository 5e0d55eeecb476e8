import type { Insertable } from "kysely";
import type { UserGroup, UserGroupsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export const userGroupStore = {
  async insert(q: Executor, row: Insertable<UserGroupsTable>): Promise<UserGroup> {
    return q.insertInto("user_groups").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async getById(q: Executor, realmId: number, id: number): Promise<UserGroup | undefined> {
    return q.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
  },

  async getSystemGroup(q: Executor, realmId: number, name: string): Promise<UserGroup> {
    return q
      .selectFrom("user_groups")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("is_system_group", "=", 1)
      .where("name", "=", name)
      .executeTakeFirstOrThrow();
  },

  async listSystemGroups(q: Executor, realmId: number): Promise<UserGroup[]> {
    return q.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("is_system_group", "=", 1).orderBy("id").execute();
  },

  async addMembers(q: Executor, groupId: number, userIds: readonly number[]): Promise<void> {
    if (userIds.length === 0) return;
    await q
      .insertInto("user_group_members")
      .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  async removeMemberFromGroups(q: Executor, userId: number, groupIds: readonly number[]): Promise<void> {
    if (groupIds.length === 0) return;
    await q.deleteFrom("user_group_members").where("user_id", "=", userId).where("group_id", "in", groupIds).execute();
  },

  async addSubgroups(q: Executor, supergroupId: number, subgroupIds: readonly number[]): Promise<void> {
    if (subgroupIds.length === 0) return;
    await q
      .insertInto("user_group_subgroups")
      .values(subgroupIds.map((subgroup_id) => ({ supergroup_id: supergroupId, subgroup_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },
};
