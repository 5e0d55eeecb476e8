import type { Selectable } from "kysely";
import type { UserPresencesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type PresenceRow = Selectable<UserPresencesTable>;

/** Zulip's UserPresence: when each user's clients last connected and last saw activity. */
export const presenceStore = {
  async get(q: Executor, userId: number): Promise<PresenceRow | undefined> {
    return q.selectFrom("user_presences").selectAll().where("user_id", "=", userId).executeTakeFirst();
  },

  async upsert(q: Executor, row: PresenceRow): Promise<void> {
    const changes = { last_connected_time: row.last_connected_time, last_active_time: row.last_active_time };
    await q
      .insertInto("user_presences")
      .values(row)
      .onConflict((oc) => oc.column("user_id").doUpdateSet(changes))
      .execute();
  },
};
