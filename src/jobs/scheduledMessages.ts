import { transaction, type AppContext } from "../appContext.js";
import { dictById } from "../actions/scheduledMessages.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest, RealmDeactivatedError, UserDeactivatedError } from "../lib/errors.js";
import { scheduledRecipientIds } from "../lib/scheduledMessagePayload.js";
import { realmStore } from "../store/realms.js";
import { scheduledMessageStore, type ScheduledMessage } from "../store/scheduledMessages.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { checkMessage, doSendMessage } from "../actions/messageSend.js";
import { sendNotificationBotDirectMessages } from "../actions/notificationBot.js";
import { realmUrl, type UrlConfig } from "../lib/realms.js";

// The delivery job that actions/scheduledMessages.ts queues for each scheduled time.

/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: how late a scheduled message may still be sent. */
const LATE_CUTOFF_SECONDS = 10 * 60;

/**
 * The scheduled_message job (Zulip's try_deliver_one_scheduled_message): sends the message if it
 * is due. A failure by the rules (channel archived, access lost, sender deactivated...) is
 * recorded on the row with its reason, and the sender is told as Zulip does.
 */
export async function deliverScheduledMessage(ctx: AppContext, payload: { scheduled_message_id: number }): Promise<void> {
  const id = payload.scheduled_message_id;
  let attempted: ScheduledMessage | undefined;
  try {
    await transaction(ctx, async (tx) => {
      const row = await scheduledMessageStore.lock(tx.q, tx.dialect, id);
      if (!row || row.delivered === 1 || row.failed === 1 || row.scheduled_timestamp > nowSeconds()) return;
      attempted = row;
      ctx.log.info({ scheduled_message: id, sender: row.sender_id }, "sending scheduled message");
      await sendScheduledMessage(tx, row, ctx.config);
    });
  } catch (error) {
    if (!attempted) throw error;
    const reason = error instanceof ApiError ? error.message : "Internal server error";
    if (error instanceof ApiError) ctx.log.info({ scheduled_message: id, reason }, "scheduled message failed");
    else ctx.log.error({ scheduled_message: id, err: error }, "unexpected error sending scheduled message");
    // Zulip sends no notice when the organization or the sender is deactivated.
    const notify = !(error instanceof RealmDeactivatedError || error instanceof UserDeactivatedError);
    await transaction(ctx, (tx) => markFailed(tx, attempted!, reason, notify));
  }
}

/** Zulip's send_scheduled_message: the sender's rights are checked again, as of now. */
async function sendScheduledMessage(tx: Tx, row: ScheduledMessage, config: UrlConfig): Promise<void> {
  const realm = await realmStore.getById(tx.q, row.realm_id);
  if (!realm || realm.deactivated === 1) throw new RealmDeactivatedError();
  const sender = await userStore.getById(tx.q, row.sender_id);
  if (!sender || sender.is_active !== 1) throw new UserDeactivatedError();
  if (nowSeconds() > row.scheduled_timestamp + LATE_CUTOFF_SECONDS) throw badRequest("Message could not be sent at the scheduled time.");

  const { type, to } = scheduledRecipientIds((await scheduledMessageStore.getWithRecipient(tx.q, row.id))!);
  const checked = await checkMessage(tx, sender, realm, {
    type,
    // A direct message goes to all its participants again; the sender is added back by the send path.
    to: type === "stream" ? to[0] : to,
    topic: row.subject,
    content: row.content,
  });
  const sent = await doSendMessage(tx, sender, realm, checked.destination, checked.content, checked.rendered, {
    readBySender: row.read_by_sender === 1,
    clientName: row.sending_client,
    realmUrl: realmUrl(config, realm),
  });
  await scheduledMessageStore.update(tx.q, row.id, { delivered: 1, delivered_message_id: sent.id });
  tx.sendEventOnCommit({ type: "scheduled_messages", op: "remove", scheduled_message_id: row.id }, [sender.id]);
}

/** Records a failed delivery, unless the message was edited or deleted meanwhile. */
async function markFailed(tx: Tx, attempted: ScheduledMessage, reason: string, notify: boolean): Promise<void> {
  const row = await scheduledMessageStore.lock(tx.q, tx.dialect, attempted.id);
  if (!row || row.delivered === 1 || row.failed === 1 || row.scheduled_timestamp !== attempted.scheduled_timestamp) return;
  await scheduledMessageStore.update(tx.q, row.id, { failed: 1, failure_message: reason });
  if (!notify) return;
  tx.sendEventOnCommit({ type: "scheduled_messages", op: "update", scheduled_message: await dictById(tx.q, row.id) }, [row.sender_id]);
  await sendFailureNotification(tx, row, reason);
}

/** Zulip's send_failed_scheduled_message_notification: a direct message from the Notification Bot. */
async function sendFailureNotification(tx: Tx, row: ScheduledMessage, reason: string): Promise<void> {
  const realm = await realmStore.getById(tx.q, row.realm_id);
  const user = await userStore.getById(tx.q, row.sender_id);
  if (!realm || !user) return;
  // Zulip's text, whose trailing blank lines the send path drops (normalize_body).
  const content =
    `The message you scheduled for <time:${pythonDatetime(row.scheduled_timestamp)}>  was not sent because of the following error:` +
    `\n\n> ${reason}\n\n[View scheduled messages](#scheduled)`;
  await sendNotificationBotDirectMessages(tx, realm, [{ user, content }]);
}

/** str() of a UTC datetime in Python, as Zulip writes the time: "2023-04-16 16:27:00+00:00". */
function pythonDatetime(seconds: number): string {
  return new Date(seconds * 1000)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, "+00:00");
}
