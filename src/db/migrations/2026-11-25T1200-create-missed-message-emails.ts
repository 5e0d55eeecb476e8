import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Messages waiting to go out in a user's next missed-message email (Zulip's
 * ScheduledMessageNotificationEmail): one row per (user, message), sent together once the user's
 * email_notifications_batching_period_seconds has passed since the first.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("missed_message_emails"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("message_id", d.bigint, (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("scheduled_at", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("missed_message_emails_user").on("missed_message_emails").columns(["user_id", "message_id"]).unique().execute();
}
