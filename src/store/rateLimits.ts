import { sql } from "kysely";
import type { Executor } from "../db/tx.js";

/** Rate-limit windows shared by the processes of multi-process mode (http/rateLimit.ts). */
export const rateLimitStore = {
  /**
   * Counts one hit against `key` in one statement: a window that has expired starts again at
   * `nowMs`. Returns the window's start and its count including this hit.
   */
  async hit(q: Executor, key: string, nowMs: number, windowMs: number): Promise<{ startedMs: number; count: number }> {
    const row = await q
      .insertInto("rate_limits")
      .values({ key, window_started_ms: nowMs, expires_ms: nowMs + windowMs, count: 1 })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet({
          window_started_ms: sql`case when rate_limits.expires_ms <= ${nowMs} then ${nowMs} else rate_limits.window_started_ms end`,
          expires_ms: sql`case when rate_limits.expires_ms <= ${nowMs} then ${nowMs + windowMs} else rate_limits.expires_ms end`,
          count: sql`case when rate_limits.expires_ms <= ${nowMs} then 1 else rate_limits.count + 1 end`,
        }),
      )
      .returning(["window_started_ms", "count"])
      .executeTakeFirstOrThrow();
    return { startedMs: Number(row.window_started_ms), count: row.count };
  },

  /** The live window of `key`, if any. */
  async get(q: Executor, key: string, nowMs: number): Promise<{ startedMs: number; count: number } | null> {
    const row = await q
      .selectFrom("rate_limits")
      .select(["window_started_ms", "count"])
      .where("key", "=", key)
      .where("expires_ms", ">", nowMs)
      .executeTakeFirst();
    return row ? { startedMs: Number(row.window_started_ms), count: row.count } : null;
  },

  async delete(q: Executor, key: string): Promise<void> {
    await q.deleteFrom("rate_limits").where("key", "=", key).execute();
  },

  async deleteExpired(q: Executor, nowMs: number): Promise<void> {
    await q.deleteFrom("rate_limits").where("expires_ms", "<=", nowMs).execute();
  },
};
