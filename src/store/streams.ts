import { type Insertable, sql, type Updateable } from "kysely";
import type { Stream, StreamsTable, Unlinked } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { lowered } from "./caseless.js";
import { RecipientType } from "../models/roles.js";
import { insertInBatches } from "./batches.js";
import { compiledQuery } from "../db/compiledQuery.js";
import { defined } from "../util/defined.js";

// The shapes every channel send runs, compiled once (db/compiledQuery.ts).
const streamByName = compiledQuery((db, p: { realmId: number; name: string }) =>
  db
    .selectFrom("streams")
    .selectAll()
    .where("realm_id", "=", p.realmId)
    .where((eb) => eb(eb.fn("lower", ["name"]), "=", lowered(p.name))),
);
type DailyCount = { recipient_id: number; day: number; shard: number; count: number };
/** Adds `rows`' counts to their days' rows. */
const addDailyCounts = (db: Executor, rows: DailyCount | DailyCount[]) =>
  db
    .insertInto("channel_daily_message_counts")
    .values(rows)
    .onConflict((oc) => oc.columns(["recipient_id", "day", "shard"]).doUpdateSet({ count: sql<number>`channel_daily_message_counts.count + excluded.count` }));
const countOneChannelMessage = compiledQuery((db, p: DailyCount) =>
  addDailyCounts(db, { recipient_id: p.recipient_id, day: p.day, shard: p.shard, count: p.count }),
);

export { subscriptionStore } from "./subscriptions.js";

/** A channel to insert; its recipient is linked after (see OwnRecipientId in db/schema.ts). */
type NewStream = Omit<Insertable<StreamsTable>, "recipient_id">;

const DAY_SECONDS = 86400;
/** Rows a channel's count of one day is split over (channel_daily_message_counts.shard). */
const DAILY_COUNT_SHARDS = 16;

