import type { AppContext } from "../appContext.js";
import type { Job } from "../db/schema.js";
import { isJobKind, type JobKind, type JobPayload, parseJobPayload } from "../models/jobPayloads.js";
import { jobStore } from "../store/jobs.js";
import { nowSeconds } from "../util/time.js";

/**
 * Runs durable jobs from the `jobs` table. A job row is written in the same transaction as the
 * change that causes it (Tx.enqueueJob), so a crash loses none. The runner claims a due job by
 * moving it to `running` with a lease; a job whose process died is taken again when its lease
 * expires. Failures are retried with exponential backoff until max_attempts, then left `failed`
 * with the error text. Finished jobs (done or failed) are deleted PARLEY_JOB_RETENTION_DAYS after
 * they finished, checked at most hourly.
 */
export type JobHandler<K extends JobKind = JobKind> = (ctx: AppContext, payload: JobPayload<K>, job: Job) => Promise<void>;

const POLL_MS = 1000;
const WORKERS = 4;
const PRUNE_EVERY_SECONDS = 3600;

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler<any>>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private stopped = true;
  private idleWaiters: Array<() => void> = [];
  private prunedAt = 0;

  constructor(private readonly ctx: AppContext) {}

  register<K extends JobKind>(kind: K, handler: JobHandler<K>): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.idle();
  }

  /** Asks the runner to look for due jobs now (called after a commit that enqueued one). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.loop();
  }

  /** Resolves when no pass is in progress (tests: wait for after-commit work). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Runs every job that is due now, then returns. Several workers claim jobs side by side, so
   * one slow job (a bot server that takes its full timeout) does not hold back the others.
   */
  async runDueJobs(): Promise<number> {
    let done = 0;
    const worker = async () => {
      for (;;) {
        const job = await this.claim();
        if (!job) return;
        await this.execute(job);
        done += 1;
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    return done;
  }

  private async loop(): Promise<void> {
    this.running = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      do {
        this.again = false;
        await this.runDueJobs();
      } while (this.again && !this.stopped);
      await this.pruneIfDue();
    } catch (error) {
      if (!this.ctx.db.health.failed(error)) this.ctx.log.error({ err: error }, "job runner pass failed");
    } finally {
      this.running = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      if (!this.stopped) this.timer = setTimeout(() => this.wake(), POLL_MS).unref();
    }
  }

  /** Deletes finished jobs past their retention, when the last pruning is old enough. */
  private async pruneIfDue(): Promise<void> {
    const retentionSeconds = this.ctx.config.jobRetentionDays * 86400;
    const now = nowSeconds();
    if (now - this.prunedAt < Math.min(PRUNE_EVERY_SECONDS, retentionSeconds / 2)) return;
    this.prunedAt = now;
    const pruned = await jobStore.pruneFinished(this.ctx.db.kysely, now - retentionSeconds);
    if (pruned > 0) this.ctx.log.info({ pruned }, "deleted finished background jobs past their retention");
  }

  private claim(): Promise<Job | undefined> {
    const now = nowSeconds();
    return jobStore.claimNext(this.ctx.db.kysely, [...this.handlers.keys()], now, now + this.ctx.config.jobLeaseSeconds);
  }

  private async execute(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const q = this.ctx.db.kysely;
    const started = performance.now();
    const took = () => (performance.now() - started) / 1000;
    try {
      if (!handler || !isJobKind(job.kind)) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(this.ctx, parseJobPayload(job.kind, JSON.parse(job.payload)), job);
      this.ctx.metrics.jobRun(job.kind, "done", took());
      await jobStore.markDone(q, job.id, nowSeconds());
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const failed = job.attempts >= job.max_attempts;
      this.ctx.metrics.jobRun(job.kind, failed ? "failed" : "retry", took());
      const backoff = Math.min(3600, 2 ** job.attempts * 5);
      this.ctx.log.warn({ job: job.id, kind: job.kind, attempt: job.attempts, err: message }, failed ? "job failed" : "job will be retried");
      await jobStore.markFailedAttempt(q, job.id, message.slice(0, 2000), nowSeconds() + backoff, failed, nowSeconds());
    }
  }
}
