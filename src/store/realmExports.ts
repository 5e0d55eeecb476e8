import type { Updateable } from "kysely";
import type { RealmExport, RealmExportsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { ExportStatus } from "../models/realmExport.js";

/** An organization's data exports (Zulip's RealmExport). */
export const realmExportStore = {
  async insert(q: Executor, row: { realm_id: number; acting_user_id: number | null; type: number; date_requested: number }): Promise<number> {
    const inserted = await q
      .insertInto("realm_exports")
      .values({ ...row, status: ExportStatus.REQUESTED })
      .returning("id")
      .executeTakeFirstOrThrow();
    return inserted.id;
  },

  async get(q: Executor, realmId: number, id: number): Promise<RealmExport | undefined> {
    return q.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
  },

  async getById(q: Executor, id: number): Promise<RealmExport | undefined> {
    return q.selectFrom("realm_exports").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async getByPath(q: Executor, exportPath: string): Promise<RealmExport | undefined> {
    return q.selectFrom("realm_exports").selectAll().where("export_path", "=", exportPath).executeTakeFirst();
  },

  /** The exports requested through the API (an acting user), oldest first. */
  async listRequested(q: Executor, realmId: number): Promise<RealmExport[]> {
    return q.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).where("acting_user_id", "is not", null).orderBy("id").execute();
  },

  async countRequestedSince(q: Executor, realmId: number, since: number): Promise<number> {
    const row = await q
      .selectFrom("realm_exports")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("realm_id", "=", realmId)
      .where("date_requested", ">=", since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async update(q: Executor, id: number, changes: Updateable<RealmExportsTable>): Promise<void> {
    await q.updateTable("realm_exports").set(changes).where("id", "=", id).execute();
  },

  /** Keeps a long export's job claimed: its lease runs until `until` (UNIX seconds). */
  async extendJobLease(q: Executor, jobId: number, until: number): Promise<void> {
    await q.updateTable("jobs").set({ locked_until: until }).where("id", "=", jobId).where("status", "=", "running").execute();
  },
};
