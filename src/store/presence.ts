import { type Selectable, sql } from "kysely";
import type { UserPresencesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type PresenceRow = Selectable<UserPresencesTable>;

/** Zulip's UserPresence: when each user's clients last connected and last saw activity. */
export const presenceStore = {
  async get(q: Executor, userId: number): Promise<PresenceRow | undefined> {
    return q.selectFrom("user_presences").selectAll().where("user_id", "=", userId).executeTakeFirst();
  },

  /** Of `userIds`, those whose clients reported activity at or after `since` (Zulip's filter_presence_idle_user_ids, negated). */
  async activeSince(q: Executor, userIds: readonly number[], since: number): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await q
      .selectFrom("user_presences")
      .select("user_id")
      .where("user_id", "in", [...userIds])
      .where("last_active_time", ">=", since)
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },

  async upsert(q: Executor, row: PresenceRow): Promise<void> {
    const changes = { last_connected_time: row.last_connected_time, last_active_time: row.last_active_time, last_update_id: row.last_update_id };
    await q
      .insertInto("user_presences")
      .values(row)
      .onConflict((oc) => oc.column("user_id").doUpdateSet(changes))
      .execute();
  },

  /** The next number of the organization's presence sequence (Zulip's PresenceSequence), taken under its row lock. */
  async nextUpdateId(q: Executor, realmId: number): Promise<number> {
    const row = await q
      .insertInto("presence_sequences")
      .values({ realm_id: realmId, last_update_id: 1 })
      .onConflict((oc) => oc.column("realm_id").doUpdateSet({ last_update_id: sql<number>`presence_sequences.last_update_id + 1` }))
      .returning("last_update_id")
      .executeTakeFirstOrThrow();
    return Number(row.last_update_id);
  },
};
