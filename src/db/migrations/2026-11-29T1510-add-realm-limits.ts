import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Limits an operator sets on an organization (`parley set-organization-limits`); null is unlimited.
 * max_users: active human accounts (bots do not count), as Zulip Cloud's plan user limit.
 * upload_quota_mib: total size of the organization's uploaded files (Zulip's upload_quota_gb).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const realms = (await db.introspection.getTables()).find((table) => table.name === "realms");
  if (realms?.columns.some((column) => column.name === "max_users")) return;
  await db.schema.alterTable("realms").addColumn("max_users", d.bigint).execute();
  await db.schema.alterTable("realms").addColumn("upload_quota_mib", d.bigint).execute();
}
