import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { accessMessage } from "../lib/messageAccess.js";
import { accessStreamById, AccessSubject } from "../lib/streamAccess.js";
import { userSettings } from "../models/userSettings.js";
import { userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { normalizeTopic } from "../lib/messageText.js";
import { MAX_CHANNEL_SIZE_FOR_TYPING } from "../models/limits.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { systemBotStore } from "../store/systemBots.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";
import { defined } from "../util/defined.js";

const person = (u: User) => ({ user_id: u.id, email: u.email });

/**
 * Typing notifications change nothing stored; they still go out through a (read-only)
 * transaction, the one path for events. They reach the participants (direct) or subscribers (channel) whose receives_typing_notifications is on.
 */
export async function sendDirectTyping(tx: Tx, sender: User, to: readonly number[], op: "start" | "stop"): Promise<void> {
  if (!userSettings(sender).send_private_typing_notifications) throw badRequest("User has disabled typing notifications for direct messages");
  const ids = [...new Set([...to, sender.id])];
  const found = new Map((await userStore.listByIds(tx.q, sender.realm_id, ids)).map((u) => [u.id, u]));
  const missing = ids.filter((id) => !found.has(id));
  for (const bot of await systemBotStore.listByIds(tx.q, SYSTEM_BOT_REALM, missing)) found.set(bot.id, bot);
  const invalid = ids.find((id) => !found.has(id));
  if (invalid !== undefined) throw badRequest(`Invalid user ID ${invalid}`);
  const participants = ids.map((id) => found.get(id)!);
  const notify = participants.filter((u) => u.is_active && u.realm_id === sender.realm_id && userSettings(u).receives_typing_notifications).map((u) => u.id);
  tx.sendEventOnCommit({ type: "typing", op, message_type: "direct", sender: person(sender), recipients: participants.map(person) }, notify);
}

export async function sendChannelTyping(tx: Tx, sender: User, realm: Realm, streamId: number, rawTopic: string, op: "start" | "stop"): Promise<void> {
  if (!userSettings(sender).send_stream_typing_notifications) throw badRequest("User has disabled typing notifications for stream messages");
  const topic = normalizeTopic(realm, rawTopic);
  const access = await accessStreamById(tx.q, new AccessSubject(sender), streamId);
  if (!access.canPost) throw badRequest(`Not authorized to send to channel '${access.stream.name}'`);
  const receivers = await channelRecipientStore.activeSubscribers(tx.q, access.stream.recipient_id);
  if (receivers.length > MAX_CHANNEL_SIZE_FOR_TYPING) return;
  const users = await userStore.listByIds(
    tx.q,
    realm.id,
    receivers.map((r) => r.user_id),
  );
  const notify = users.filter((u) => u.is_active && userSettings(u).receives_typing_notifications).map((u) => u.id);
  tx.sendEventOnCommit({ type: "typing", op, message_type: "stream", sender: person(sender), stream_id: streamId, topic }, notify);
}

/**
 * Zulip's check_send_message_edit_typing_notification: "typing_edit_message" to those who would
 * see the edit (the direct message's participants, or the channel's subscribers), under the
 * same settings and channel-size limit as typing a new message.
 */
export async function sendMessageEditTyping(tx: Tx, sender: User, messageId: number, op: "start" | "stop"): Promise<void> {
  const { message } = await accessMessage(tx.q, new AccessSubject(sender), messageId);
  const settings = userSettings(sender);
  let audience: number[];
  let recipient: { type: "channel"; channel_id: number; topic: string } | { type: "direct"; user_ids: number[] };
  if (message.is_channel_message) {
    if (!settings.send_stream_typing_notifications) throw badRequest("User has disabled typing notifications for stream messages");
    const [stream] = await channelRecipientStore.streamsByRecipientIds(tx.q, sender.realm_id, [message.recipient_id]);
    audience = (await channelRecipientStore.activeSubscribers(tx.q, message.recipient_id)).map((r) => r.user_id);
    if (audience.length > MAX_CHANNEL_SIZE_FOR_TYPING) return;
    recipient = { type: "channel", channel_id: defined(stream, "the message's channel").id, topic: message.subject };
  } else {
    if (!settings.send_private_typing_notifications) throw badRequest("User has disabled typing notifications for direct messages");
    audience = await userMessageStore.userIdsFor(tx.q, message.id);
    recipient = { type: "direct", user_ids: [...audience].sort((a, b) => a - b) };
  }
  const users = await userStore.listByIds(tx.q, sender.realm_id, audience);
  const notify = users.filter((u) => u.is_active && userSettings(u).receives_typing_notifications).map((u) => u.id);
  tx.sendEventOnCommit({ type: "typing_edit_message", op, sender_id: sender.id, message_id: message.id, recipient }, notify);
}
