import { type Kysely, sql } from "kysely";

/**
 * Messages per channel per day (Zulip keeps such counts in its analytics tables): what
 * stream_weekly_traffic and is_recently_active are computed from, so POST /register no longer
 * scans six months of messages. Filled from the existing messages here, then counted at send.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("channel_daily_messages")
    .addColumn("recipient_id", "bigint", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("channel_daily_messages_pk", ["recipient_id", "day"])
    .execute();
  await sql`insert into channel_daily_messages (recipient_id, day, count)
    select recipient_id, date_sent / 86400, count(*) from messages where is_channel_message = 1
    group by recipient_id, date_sent / 86400`.execute(db);
}
