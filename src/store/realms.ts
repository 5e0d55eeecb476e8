import type { Executor } from "../db/tx.js";
import type { Realm, RealmsTable } from "../db/schema.js";
import type { Insertable, Updateable } from "kysely";

export const realmStore = {
  async getById(q: Executor, id: number): Promise<Realm | undefined> {
    return q.selectFrom("realms").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async getByStringId(q: Executor, stringId: string): Promise<Realm | undefined> {
    return q.selectFrom("realms").selectAll().where("string_id", "=", stringId).executeTakeFirst();
  },

  async list(q: Executor): Promise<Realm[]> {
    return q.selectFrom("realms").selectAll().orderBy("id").execute();
  },

  async insert(q: Executor, row: Insertable<RealmsTable>): Promise<Realm> {
    return q.insertInto("realms").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async update(q: Executor, id: number, changes: Updateable<RealmsTable>): Promise<void> {
    await q.updateTable("realms").set(changes).where("id", "=", id).execute();
  },
};
