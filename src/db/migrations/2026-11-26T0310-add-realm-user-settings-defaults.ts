import type { Kysely } from "kysely";

/** The settings new users of an organization start with (Zulip's RealmUserDefault): JSON, only values that differ from the built-in defaults. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("realms").addColumn("user_settings_defaults", "text", (c) => c.notNull().defaultTo("{}")).execute();
}
