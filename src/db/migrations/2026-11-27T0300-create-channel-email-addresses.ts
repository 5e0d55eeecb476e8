import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Channels' incoming email addresses (Zulip's ChannelEmailAddress): one token per channel,
 * creator and sender; mail to `<name>.<token>@<gateway domain>` is posted as `sender`.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("channel_email_addresses"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("channel_id", d.bigint, (c) => c.notNull().references("streams.id"))
    .addColumn("creator_id", d.bigint, (c) => c.references("users.id"))
    .addColumn("sender_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("email_token", "text", (c) => c.notNull())
    .addColumn("date_created", d.bigint, (c) => c.notNull())
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("channel_email_addresses_token").on("channel_email_addresses").column("email_token").unique().execute();
  await db.schema
    .createIndex("channel_email_addresses_channel_creator_sender")
    .on("channel_email_addresses")
    .columns(["channel_id", "creator_id", "sender_id"])
    .unique()
    .execute();
}