export const streamStore = {
  /** The channel comes back without its recipient, which the caller links. */
  async insert(q: Executor, row: NewStream): Promise<Unlinked<Stream>> {
    return { ...(await q.insertInto("streams").values(row).returningAll().executeTakeFirstOrThrow()), recipient_id: null };
  },

  /** One statement for all `rows`; the channels come back in the order of `rows` (ids ascending). */
  async insertMany(q: Executor, rows: readonly NewStream[]): Promise<Unlinked<Stream>[]> {
    if (rows.length === 0) return [];
    const inserted = await insertInBatches(rows, (batch) => q.insertInto("streams").values(batch).returningAll().execute());
    return inserted.map((s) => ({ ...s, recipient_id: null })).sort((a, b) => a.id - b.id);
  },

  async update(q: Executor, id: number, changes: Updateable<StreamsTable>): Promise<void> {
    await q.updateTable("streams").set(changes).where("id", "=", id).execute();
  },

  /** Sets each channel's recipient_id to its channel recipient (one statement for all). */
  async linkRecipients(q: Executor, streamIds: readonly number[]): Promise<void> {
    if (streamIds.length === 0) return;
    await q
      .updateTable("streams")
      .set((eb) => ({
        recipient_id: eb
          .selectFrom("recipients")
          .select("recipients.id")
          .where("recipients.type", "=", RecipientType.STREAM)
          .whereRef("recipients.type_id", "=", "streams.id"),
      }))
      .where("id", "in", [...streamIds])
      .execute();
  },

  async getById(q: Executor, realmId: number, id: number): Promise<Stream | undefined> {
    return q.selectFrom("streams").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
  },

  /** Channel names are unique case-insensitively within a realm. */
  async getByName(q: Executor, realmId: number, name: string): Promise<Stream | undefined> {
    return streamByName.first(q, { realmId, name });
  },

  async listByNames(q: Executor, realmId: number, names: readonly string[]): Promise<Stream[]> {
    if (names.length === 0) return [];
    return q
      .selectFrom("streams")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where((eb) => eb(eb.fn("lower", ["name"]), "in", [...new Set(names)].map(lowered)))
      .execute();
  },

  async listByIds(q: Executor, realmId: number, ids: readonly number[]): Promise<Stream[]> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("streams")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("id", "in", [...ids])
      .execute();
  },

  async listInRealm(q: Executor, realmId: number, opts: { excludeArchived: boolean }): Promise<Stream[]> {
    let query = q.selectFrom("streams").selectAll().where("realm_id", "=", realmId);
    if (opts.excludeArchived) query = query.where("is_archived", "=", 0);
    return query.orderBy("id").execute();
  },

  async listByRecipientIds(q: Executor, realmId: number, recipientIds: readonly number[]): Promise<Stream[]> {
    if (recipientIds.length === 0) return [];
    return q.selectFrom("streams").selectAll().where("realm_id", "=", realmId).where("recipient_id", "in", recipientIds).execute();
  },

  /** Makes the channels default channels of the realm (new users are subscribed to them). */
  async addDefaultStreams(q: Executor, realmId: number, streamIds: readonly number[]): Promise<void> {
    if (streamIds.length === 0) return;
    await insertInBatches(
      streamIds.map((stream_id) => ({ realm_id: realmId, stream_id })),
      (batch) =>
        q
          .insertInto("default_streams")
          .values(batch)
          .onConflict((oc) => oc.doNothing())
          .execute(),
    );
  },

  async removeDefaultStream(q: Executor, realmId: number, streamId: number): Promise<void> {
    await q.deleteFrom("default_streams").where("realm_id", "=", realmId).where("stream_id", "=", streamId).execute();
  },

  async defaultStreamIds(q: Executor, realmId: number): Promise<Set<number>> {
    const rows = await q.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realmId).execute();
    return new Set(rows.map((r) => r.stream_id));
  },

  /**
   * Per channel recipient, from the daily counts: messages sent on the days since `trafficSince`,
   * and the start of the last day with a message (when it is after `activeSince`). At most one
   * row per channel and day is read, whatever the number of messages.
   */
  async messageActivity(
    q: Executor,
    recipientIds: readonly number[],
    trafficSince: number,
    activeSince: number,
  ): Promise<Map<number, { recentCount: number; lastSent: number }>> {
    const result = new Map<number, { recentCount: number; lastSent: number }>();
    if (recipientIds.length === 0) return result;
    const trafficDay = Math.floor(trafficSince / DAY_SECONDS);
    const sinceDay = Math.floor(Math.min(trafficSince, activeSince) / DAY_SECONDS);
    const rows = await q
      .selectFrom("channel_daily_message_counts")
      .select((eb) => [
        "recipient_id",
        eb.fn.max("day").as("last_day"),
        eb.fn.sum<number>(eb.case().when("day", ">=", trafficDay).then(eb.ref("count")).else(0).end()).as("recent_count"),
      ])
      .where("recipient_id", "in", [...recipientIds])
      .where("day", ">=", sinceDay)
      .groupBy("recipient_id")
      .execute();
    for (const row of rows) {
      result.set(Number(row.recipient_id), { recentCount: Number(row.recent_count ?? 0), lastSent: Number(row.last_day ?? 0) * DAY_SECONDS });
    }
    return result;
  },

  /** Counts new channel messages in their days: one statement for all, whatever the number of channels. */
  async countChannelMessages(q: Executor, messages: ReadonlyArray<{ recipientId: number; id: number; dateSent: number }>): Promise<void> {
    // One row per (recipient, day, shard): an upsert may not touch the same row twice in one statement.
    const counts = new Map<string, DailyCount>();
    for (const { recipientId, id, dateSent } of messages) {
      const day = Math.floor(dateSent / DAY_SECONDS);
      const shard = id % DAILY_COUNT_SHARDS;
      const key = `${recipientId} ${day} ${shard}`;
      const entry = counts.get(key);
      if (entry) entry.count += 1;
      else counts.set(key, { recipient_id: recipientId, day, shard, count: 1 });
    }
    if (counts.size === 0) return;
    // A send counts one message: its compiled shape.
    const [only] = counts.values();
    if (counts.size === 1 && only !== undefined) return void (await countOneChannelMessage.execute(q, only));
    await insertInBatches([...counts.values()], (batch) => addDailyCounts(q, batch).execute());
  },

  /** Recomputes every daily count from the messages (bulk loaders). */
  async rebuildDailyCounts(q: Executor): Promise<void> {
    await q.deleteFrom("channel_daily_message_counts").execute();
    await sql`insert into channel_daily_message_counts (recipient_id, day, count)
      select recipient_id, date_sent / 86400, count(*) from messages where is_channel_message = 1
      group by recipient_id, date_sent / 86400`.execute(q);
  },
};

