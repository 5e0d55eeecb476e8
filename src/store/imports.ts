import { dialectOf } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import { noteAuthChange } from "../db/authCache.js";
import type { Executor } from "../db/tx.js";

/**
 * The writes of an organization import (actions/import/): rows whose ids the importer has already
 * remapped, inserted by batches; the reservation of id ranges; and the import_runs state row.
 */
export type ImportTable = keyof Database;
export type ImportRow = Record<string, unknown>;

export const importStore = {
  /** Rows the importer has built from the table's columns (actions/import/zulipRows.ts), all with the same columns. */
  insertRows: (q: Executor, table: ImportTable, rows: readonly ImportRow[]): Promise<void> => dialectOf(q).insertMany(q, table, rows),

  async updateById(q: Executor, table: "users" | "user_groups" | "realms", id: number, changes: ImportRow): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await q
      .updateTable(table)
      .set(changes as never)
      .where("id", "=", id)
      .execute();
  },

  async maxId(q: Executor, table: ImportTable): Promise<number> {
    const row = await q
      .selectFrom(table)
      .select((eb) => eb.fn.max<number | null>(eb.ref("id" as never)).as("max"))
      .executeTakeFirst();
    return Number(row?.max ?? 0);
  },

  /** Keeps new rows' ids above `minimum`, so the range under it stays the import's. */
  reserveIds: (q: Executor, table: ImportTable, minimum: number) => dialectOf(q).bumpIdSequence(q, table, minimum),

  createRealm: (q: Executor, row: ImportRow) =>
    q
      .insertInto("realms")
      .values(row as never)
      .returning("id")
      .executeTakeFirstOrThrow()
      .then((r) => r.id),

  setRealmDeactivated: async (q: Executor, realmId: number, deactivated: 0 | 1) => {
    await q.updateTable("realms").set({ deactivated }).where("id", "=", realmId).execute();
    noteAuthChange(q, { realmId });
  },

  runByRealm: (q: Executor, realmId: number) => q.selectFrom("import_runs").selectAll().where("realm_id", "=", realmId).executeTakeFirst(),

  createRun: (q: Executor, realmId: number, source: string, state: string, now: number) =>
    q.insertInto("import_runs").values({ realm_id: realmId, source, status: "running", state, started_at: now, updated_at: now }).execute(),

  saveRunState: (q: Executor, realmId: number, state: string, now: number) =>
    q.updateTable("import_runs").set({ state, updated_at: now }).where("realm_id", "=", realmId).execute(),

  finishRun: (q: Executor, realmId: number, state: string, now: number) =>
    q.updateTable("import_runs").set({ state, status: "done", updated_at: now, finished_at: now }).where("realm_id", "=", realmId).execute(),

  /** The active system bots by email (the export's zerver_userprofile_crossrealm maps onto them). */
  systemBotsByEmail: (q: Executor, systemRealm: string) =>
    q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .select(["users.id", "users.email", "users.recipient_id"])
      .where("realms.string_id", "=", systemRealm)
      .execute(),
};
