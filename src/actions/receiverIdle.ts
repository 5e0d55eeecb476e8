import { type AppContext, transaction } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS } from "../lib/presence.js";
import { realmSettings } from "../models/realmSettings.js";
import { missedMessageEmailStore } from "../store/missedMessageEmails.js";
import { presenceStore } from "../store/presence.js";
import { nowSeconds } from "../util/time.js";

/**
 * When a receiver counts as idle for message notifications (Zulip 10.2, zerver/tornado/event_queue.py
 * process_message_event): off Zulip — no event queue that takes messages, in this process or
 * another (receiver_is_off_zulip; a queue unpolled past its idle timeout no longer counts) — or
 * idle by presence — no client of theirs reported activity in the last 140 seconds, unless the
 * organization has presence disabled (presence_idle_user_ids). Pushes go to an idle receiver, and
 * to any receiver with enable_online_push_notifications on; missed-message emails only to an idle
 * one. When a user's last queue that takes messages goes away (collected after its idle timeout, or
 * deleted), the notifications its unacknowledged messages did not get are sent then
 * (missedmessage_hook): receiver_went_idle.
 */
export const RECEIVER_WENT_IDLE_JOB = "receiver_went_idle";

/** Of `userIds`, those with no event queue that takes messages here or in another process. */
export async function offZulipUserIds(ctx: AppContext, userIds: readonly number[]): Promise<Set<number>> {
  const here = ctx.eventQueues.usersWithMessageQueues(userIds);
  let candidates = userIds.filter((id) => !here.has(id));
  if (ctx.bus && candidates.length > 0) {
    const elsewhere = await ctx.bus.usersWithMessageQueues(candidates);
    candidates = candidates.filter((id) => !elsewhere.has(id));
  }
  return new Set(candidates);
}

/** Whether the user is idle now: off Zulip, or idle by presence. */
export async function isReceiverIdle(ctx: AppContext, realm: Realm, userId: number): Promise<boolean> {
  if (!realmSettings(realm).presence_disabled) {
    const active = await presenceStore.activeSince(ctx.db.kysely, [userId], nowSeconds() - PRESENCE_OFFLINE_THRESHOLD_SECONDS);
    if (!active.has(userId)) return true;
  }
  return (await offZulipUserIds(ctx, [userId])).size > 0;
}

/**
 * events/queues.ts calls this (through app.ts) when a user's last queue here that takes messages is
 * dropped: a durable job finishes the work, after commit.
 */
export async function queueReceiverWentIdle(ctx: AppContext, userId: number, messageIds: number[]): Promise<void> {
  if (messageIds.length === 0) {
    // Every message reached the client: emails held back for them are dropped, not kept forever.
    if (await missedMessageEmailStore.hasHeld(ctx.db.kysely, userId)) {
      await transaction(ctx, (tx) => missedMessageEmailStore.dropHeld(tx.q, userId));
    }
    return;
  }
  await transaction(ctx, (tx) => tx.enqueueJob(RECEIVER_WENT_IDLE_JOB, { userId, messageIds }));
}
