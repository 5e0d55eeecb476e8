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

  /** A custom emoji of the realm by name (active only) or by id, for status emoji checks. */
  async findRealmEmoji(q: Executor, realmId: number, by: { name: string } | { id: number }) {
    let query = q.selectFrom("realm_emoji").select(["id", "name", "deactivated"]).where("realm_id", "=", realmId);
    query = "name" in by ? query.where("name", "=", by.name).where("deactivated", "=", 0) : query.where("id", "=", by.id);
    return query.executeTakeFirst();
  },
};
