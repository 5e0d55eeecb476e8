import type { Tx } from "../db/tx.js";
import { userSettings } from "../models/userSettings.js";
import { type Message } from "../store/messages.js";
import { missedMessageEmailStore } from "../store/missedMessageEmails.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import type { NotificationTrigger } from "./notificationTriggers.js";

/**
 * Missed-message emails (Zulip's handle_missedmessage_emails). A direct message, mention or
 * followed-topic message waits in `missed_message_emails`; the first one for a user schedules a
 * durable job after their email_notifications_batching_period_seconds. The job sends one email
 * per conversation for what is still unread — if the user is idle then (receiverIdle.ts: no event
 * queue taking messages in any process, or idle by presence) and their settings allow it — with the
 * rendered messages and a link, through the email path (SMTP or the outbox). A user on Zulip then
 * has the batch held back: what their last queue still held unacknowledged when it went away is
 * sent after all (receiver_went_idle), the rest is dropped.
 */
export const MISSED_MESSAGE_EMAIL_JOB = "missed_message_email";

/** Called by doSendMessages with the receivers each message (all of one realm) may notify. */
export async function queueMissedMessageEmails(
  tx: Tx,
  sent: ReadonlyArray<{ message: Message; triggers: ReadonlyMap<number, NotificationTrigger> }>,
): Promise<void> {
  const userIds = new Set(sent.flatMap(({ triggers }) => [...triggers.keys()]));
  const [first] = sent;
  if (userIds.size === 0 || first === undefined) return;
  const listed = await userStore.listByIds(tx.q, first.message.realm_id, [...userIds]);
  const users = new Map(listed.filter((u) => !u.is_bot && u.is_active).map((u) => [u.id, u]));
  if (users.size === 0) return;
  const now = nowSeconds();
  const pending = await missedMessageEmailStore.usersWithPending(tx.q, [...users.keys()]);
  const rows = sent.flatMap(({ message, triggers }) =>
    [...triggers].filter(([userId]) => users.has(userId)).map(([userId, trigger]) => ({ user_id: userId, message_id: message.id, trigger, scheduled_at: now })),
  );
  await missedMessageEmailStore.addMany(tx.q, rows);
  // The first waiting message of a user schedules the batch, after the user's batching period.
  const byDelay = new Map<number, number[]>();
  for (const user of [...users.values()].filter((u) => !pending.has(u.id))) {
    const delay = Math.max(0, userSettings(user).email_notifications_batching_period_seconds);
    byDelay.set(delay, [...(byDelay.get(delay) ?? []), user.id]);
  }
  for (const [delay, userIds] of byDelay) {
    await tx.enqueueJobs(
      MISSED_MESSAGE_EMAIL_JOB,
      userIds.map((userId) => ({ userId })),
      { runAt: now + delay },
    );
  }
}
