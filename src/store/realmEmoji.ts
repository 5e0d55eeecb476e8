import { type Insertable, type Selectable, sql } from "kysely";
import type { RealmEmojiTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type RealmEmoji = Selectable<RealmEmojiTable>;

/** Custom emoji of a realm. A row whose file_name is null is still being uploaded. */
export const realmEmojiStore = {
  /** Inserts an active emoji; undefined when the realm already has an active one of that name. */
  async insertIfNameFree(q: Executor, row: Insertable<RealmEmojiTable>): Promise<RealmEmoji | undefined> {
    return (
      q
        .insertInto("realm_emoji")
        .values(row)
        // The conflict target is the partial index realm_emoji_active_name (its predicate inlined).
        .onConflict((oc) =>
          oc
            .columns(["realm_id", "name"])
            .where(sql<boolean>`deactivated = 0`)
            .doNothing(),
        )
        .returningAll()
        .executeTakeFirst()
    );
  },

  /** Every uploaded emoji of the realm, deactivated ones included, by id. */
  async listInRealm(q: Executor, realmId: number): Promise<RealmEmoji[]> {
    return q.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("file_name", "is not", null).orderBy("id").execute();
  },

  /** The active emoji called `name` (at most one: a unique partial index). */
  async getActiveByName(q: Executor, realmId: number, name: string): Promise<RealmEmoji | undefined> {
    return q
      .selectFrom("realm_emoji")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("name", "=", name)
      .where("deactivated", "=", 0)
      .where("file_name", "is not", null)
      .executeTakeFirst();
  },

  async getById(q: Executor, realmId: number, id: number): Promise<RealmEmoji | undefined> {
    return q.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("id", "=", id).where("file_name", "is not", null).executeTakeFirst();
  },

  async deactivate(q: Executor, id: number): Promise<void> {
    await q.updateTable("realm_emoji").set({ deactivated: 1 }).where("id", "=", id).execute();
  },
};
