import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Imports of an organization from a Zulip or Slack export (`parley import`), so an interrupted one
 * can continue: the organization being filled (deactivated until the import completes), the
 * export's identity, where the import stands (status "running" or "done") and its state as JSON
 * (the id offsets reserved for the export's rows and the steps committed so far).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("import_runs"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("started_at", d.bigint, (c) => c.notNull())
    .addColumn("updated_at", d.bigint, (c) => c.notNull())
    .addColumn("finished_at", d.bigint)
    .execute();
  await db.schema.createIndex("import_runs_realm").on("import_runs").column("realm_id").unique().execute();
}
