import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Data exports of an organization (Zulip's RealmExport): who asked (null for `parley export`),
 * public (1) or full with consent (2), where it stands (status: 0 requested, 1 started,
 * 2 succeeded, 3 failed, 4 deleted) with the time of each step, and the tarball's blob key.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("realm_exports"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("acting_user_id", d.bigint, (c) => c.references("users.id"))
    .addColumn("type", d.bigint, (c) => c.notNull())
    .addColumn("status", d.bigint, (c) => c.notNull())
    .addColumn("date_requested", d.bigint, (c) => c.notNull())
    .addColumn("date_started", d.bigint)
    .addColumn("date_succeeded", d.bigint)
    .addColumn("date_failed", d.bigint)
    .addColumn("date_deleted", d.bigint)
    .addColumn("export_path", "text")
    .addColumn("sha256sum_hex", "text")
    .addColumn("tarball_size_bytes", d.bigint)
    .addColumn("stats", "text")
    .execute();
  await db.schema.createIndex("realm_exports_realm_requested").on("realm_exports").columns(["realm_id", "date_requested"]).execute();
}
