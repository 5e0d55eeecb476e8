import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/** Organizations' linkifiers (Zulip's RealmFilter, applied in `order`) and code playgrounds (RealmPlayground). */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("realm_linkifiers"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("pattern", "text", (c) => c.notNull())
    .addColumn("url_template", "text", (c) => c.notNull())
    .addColumn("order", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("realm_linkifiers_realm_pattern").on("realm_linkifiers").columns(["realm_id", "pattern"]).unique().execute();

  await d
    .addIdColumn(db.schema.createTable("realm_playgrounds"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("pygments_language", "text", (c) => c.notNull())
    .addColumn("url_template", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("realm_playgrounds_realm_language_name").on("realm_playgrounds").columns(["realm_id", "pygments_language", "name"]).unique().execute();
}
