import type { Kysely } from "kysely";

/**
 * Rate-limit counters shared by the processes of multi-process mode (src/http/rateLimit.ts): one
 * fixed window per key. A single process keeps its counters in memory and leaves this table empty.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "varchar(300)", (col) => col.primaryKey())
    // Milliseconds since the epoch.
    .addColumn("window_started_ms", "bigint", (col) => col.notNull())
    .addColumn("expires_ms", "bigint", (col) => col.notNull())
    .addColumn("count", "integer", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("rate_limits_expires_idx").on("rate_limits").column("expires_ms").execute();
}
