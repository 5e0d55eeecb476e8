import type { Insertable, Selectable, Updateable } from "kysely";
import type { DraftsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type Draft = Selectable<DraftsTable>;

/** A user's drafts (Zulip's Draft), oldest edit first. */
export const draftStore = {
  async listForUser(q: Executor, userId: number): Promise<Draft[]> {
    return q.selectFrom("drafts").selectAll().where("user_id", "=", userId).orderBy("last_edit_time").orderBy("id").execute();
  },

  async get(q: Executor, userId: number, id: number): Promise<Draft | undefined> {
    return q.selectFrom("drafts").selectAll().where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
  },

  async insertMany(q: Executor, rows: ReadonlyArray<Insertable<DraftsTable>>): Promise<Draft[]> {
    if (rows.length === 0) return [];
    return q
      .insertInto("drafts")
      .values([...rows])
      .returningAll()
      .execute();
  },

  async update(q: Executor, id: number, changes: Updateable<DraftsTable>): Promise<void> {
    await q.updateTable("drafts").set(changes).where("id", "=", id).execute();
  },

  async delete(q: Executor, id: number): Promise<void> {
    await q.deleteFrom("drafts").where("id", "=", id).execute();
  },
};
