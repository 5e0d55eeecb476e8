import type { Selectable } from "kysely";
import type { UserStatusesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type UserStatusRow = Selectable<UserStatusesTable>;

export interface UserStatusChanges {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

export const userStatusStore = {
  async get(q: Executor, userId: number): Promise<UserStatusRow | undefined> {
    return q.selectFrom("user_statuses").selectAll().where("user_id", "=", userId).executeTakeFirst();
  },

  /** Creates the row (defaults for absent fields) or changes only the given fields. */
  async upsert(q: Executor, userId: number, changes: UserStatusChanges, timestamp: number): Promise<void> {
    await q
      .insertInto("user_statuses")
      .values({ user_id: userId, ...changes, timestamp })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ ...changes, timestamp }))
      .execute();
  },
};
