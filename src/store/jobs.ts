import type { Kysely } from "kysely";
import { dialectOf } from "../db/dialect.js";
import type { Database, Job } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

/** Finished jobs deleted per statement, so that a large backlog never holds the database long. */
const PRUNE_BATCH = 1000;

/** The background job table as operators see it: pruning and `parley jobs`. */
export const jobStore = {
  /** Deletes jobs that finished (done or failed) before `cutoff`; returns how many. */
  async pruneFinished(q: Kysely<Database>, cutoff: number): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = q.selectFrom("jobs").select("id").where("status", "in", ["done", "failed"]).where("finished_at", "<", cutoff).limit(PRUNE_BATCH);
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
    const failed = await q
      .selectFrom("jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "failed")
      .executeTakeFirstOrThrow();
    const oldest = due.oldest === null ? now : Number(due.oldest);
    return { due: Number(due.n), failed: Number(failed.n), lagSeconds: Math.max(0, now - oldest) };
  },

  /** Jobs not done: pending, running and failed, oldest first. */
  async listUnfinished(q: Kysely<Database>, limit: number): Promise<Job[]> {
    return q.selectFrom("jobs").selectAll().where("status", "in", ["pending", "running", "failed"]).orderBy("id").limit(limit).execute();
  },

  /** Makes failed jobs (`ids`, or all when null) due now with a fresh set of attempts. */
  async retryFailed(q: Kysely<Database>, ids: number[] | null, now: number): Promise<number> {
    let query = q
      .updateTable("jobs")
      .set({ status: "pending", attempts: 0, run_at: now, finished_at: null, locked_until: null })
      .where("status", "=", "failed");
    if (ids !== null) query = query.where("id", "in", ids);
    return Number((await query.executeTakeFirst()).numUpdatedRows);
  },

  /** Deletes pending or failed jobs (`ids`, or all failed ones when null); never a running one. */
  async drop(q: Kysely<Database>, ids: number[] | null): Promise<number> {
    let query = q.deleteFrom("jobs");
    query = ids === null ? query.where("status", "=", "failed") : query.where("id", "in", ids).where("status", "in", ["pending", "failed"]);
    return Number((await query.executeTakeFirst()).numDeletedRows);
  },

  /**
   * Claims the next due job of these kinds (pending and due, or running with an expired lease):
   * moves it to `running` with a lease until `leaseUntil`, in one transaction (SKIP LOCKED on
   * PostgreSQL, so concurrent runners never take the same job).
   */
  async claimNext(db: Kysely<Database>, kinds: readonly string[], now: number, leaseUntil: number): Promise<Job | undefined> {
    return db.transaction().execute(async (trx) => {
      const candidate = await dialectOf(trx)
        .forUpdateSkipLocked(
          trx
            .selectFrom("jobs")
            .selectAll()
            .where((eb) =>
              eb.or([eb.and([eb("status", "=", "pending"), eb("run_at", "<=", now)]), eb.and([eb("status", "=", "running"), eb("locked_until", "<", now)])]),
            )
            .where("kind", "in", kinds.length > 0 ? [...kinds] : ["-"])
            .orderBy("run_at")
            .orderBy("id")
            .limit(1),
        )
        .executeTakeFirst();
      if (!candidate) return undefined;
      const attempts = candidate.attempts + 1;
      await trx.updateTable("jobs").set({ status: "running", locked_until: leaseUntil, attempts }).where("id", "=", candidate.id).execute();
      return { ...candidate, status: "running" as const, attempts };
    });
  },

  async markDone(q: Executor, id: number, now: number): Promise<void> {
    await q.updateTable("jobs").set({ status: "done", finished_at: now, locked_until: null }).where("id", "=", id).execute();
  },

  /** A failed attempt: due again at `runAt`, or `failed` for good when `final`. */
  async markFailedAttempt(q: Executor, id: number, error: string, runAt: number, final: boolean, now: number): Promise<void> {
    await q
      .updateTable("jobs")
      .set({ status: final ? "failed" : "pending", run_at: runAt, locked_until: null, last_error: error, finished_at: final ? now : null })
      .where("id", "=", id)
      .execute();
  },

  /** Whether a job of `kind` is pending or running (other than `exceptId`). */
  async hasWaiting(q: Executor, kind: string, exceptId?: number): Promise<boolean> {
    let query = q.selectFrom("jobs").select("id").where("kind", "=", kind).where("status", "in", ["pending", "running"]);
    if (exceptId !== undefined) query = query.where("id", "!=", exceptId);
    return (await query.limit(1).executeTakeFirst()) !== undefined;
  },
};
