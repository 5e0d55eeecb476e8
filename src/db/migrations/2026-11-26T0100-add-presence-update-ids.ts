import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Zulip's UserPresence.last_update_id and PresenceSequence: every presence change takes the next
 * number of its organization's sequence, so POST /users/me/presence can send a client only the
 * presences changed since the last_update_id it has (and the highest id it sent).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema.alterTable("user_presences").addColumn("last_update_id", d.bigint, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable("presence_sequences")
    .addColumn("realm_id", d.bigint, (c) => c.primaryKey().references("realms.id"))
    .addColumn("last_update_id", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("user_presences_realm_update").on("user_presences").columns(["realm_id", "last_update_id"]).execute();
}
