import type { Kysely } from "kysely";

/**
 * Event queues saved at a graceful shutdown and restored at the next start (src/events/queues.ts).
 * Between starts only; a running server keeps its queues in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("event_queues")
    .addColumn("id", "varchar(64)", (col) => col.primaryKey())
    .addColumn("user_id", "integer", (col) => col.notNull().references("users.id").onDelete("cascade"))
    .addColumn("data", "text", (col) => col.notNull())
    .execute();
}
