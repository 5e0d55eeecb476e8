import type { Kysely } from "kysely";
import type { Database, Job } from "../db/schema.js";

/** Finished jobs deleted per statement, so that a large backlog never holds the database long. */
const PRUNE_BATCH = 1000;

/** The background job table as operators see it: pruning and `parley jobs`. */
export const jobStore = {
  /** Deletes jobs that finished (done or failed) before `cutoff`; returns how many. */
  async pruneFinished(q: Kysely<Database>, cutoff: number): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = q
        .selectFrom("jobs")
        .select("id")
        .where("status", "in", ["done", "failed"])
        .where("finished_at", "<", cutoff)
        .limit(PRUNE_BATCH);
      const result = await q.deleteFrom("jobs").where("id", "in", batch).executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  },

  /** Due pending jobs, failed jobs, and how long the oldest due job has waited (metrics). */
  async backlog(q: Kysely<Database>, now: number): Promise<{ due: number; failed: number; lagSeconds: number }> {
    const due = await q
      .selectFrom("jobs")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("run_at").as("oldest")])
      .where("status", "=", "pending")
      .where("run_at", "<=", now)
      .executeTakeFirstOrThrow();
    const failed = await q.selectFrom("jobs").select((eb) => eb.fn.countAll<number>().as("n")).where("status", "=", "failed").executeTakeFirstOrThrow();
    const oldest = due.oldest === null ? now : Number(due.oldest);
    return { due: Number(due.n), failed: Number(failed.n), lagSeconds: Math.max(0, now - oldest) };
  },

  /** Jobs not done: pending, running and failed, oldest first. */
  async listUnfinished(q: Kysely<Database>, limit: number): Promise<Job[]> {
    return q.selectFrom("jobs").selectAll().where("status", "in", ["pending", "running", "failed"]).orderBy("id").limit(limit).execute();
  },

  /** Makes failed jobs (`ids`, or all when null) due now with a fresh set of attempts. */
  async retryFailed(q: Kysely<Database>, ids: number[] | null, now: number): Promise<number> {
    let query = q.updateTable("jobs").set({ status: "pending", attempts: 0, run_at: now, finished_at: null, locked_until: null }).where("status", "=", "failed");
    if (ids !== null) query = query.where("id", "in", ids);
    return Number((await query.executeTakeFirst()).numUpdatedRows);
  },

  /** Deletes pending or failed jobs (`ids`, or all failed ones when null); never a running one. */
  async drop(q: Kysely<Database>, ids: number[] | null): Promise<number> {
    let query = q.deleteFrom("jobs");
    query = ids === null ? query.where("status", "=", "failed") : query.where("id", "in", ids).where("status", "in", ["pending", "failed"]);
    return Number((await query.executeTakeFirst()).numDeletedRows);
  },
};
