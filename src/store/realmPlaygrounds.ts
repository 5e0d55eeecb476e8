import type { Selectable } from "kysely";
import type { RealmPlaygroundsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type RealmPlayground = Selectable<RealmPlaygroundsTable>;

/** An organization's code playgrounds (Zulip's RealmPlayground). */
export const realmPlaygroundStore = {
  async listForRealm(q: Executor, realmId: number): Promise<RealmPlayground[]> {
    return q.selectFrom("realm_playgrounds").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
  },

  async exists(q: Executor, realmId: number, pygmentsLanguage: string, name: string): Promise<boolean> {
    const row = await q
      .selectFrom("realm_playgrounds")
      .select("id")
      .where("realm_id", "=", realmId)
      .where("pygments_language", "=", pygmentsLanguage)
      .where("name", "=", name)
      .executeTakeFirst();
    return row !== undefined;
  },

  async insert(q: Executor, realmId: number, name: string, pygmentsLanguage: string, urlTemplate: string): Promise<number> {
    const row = await q
      .insertInto("realm_playgrounds")
      .values({ realm_id: realmId, name, pygments_language: pygmentsLanguage, url_template: urlTemplate })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  },

  /** Removes the realm's playground; false if it has none with that id. */
  async delete(q: Executor, realmId: number, id: number): Promise<boolean> {
    const result = await q.deleteFrom("realm_playgrounds").where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
