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

/** Group membership as the access rules need it: every group that contains a user, through subgroups. */
export const groupMembershipStore = {
  /** Ids of all groups `userId` belongs to, directly or through any chain of subgroups. */
  async groupIdsContainingUser(q: Executor, userId: number): Promise<Set<number>> {
    const found = new Set<number>();
    const direct = await q.selectFrom("user_group_members").select("group_id").where("user_id", "=", userId).execute();
    let frontier = direct.map((r) => r.group_id);
    for (const id of frontier) found.add(id);
    // Walk up to supergroups; the hierarchy is shallow (system groups are 7 deep), so a few rounds.
    while (frontier.length > 0) {
      const parents = await q
        .selectFrom("user_group_subgroups")
        .select("supergroup_id")
        .where("subgroup_id", "in", frontier)
        .execute();
      frontier = [];
      for (const { supergroup_id } of parents) {
        if (!found.has(supergroup_id)) {
          found.add(supergroup_id);
          frontier.push(supergroup_id);
        }
      }
    }
    return found;
  },

  /** Those of `userIds` who are members of `groupId`, directly or through any chain of subgroups. */
  async membersOf(q: Executor, groupId: number, userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const groups = new Set([groupId]);
    let frontier = [groupId];
    while (frontier.length > 0) {
      const children = await q.selectFrom("user_group_subgroups").select("subgroup_id").where("supergroup_id", "in", frontier).execute();
      frontier = children.map((c) => c.subgroup_id).filter((id) => !groups.has(id));
      for (const id of frontier) groups.add(id);
    }
    const rows = await q
      .selectFrom("user_group_members")
      .select("user_id")
      .distinct()
      .where("group_id", "in", [...groups])
      .where("user_id", "in", [...userIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },
};
