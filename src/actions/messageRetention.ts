import { type AppContext, transaction } from "../appContext.js";
import { jobStore } from "../store/jobs.js";
import { nowSeconds } from "../util/time.js";

/**
 * Message retention (Zulip's retention.py): a recurring durable job deletes messages older than
 * the organization's message_retention_days, or a channel's own value (null inherits, -1 keeps
 * forever); direct messages follow the organization. Deletion goes through doDeleteMessages, so
 * clients are told and files no remaining message links are deleted too. Work is done in
 * batches of one conversation, each in its own transaction.
 */
export const MESSAGE_RETENTION_JOB = "message_retention";
export const RETENTION_INTERVAL_SECONDS = 3600;

/** Makes sure exactly one retention job is waiting (called at start). */
export async function ensureRetentionJob(ctx: AppContext): Promise<void> {
  await transaction(ctx, async (tx) => {
    if (!(await jobStore.hasWaiting(tx.q, MESSAGE_RETENTION_JOB))) await tx.enqueueJob(MESSAGE_RETENTION_JOB, {}, { runAt: nowSeconds() + 60 });
  });
}
