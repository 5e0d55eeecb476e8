import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Saved snippets (Zulip's SavedSnippet), the key-value storage bots keep state in
 * (BotStorageData), and an index for who muted a message's sender (read at every send).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("saved_snippets"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("date_created", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("saved_snippets_user").on("saved_snippets").column("user_id").execute();

  await d
    .addIdColumn(db.schema.createTable("bot_storage"))
    .addColumn("bot_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("bot_storage_bot_key").on("bot_storage").columns(["bot_id", "key"]).unique().execute();
  await db.schema.createIndex("muted_users_muted_user").on("muted_users").column("muted_user_id").execute();
}
