import type { Insertable, Selectable, Updateable } from "kysely";
import type { SavedSnippetsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type SavedSnippet = Selectable<SavedSnippetsTable>;

/** A user's saved snippets (Zulip's SavedSnippet), oldest first. */
export const savedSnippetStore = {
  async listForUser(q: Executor, userId: number): Promise<SavedSnippet[]> {
    return q.selectFrom("saved_snippets").selectAll().where("user_id", "=", userId).orderBy("id").execute();
  },

  async get(q: Executor, userId: number, id: number): Promise<SavedSnippet | undefined> {
    return q.selectFrom("saved_snippets").selectAll().where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
  },

  async insert(q: Executor, row: Insertable<SavedSnippetsTable>): Promise<SavedSnippet> {
    return q.insertInto("saved_snippets").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async update(q: Executor, id: number, changes: Updateable<SavedSnippetsTable>): Promise<void> {
    await q.updateTable("saved_snippets").set(changes).where("id", "=", id).execute();
  },

  async delete(q: Executor, id: number): Promise<void> {
    await q.deleteFrom("saved_snippets").where("id", "=", id).execute();
  },
};
