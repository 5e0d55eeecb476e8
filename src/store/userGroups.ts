import { type Insertable, sql, type Updateable } from "kysely";
import type { Dialect } from "../db/dialect.js";
import type { UserGroup, UserGroupsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { insertInBatches } from "./batches.js";

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
    await insertInBatches(
      userIds.map((user_id) => ({ group_id: groupId, user_id })),
      (batch) =>
        q
          .insertInto("user_group_members")
          .values(batch)
          .onConflict((oc) => oc.doNothing())
          .execute(),
    );
  },

  async removeMemberFromGroups(q: Executor, userId: number, groupIds: readonly number[]): Promise<void> {
    if (groupIds.length === 0) return;
    await q.deleteFrom("user_group_members").where("user_id", "=", userId).where("group_id", "in", groupIds).execute();
  },

  async addSubgroups(q: Executor, supergroupId: number, subgroupIds: readonly number[]): Promise<void> {
    if (subgroupIds.length === 0) return;
    await insertInBatches(
      subgroupIds.map((subgroup_id) => ({ supergroup_id: supergroupId, subgroup_id })),
      (batch) =>
        q
          .insertInto("user_group_subgroups")
          .values(batch)
          .onConflict((oc) => oc.doNothing())
          .execute(),
    );
  },

  // ---- named user groups (the /user_groups endpoints) ----

  /** A named (non-anonymous) group of the realm, locked until the transaction ends when `lock` is given. */
  async getNamed(q: Executor, realmId: number, id: number, lock?: Dialect): Promise<UserGroup | undefined> {
    const query = q.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("id", "=", id).where("named", "=", 1);
    return (lock ? lock.forUpdate(query) : query).executeTakeFirst();
  },

  /** Named groups of the realm by id (any of them may be missing). */
  async listNamedByIds(q: Executor, realmId: number, ids: readonly number[]): Promise<UserGroup[]> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("user_groups")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("named", "=", 1)
      .where("id", "in", [...new Set(ids)])
      .execute();
  },

  /** Named groups of the realm, ascending ids; deactivated ones only when asked. */
  async listNamed(q: Executor, realmId: number, includeDeactivated: boolean): Promise<UserGroup[]> {
    let query = q.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("named", "=", 1);
    if (!includeDeactivated) query = query.where("deactivated", "=", 0);
    return query.orderBy("id").execute();
  },

  /** Whether a named group of the realm has exactly this name (names are unique per realm, case-sensitively). */
  async nameTaken(q: Executor, realmId: number, name: string): Promise<boolean> {
    const row = await q
      .selectFrom("user_groups")
      .select("id")
      .where("realm_id", "=", realmId)
      .where("named", "=", 1)
      .where("name", "=", name)
      .executeTakeFirst();
    return row !== undefined;
  },

  async update(q: Executor, id: number, changes: Updateable<UserGroupsTable>): Promise<void> {
    await q.updateTable("user_groups").set(changes).where("id", "=", id).execute();
  },

  async removeMembers(q: Executor, groupId: number, userIds: readonly number[]): Promise<void> {
    if (userIds.length === 0) return;
    await q
      .deleteFrom("user_group_members")
      .where("group_id", "=", groupId)
      .where("user_id", "in", [...userIds])
      .execute();
  },

  async removeSubgroups(q: Executor, supergroupId: number, subgroupIds: readonly number[]): Promise<void> {
    if (subgroupIds.length === 0) return;
    await q
      .deleteFrom("user_group_subgroups")
      .where("supergroup_id", "=", supergroupId)
      .where("subgroup_id", "in", [...subgroupIds])
      .execute();
  },

  /** Direct members of a group, active accounts only, ascending. */
  async directActiveMemberIds(q: Executor, groupId: number): Promise<number[]> {
    const rows = await q
      .selectFrom("user_group_members")
      .innerJoin("users", "users.id", "user_group_members.user_id")
      .select("user_group_members.user_id")
      .where("user_group_members.group_id", "=", groupId)
      .where("users.is_active", "=", 1)
      .orderBy("user_group_members.user_id")
      .execute();
    return rows.map((r) => r.user_id);
  },

  /** Those of `userIds` who are direct members (active or not, as Zulip's get_direct_memberships_of_users). */
  async directMembersAmong(q: Executor, groupId: number, userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await q
      .selectFrom("user_group_members")
      .select("user_id")
      .where("group_id", "=", groupId)
      .where("user_id", "in", [...userIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },

  async directSubgroupIds(q: Executor, groupId: number): Promise<number[]> {
    const rows = await q.selectFrom("user_group_subgroups").select("subgroup_id").where("supergroup_id", "=", groupId).orderBy("subgroup_id").execute();
    return rows.map((r) => r.subgroup_id);
  },

  /** `groupIds` and every group below them through any chain of subgroups. */
  async withRecursiveSubgroups(q: Executor, groupIds: readonly number[]): Promise<Set<number>> {
    const seen = new Set(groupIds);
    let frontier = [...seen];
    while (frontier.length > 0) {
      const rows = await q.selectFrom("user_group_subgroups").select("subgroup_id").where("supergroup_id", "in", frontier).execute();
      frontier = [...new Set(rows.map((r) => r.subgroup_id))].filter((id) => !seen.has(id));
      for (const id of frontier) seen.add(id);
    }
    return seen;
  },

  /** Active users who belong to any of `groupIds` directly, ascending. */
  async activeMemberIdsOfGroups(q: Executor, groupIds: readonly number[]): Promise<number[]> {
    if (groupIds.length === 0) return [];
    const rows = await q
      .selectFrom("user_group_members")
      .innerJoin("users", "users.id", "user_group_members.user_id")
      .select("user_group_members.user_id")
      .distinct()
      .where("user_group_members.group_id", "in", [...groupIds])
      .where("users.is_active", "=", 1)
      .orderBy("user_group_members.user_id")
      .execute();
    return rows.map((r) => r.user_id);
  },

  /** The groups that have `groupId` as a direct subgroup, with whether each is named and deactivated. */
  async directSupergroups(q: Executor, groupId: number) {
    return q
      .selectFrom("user_group_subgroups")
      .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.supergroup_id")
      .select(["user_groups.id", "user_groups.named", "user_groups.deactivated"])
      .where("user_group_subgroups.subgroup_id", "=", groupId)
      .orderBy("user_groups.id")
      .execute();
  },

  /** Active (not archived) channels of the realm with any group setting among `groupIds`. */
  async channelsUsingGroups(q: Executor, realmId: number, groupIds: readonly number[]) {
    if (groupIds.length === 0) return [];
    const ids = [...groupIds];
    return q
      .selectFrom("streams")
      .select([
        "id",
        "can_add_subscribers_group_id",
        "can_administer_channel_group_id",
        "can_remove_subscribers_group_id",
        "can_send_message_group_id",
        "can_subscribe_group_id",
      ])
      .where("realm_id", "=", realmId)
      .where("is_archived", "=", 0)
      .where((eb) =>
        eb.or([
          eb("can_add_subscribers_group_id", "in", ids),
          eb("can_administer_channel_group_id", "in", ids),
          eb("can_remove_subscribers_group_id", "in", ids),
          eb("can_send_message_group_id", "in", ids),
          eb("can_subscribe_group_id", "in", ids),
        ]),
      )
      .orderBy("id")
      .execute();
  },

  /** Active named groups of the realm with any group setting among `groupIds`. */
  async namedGroupsUsingGroups(q: Executor, realmId: number, groupIds: readonly number[]): Promise<UserGroup[]> {
    if (groupIds.length === 0) return [];
    const ids = [...groupIds];
    return q
      .selectFrom("user_groups")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("named", "=", 1)
      .where("deactivated", "=", 0)
      .where((eb) =>
        eb.or([
          eb("can_add_members_group_id", "in", ids),
          eb("can_join_group_id", "in", ids),
          eb("can_leave_group_id", "in", ids),
          eb("can_manage_group_id", "in", ids),
          eb("can_mention_group_id", "in", ids),
          eb("can_remove_members_group_id", "in", ids),
        ]),
      )
      .orderBy("id")
      .execute();
  },
};

/**
 * The CTE `containing(group_id)`: the groups `userId` is a direct member of, and their supergroups
 * through any chain of subgroups (UNION, not UNION ALL, so a cycle ends the recursion).
 */
const containingGroups = (userId: number) => sql`with recursive containing(group_id) as (
    select group_id from user_group_members where user_id = ${userId}
    union
    select s.supergroup_id from user_group_subgroups s join containing c on c.group_id = s.subgroup_id
  )`;

/** Group membership as the access rules need it: every group that contains a user, through subgroups. */
export const groupMembershipStore = {
  /** Ids of all groups `userId` belongs to, directly or through any chain of subgroups (one statement). */
  async groupIdsContainingUser(q: Executor, userId: number): Promise<Set<number>> {
    const rows = await sql<{ group_id: number }>`${containingGroups(userId)} select group_id from containing`.execute(q);
    return new Set(rows.rows.map((r) => Number(r.group_id)));
  },

  /**
   * What the access rules ask about a user, in one statement: the groups containing the user (as
   * groupIdsContainingUser) and the recipient ids of the user's active subscriptions.
   */
  async groupIdsAndSubscriptions(q: Executor, userId: number): Promise<{ groupIds: Set<number>; subscribedRecipientIds: Set<number> }> {
    const rows = await sql<{ kind: string; id: number }>`${containingGroups(userId)}
      select 'group' as kind, group_id as id from containing
      union all
      select 'subscription' as kind, recipient_id as id from subscriptions where user_id = ${userId} and active = 1`.execute(q);
    const groupIds = new Set<number>();
    const subscribedRecipientIds = new Set<number>();
    for (const row of rows.rows) (row.kind === "group" ? groupIds : subscribedRecipientIds).add(Number(row.id));
    return { groupIds, subscribedRecipientIds };
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
