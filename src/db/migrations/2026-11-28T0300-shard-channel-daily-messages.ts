import { type Kysely, sql } from "kysely";

/**
 * Each channel's daily count is split over 16 rows (`shard`: the message id modulo 16). Every send
 * to a channel updates its count in the send's transaction; on PostgreSQL, concurrent sends to one
 * channel waited for each other's COMMIT on the single (channel, day) row lock, which made a busy
 * channel's sends one at a time (59 ms of a 70 ms send under 10 in flight). Readers sum the shards.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("channel_daily_message_counts")
    .addColumn("recipient_id", "bigint", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("shard", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("count", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("channel_daily_message_counts_pk", ["recipient_id", "day", "shard"])
    .execute();
  await sql`insert into channel_daily_message_counts (recipient_id, day, shard, count)
    select recipient_id, day, 0, count from channel_daily_messages`.execute(db);
  await db.schema.dropTable("channel_daily_messages").execute();
}
