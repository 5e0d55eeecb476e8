import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * A bot's defaults (Zulip's UserProfile.default_sending_stream, default_events_register_stream,
 * default_all_public_streams), set through POST/PATCH /bots; lookups of a bot's service and of an
 * account by API key alone (incoming webhooks).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema.alterTable("users").addColumn("default_sending_stream_id", d.bigint, (c) => c.references("streams.id")).execute();
  await db.schema.alterTable("users").addColumn("default_events_register_stream_id", d.bigint, (c) => c.references("streams.id")).execute();
  await db.schema.alterTable("users").addColumn("default_all_public_streams", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex("bot_services_bot").on("bot_services").columns(["bot_id"]).execute();
  // Incoming webhooks authenticate with the api_key alone.
  await db.schema.createIndex("users_api_key").on("users").columns(["api_key"]).execute();
}
