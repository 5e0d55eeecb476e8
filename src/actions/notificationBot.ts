import type { Realm, Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { renderMessageContent, renderMessageContents } from "../lib/messageRendering.js";
import { internalChannelAccess } from "../lib/streamAccess.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { systemBotStore } from "../store/systemBots.js";
import { doSendMessage, doSendMessages, type OutgoingMessage } from "./messageSend.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";
import { defined } from "../util/defined.js";

/** Zulip's Notification Bot, a cross-realm bot of the system realm. */
export const NOTIFICATION_BOT_EMAIL = "notification-bot@zulip.com";

export async function getNotificationBot(tx: Tx): Promise<User | undefined> {
  return systemBotStore.getByEmail(tx.q, SYSTEM_BOT_REALM, NOTIFICATION_BOT_EMAIL);
}

export interface NoticeOptions {
  /** Render mentions and channel links as this user sees them (Zulip's acting_user). */
  renderAs?: User;
  /** Receivers whose copy starts read: Zulip's mark_as_read, or "all" for limit_unread_user_ids=set(). */
  alsoReadBy?: ReadonlySet<number> | "all";
}

/**
 * Zulip's internal_send_stream_message from the Notification Bot: no permission checks (it may post
 * to an archived channel). Returns the message id, or null without a Notification Bot.
 */
export async function sendNotificationBotChannelMessage(
  tx: Tx,
  realm: Realm,
  stream: Stream,
  topic: string,
  content: string,
  options: NoticeOptions = {},
): Promise<number | null> {
  const bot = await getNotificationBot(tx);
  if (!bot) return null;
  const recipientId = stream.recipient_id;
  const rendered = await renderMessageContent(tx.q, realm, options.renderAs ?? bot, content);
  const receivers = await channelRecipientStore.activeSubscribers(tx.q, recipientId);
  const destination = { kind: "channel" as const, access: internalChannelAccess(stream), recipientId, topic, receivers };
  const sendOptions = { readBySender: false, clientName: "Internal", alsoReadBy: options.alsoReadBy };
  return (await doSendMessage(tx, bot, realm, destination, content, rendered, sendOptions)).id;
}

/**
 * sendNotificationBotChannelMessage for several notices, each to its channel and topic, all sent
 * together (doSendMessages): the same messages, flags and events as sending them one by one, in
 * this order. Returns the message ids in the order of `notices`, or null without a Notification Bot.
 */
export async function sendNotificationBotChannelMessages(
  tx: Tx,
  realm: Realm,
  notices: ReadonlyArray<{ stream: Stream; topic: string; content: string }>,
  options: NoticeOptions = {},
): Promise<number[] | null> {
  const bot = await getNotificationBot(tx);
  if (!bot) return null;
  return sendSystemBotChannelMessages(tx, realm, bot, notices, options);
}

/** sendNotificationBotChannelMessages from any system bot (Welcome Bot's welcome messages). */
export async function sendSystemBotChannelMessages(
  tx: Tx,
  realm: Realm,
  bot: User,
  notices: ReadonlyArray<{ stream: Stream; topic: string; content: string }>,
  options: NoticeOptions = {},
): Promise<number[]> {
  if (notices.length === 0) return [];
  const rendered = await renderMessageContents(
    tx.q,
    realm,
    options.renderAs ?? bot,
    notices.map((n) => n.content),
  );
  const receivers = await channelRecipientStore.activeSubscribersOf(
    tx.q,
    notices.map((n) => n.stream.recipient_id),
  );
  const outgoing: OutgoingMessage[] = notices.map(({ stream, topic, content }, i) => {
    const recipientId = stream.recipient_id;
    // Each message gets its own copy of the receivers (rows are built per message).
    const destination = { kind: "channel" as const, access: internalChannelAccess(stream), recipientId, topic, receivers: [...receivers.get(recipientId)!] };
    return {
      destination,
      content,
      rendered: defined(rendered[i], `the rendering of notice ${i}`),
      options: { readBySender: false, clientName: "Internal", alsoReadBy: options.alsoReadBy },
    };
  });
  return (await doSendMessages(tx, bot, realm, outgoing)).map((r) => r.id);
}

/**
 * Zulip's internal_send_private_message from the Notification Bot: each notice to its user, all
 * sent together (doSendMessages), each distinct text rendered once.
 */
export async function sendNotificationBotDirectMessages(
  tx: Tx,
  realm: Realm,
  notices: ReadonlyArray<{ user: User; content: string }>,
  options: NoticeOptions = {},
): Promise<void> {
  const bot = await getNotificationBot(tx);
  if (!bot || notices.length === 0) return;
  const texts = [...new Set(notices.map((n) => n.content))];
  const rendered = await renderMessageContents(tx.q, realm, options.renderAs ?? bot, texts);
  const renders = new Map(texts.map((text, i) => [text, rendered[i]]));
  const outgoing: OutgoingMessage[] = [];
  for (const { user, content } of notices) {
    const destination = { kind: "direct" as const, recipientId: user.recipient_id, participantIds: [bot.id, user.id].sort((a, b) => a - b) };
    outgoing.push({ destination, content, rendered: renders.get(content)!, options: { readBySender: false, clientName: "Internal" } });
  }
  await doSendMessages(tx, bot, realm, outgoing);
}
