import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { renderMessageContent } from "../lib/messageRendering.js";
import { SYSTEM_BOT_REALM } from "../lib/realms.js";
import type { ChannelAccess } from "../lib/streamAccess.js";
import { channelRecipientStore, systemBotStore } from "../store/messages.js";
import { doSendMessage } from "./messageSend.js";

/** Zulip's Notification Bot, a cross-realm bot of the system realm. */
export const NOTIFICATION_BOT_EMAIL = "notification-bot@zulip.com";

export async function getNotificationBot(tx: Tx): Promise<User | undefined> {
  return systemBotStore.getByEmail(tx.q, SYSTEM_BOT_REALM, NOTIFICATION_BOT_EMAIL);
}

/**
 * Zulip's internal_send_stream_message from the Notification Bot: no permission checks, mentions
 * rendered as `renderAs` sees them. Returns the message id, or null without a Notification Bot.
 */
export async function sendNotificationBotChannelMessage(tx: Tx, realm: Realm, access: ChannelAccess, topic: string, content: string, renderAs?: User): Promise<number | null> {
  const bot = await getNotificationBot(tx);
  if (!bot) return null;
  const recipientId = access.stream.recipient_id!;
  const rendered = await renderMessageContent(tx.q, realm, renderAs ?? bot, content);
  const receivers = await channelRecipientStore.activeSubscribers(tx.q, recipientId);
  const destination = { kind: "channel" as const, access, recipientId, topic, receivers };
  return (await doSendMessage(tx, bot, realm, destination, content, rendered, { readBySender: false, clientName: "Internal" })).id;
}

/** Zulip's internal_send_private_message from the Notification Bot to each of `users`. */
export async function sendNotificationBotDirectMessages(tx: Tx, realm: Realm, users: readonly User[], content: string): Promise<void> {
  const bot = await getNotificationBot(tx);
  if (!bot || users.length === 0) return;
  const rendered = await renderMessageContent(tx.q, realm, bot, content);
  for (const user of users) {
    const destination = { kind: "direct" as const, recipientId: user.recipient_id!, participantIds: [bot.id, user.id].sort((a, b) => a - b) };
    await doSendMessage(tx, bot, realm, destination, content, rendered, { readBySender: false, clientName: "Internal" });
  }
}
