import type { Selectable } from "kysely";
import type { RealmLinkifiersTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type RealmLinkifier = Selectable<RealmLinkifiersTable>;

/** An organization's linkifiers (Zulip's RealmFilter), in the order they are applied. */
export const realmLinkifierStore = {
  async listForRealm(q: Executor, realmId: number): Promise<RealmLinkifier[]> {
    return q.selectFrom("realm_linkifiers").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
  },

  async get(q: Executor, realmId: number, id: number): Promise<RealmLinkifier | undefined> {
    return q.selectFrom("realm_linkifiers").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
  },

  async findByPattern(q: Executor, realmId: number, pattern: string): Promise<RealmLinkifier | undefined> {
    return q.selectFrom("realm_linkifiers").selectAll().where("realm_id", "=", realmId).where("pattern", "=", pattern).executeTakeFirst();
  },

  async insert(q: Executor, realmId: number, pattern: string, urlTemplate: string): Promise<number> {
    const last = await q
      .selectFrom("realm_linkifiers")
      .select((eb) => eb.fn.max("order").as("max"))
      .where("realm_id", "=", realmId)
      .executeTakeFirst();
    const order = last?.max == null ? 0 : Number(last.max) + 1;
    const row = await q
      .insertInto("realm_linkifiers")
      .values({ realm_id: realmId, pattern, url_template: urlTemplate, order })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  },

  async update(q: Executor, id: number, pattern: string, urlTemplate: string): Promise<void> {
    await q.updateTable("realm_linkifiers").set({ pattern, url_template: urlTemplate }).where("id", "=", id).execute();
  },

  async setOrder(q: Executor, id: number, order: number): Promise<void> {
    await q.updateTable("realm_linkifiers").set({ order }).where("id", "=", id).execute();
  },

  async delete(q: Executor, id: number): Promise<void> {
    await q.deleteFrom("realm_linkifiers").where("id", "=", id).execute();
  },
};
