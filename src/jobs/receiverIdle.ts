import { type AppContext, transaction } from "../appContext.js";
import { offZulipUserIds } from "../actions/receiverIdle.js";
import { MessageFlag } from "../models/messageFlags.js";
import { userSettings } from "../models/userSettings.js";
import { messageStore } from "../store/messages.js";
import { missedMessageEmailStore } from "../store/missedMessageEmails.js";
import { pushDeviceStore } from "../store/pushDevices.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { notificationTriggers } from "../actions/notificationTriggers.js";
import { defined } from "../util/defined.js";

// The receiver_went_idle job that actions/receiverIdle.ts queues.

/**
 * Job: the receiver's last queue that takes messages went away holding `messageIds`
 * unacknowledged. Unless another queue of theirs still takes messages, each unread one that would
 * have notified an idle receiver is pushed (unless pushed already) and emailed (if its email was
 * held back because they were on Zulip then).
 */
export async function notifyReceiverWentIdle(ctx: AppContext, job: { userId: number; messageIds: number[] }): Promise<void> {
  const q = ctx.db.kysely;
  const user = await userStore.getById(q, job.userId);
  if (!user || !user.is_active || user.is_bot) return;
  if ((await offZulipUserIds(ctx, [user.id])).size === 0) return; // still on Zulip elsewhere
  await transaction(ctx, async (tx) => {
    const now = nowSeconds();
    const scheduled = await missedMessageEmailStore.usersWithPending(tx.q, [user.id]);
    const released = await missedMessageEmailStore.releaseHeld(tx.q, user.id, job.messageIds, now);
    if (released > 0 && !scheduled.has(user.id)) {
      await tx.enqueueJob(
        "missed_message_email",
        { userId: user.id },
        { runAt: now + Math.max(0, userSettings(user).email_notifications_batching_period_seconds) },
      );
    }
    if (!(await pushDeviceStore.usersWithDevices(tx.q, [user.id])).has(user.id)) return;
    const flags = await userMessageStore.flagsFor(tx.q, user.id, job.messageIds);
    const unread = job.messageIds.filter((id) => flags.has(id) && (flags.get(id)! & (MessageFlag.READ | MessageFlag.ACTIVE_MOBILE_PUSH_NOTIFICATION)) === 0);
    const messages = await messageStore.listByIds(tx.q, user.realm_id, unread);
    const streams = new Map(
      (
        await channelRecipientStore.streamsByRecipientIds(
          tx.q,
          user.realm_id,
          messages.filter((m) => m.is_channel_message).map((m) => m.recipient_id),
        )
      ).map((s) => [s.recipient_id, s.id]),
    );
    for (const message of messages.sort((a, b) => a.id - b.id)) {
      const streamId = streams.get(message.recipient_id);
      if (message.is_channel_message && streamId === undefined) continue;
      const [triggers] = await notificationTriggers(tx, { id: message.sender_id }, [
        {
          rows: [{ user_id: user.id, flags: flags.get(message.id)! }],
          channel: message.is_channel_message ? { streamId: streamId!, topic: message.subject } : null,
        },
      ]);
      const trigger = defined(triggers, "the triggers of the message").get(user.id);
      if (trigger) await tx.enqueueJob("push_notification", { userId: user.id, messageId: message.id, trigger, idle: true });
    }
  });
}