/** The user groups behind group-setting values: named groups by id, anonymous groups by members. */
export const settingGroupStore = {
  async listByIds(q: Executor, realmId: number, ids: readonly number[]) {
    if (ids.length === 0) return [];
    return q
      .selectFrom("user_groups")
      .select(["id", "name", "named", "is_system_group", "deactivated"])
      .where("realm_id", "=", realmId)
      .where("id", "in", [...new Set(ids)])
      .execute();
  },

  /** Direct members (active accounts only) and direct subgroups of each group, ascending ids (one statement). */
  async directMembership(q: Executor, groupIds: readonly number[]): Promise<Map<number, { members: number[]; subgroups: number[] }>> {
    const result = new Map(groupIds.map((id) => [id, { members: [] as number[], subgroups: [] as number[] }]));
    if (groupIds.length === 0) return result;
    const members = q
      .selectFrom("user_group_members")
      .innerJoin("users", "users.id", "user_group_members.user_id")
      .select([sql<string>`'member'`.as("kind"), "user_group_members.group_id as group_id", "user_group_members.user_id as id"])
      .where("user_group_members.group_id", "in", groupIds)
      .where("users.is_active", "=", 1);
    const subgroups = q
      .selectFrom("user_group_subgroups")
      .select([sql<string>`'subgroup'`.as("kind"), "supergroup_id as group_id", "subgroup_id as id"])
      .where("supergroup_id", "in", groupIds);
    const rows = await members.unionAll(subgroups).orderBy("id").execute();
    for (const row of rows) {
      const entry = result.get(Number(row.group_id))!;
      (row.kind === "member" ? entry.members : entry.subgroups).push(Number(row.id));
    }
    return result;
  },

  /**
   * All active members of each group, directly or through any chain of subgroups: one statement
   * for all the groups (UNION, not UNION ALL, so a cycle ends the recursion).
   */
  async recursiveMemberIds(q: Executor, groupIds: readonly number[]): Promise<Map<number, Set<number>>> {
    const roots = [...new Set(groupIds)];
    const result = new Map(roots.map((id) => [id, new Set<number>()]));
    if (roots.length === 0) return result;
    const rows = await sql<{ root: number; user_id: number }>`with recursive tree(root, group_id) as (
        select id, id from user_groups where id in (${sql.join(roots)})
        union
        select t.root, s.subgroup_id from user_group_subgroups s join tree t on t.group_id = s.supergroup_id
      )
      select t.root as root, m.user_id as user_id from tree t
        join user_group_members m on m.group_id = t.group_id
        join users u on u.id = m.user_id
      where u.is_active = 1`.execute(q);
    for (const row of rows.rows) result.get(Number(row.root))?.add(Number(row.user_id));
    return result;
  },

  /** Anonymous groups, one insert per table for all; their ids in the order of `groups`. */
  async createAnonymousMany(
    q: Executor,
    realmId: number,
    groups: ReadonlyArray<{ members: readonly number[]; subgroups: readonly number[] }>,
  ): Promise<number[]> {
    if (groups.length === 0) return [];
    const rows = await insertInBatches(
      groups.map(() => ({ realm_id: realmId, name: null, named: 0 as const, is_system_group: 0 as const })),
      (batch) => q.insertInto("user_groups").values(batch).returning("id").execute(),
    );
    // Ids are handed out in the order of the rows.
    const ids = rows.map((r) => r.id).sort((a, b) => a - b);
    const idOf = (i: number) => defined(ids[i], `the id of new group ${i}`);
    const members = groups.flatMap((g, i) => g.members.map((user_id) => ({ group_id: idOf(i), user_id })));
    const subgroups = groups.flatMap((g, i) => g.subgroups.map((subgroup_id) => ({ supergroup_id: idOf(i), subgroup_id })));
    await insertInBatches(members, (batch) => q.insertInto("user_group_members").values(batch).execute());
    await insertInBatches(subgroups, (batch) => q.insertInto("user_group_subgroups").values(batch).execute());
    return ids;
  },

  async createAnonymous(q: Executor, realmId: number, members: readonly number[], subgroups: readonly number[]): Promise<number> {
    const row = await q
      .insertInto("user_groups")
      .values({ realm_id: realmId, name: null, named: 0, is_system_group: 0 })
      .returning("id")
      .executeTakeFirstOrThrow();
    await settingGroupStore.setMembership(q, row.id, members, subgroups, false);
    return row.id;
  },

  /** Replaces an anonymous group's direct members and subgroups. */
  async setMembership(q: Executor, groupId: number, members: readonly number[], subgroups: readonly number[], clear = true): Promise<void> {
    if (clear) {
      await q.deleteFrom("user_group_members").where("group_id", "=", groupId).execute();
      await q.deleteFrom("user_group_subgroups").where("supergroup_id", "=", groupId).execute();
    }
    await insertInBatches(
      members.map((user_id) => ({ group_id: groupId, user_id })),
      (batch) => q.insertInto("user_group_members").values(batch).execute(),
    );
    await insertInBatches(
      subgroups.map((subgroup_id) => ({ supergroup_id: groupId, subgroup_id })),
      (batch) => q.insertInto("user_group_subgroups").values(batch).execute(),
    );
  },

  async deleteAnonymous(q: Executor, groupId: number): Promise<void> {
    await q.deleteFrom("user_group_members").where("group_id", "=", groupId).execute();
    await q.deleteFrom("user_group_subgroups").where("supergroup_id", "=", groupId).execute();
    await q.deleteFrom("user_groups").where("id", "=", groupId).where("named", "=", 0).execute();
  },
};
