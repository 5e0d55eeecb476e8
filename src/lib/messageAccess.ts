import type { Stream } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { badRequest, MissingAuthenticationError } from "./errors.js";
import { messageStore, type Message } from "../store/messages.js";
import { userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { isGuest } from "../models/roles.js";
import { type AccessSubject, type ChannelAccess, channelAccess, visitorCanRead, visitorChannelAccess } from "./streamAccess.js";
import { channelRecipientStore } from "../store/subscriptions.js";

/**
 * THE place that decides whether a user may read a message (SECURITY.md, "Who may read a
 * message"). Every message endpoint, event fan-out and search asks here or applies
 * `readableChannelFilter` below, which encodes the same rules for queries.
 *
 * - direct messages: only users who received them (a user_messages row);
 * - channel messages: content access to the channel now, and, when the channel's history is
 *   protected (private, history not public to subscribers), the user must have received it.
 * - visitors (no account; Zulip's spectators): messages of the channels streamAccess.visitorCanRead
 *   allows, nothing else (accessMessageAsVisitor, visitorReadability).
 */
export interface AccessibleMessage {
  message: Message;
  /** The user's flags bitmask, or null when the user did not receive the message (public history). */
  flags: number | null;
}

export const invalidMessageError = () => badRequest("Invalid message(s)");

export function historyIsPublic(stream: Stream): boolean {
  return !stream.invite_only || stream.history_public_to_subscribers === 1;
}

/** The message if the user may read it; "Invalid message(s)" for missing and forbidden alike. */
export async function accessMessage(q: Executor, subject: AccessSubject, messageId: number): Promise<AccessibleMessage> {
  const found = (await accessMessages(q, subject, [messageId])).get(messageId);
  if (!found) throw invalidMessageError();
  return found;
}

/** The readable subset of `messageIds`, by id. A constant number of queries for any count. */
export async function accessMessages(q: Executor, subject: AccessSubject, messageIds: readonly number[]): Promise<Map<number, AccessibleMessage>> {
  const messages = await messageStore.listByIds(q, subject.user.realm_id, messageIds);
  const flags = await userMessageStore.flagsFor(
    q,
    subject.user.id,
    messages.map((m) => m.id),
  );
  const channels = await channelsByRecipient(
    q,
    subject,
    messages.filter((m) => m.is_channel_message).map((m) => m.recipient_id),
  );
  const result = new Map<number, AccessibleMessage>();
  for (const message of messages) {
    const received = flags.get(message.id);
    if (message.is_channel_message) {
      const access = channels.get(message.recipient_id);
      if (!access?.canReadContent) continue;
      if (!historyIsPublic(access.stream) && received === undefined) continue;
    } else if (received === undefined) {
      continue;
    }
    result.set(message.id, { message, flags: received ?? null });
  }
  return result;
}

/** Channel access of the channels behind these recipient ids (one query for the channels). */
async function channelsByRecipient(q: Executor, subject: AccessSubject, recipientIds: readonly number[]): Promise<Map<number, ChannelAccess>> {
  if (recipientIds.length === 0) return new Map();
  const streams = await channelRecipientStore.streamsByRecipientIds(q, subject.user.realm_id, recipientIds);
  const result = new Map<number, ChannelAccess>();
  for (const stream of streams) result.set(stream.recipient_id, await channelAccess(q, subject, stream));
  return result;
}

/** The user's access to every channel of the realm, as queries over many messages need it. */
export interface ChannelReadability {
  /** Channel recipient ids whose messages the user may not read at all now. */
  unreadable: number[];
  /** Readable channel recipient ids whose history is protected (readable only if received). */
  protectedHistory: number[];
  /** Readable channels by recipient id. */
  readable: Map<number, ChannelAccess>;
  /** Every channel of the realm (readable or not, archived too) by stream id. */
  byStreamId: Map<number, ChannelAccess>;
}

/**
 * For queries over many messages (narrows): every channel of the realm with the user's access
 * (one query for the channels, one for the user's groups and subscriptions).
 */
export async function channelReadability(q: Executor, subject: AccessSubject): Promise<ChannelReadability> {
  await subject.preload(q);
  const streams = await channelRecipientStore.streamsInRealm(q, subject.user.realm_id);
  const accesses: ChannelAccess[] = [];
  for (const stream of streams) accesses.push(await channelAccess(q, subject, stream));
  return readabilityOf(accesses);
}

/** channelReadability for a visitor of organization `realmId`: only the channels visitors may read are readable. */
export async function visitorReadability(q: Executor, realmId: number): Promise<ChannelReadability> {
  const streams = await channelRecipientStore.streamsInRealm(q, realmId);
  return readabilityOf(streams.map((stream) => visitorChannelAccess(realmId, stream)));
}

function readabilityOf(accesses: readonly ChannelAccess[]): ChannelReadability {
  const unreadable: number[] = [];
  const protectedHistory: number[] = [];
  const readable = new Map<number, ChannelAccess>();
  const byStreamId = new Map<number, ChannelAccess>();
  for (const access of accesses) {
    const stream = access.stream;
    byStreamId.set(stream.id, access);
    if (stream.recipient_id === null) continue;
    if (!access.canReadContent) unreadable.push(stream.recipient_id);
    else {
      readable.set(stream.recipient_id, access);
      if (!historyIsPublic(stream)) protectedHistory.push(stream.recipient_id);
    }
  }
  return { unreadable, protectedHistory, readable, byStreamId };
}

/**
 * A message a visitor of organization `realmId` may read (Zulip's access_web_public_message): a
 * message of a channel visitors may read. Anything else, missing messages alike, is Zulip's
 * MissingAuthenticationError.
 */
export async function accessMessageAsVisitor(q: Executor, realmId: number, messageId: number): Promise<Message> {
  const [message] = await messageStore.listByIds(q, realmId, [messageId]);
  if (!message?.is_channel_message) throw new MissingAuthenticationError();
  const [stream] = await channelRecipientStore.streamsByRecipientIds(q, realmId, [message.recipient_id]);
  if (!stream || !visitorCanRead(realmId, stream)) throw new MissingAuthenticationError();
  return message;
}

/** The messages among `messageIds` a visitor of organization `realmId` may read, by id. */
export async function accessMessagesAsVisitor(q: Executor, realmId: number, messageIds: readonly number[]): Promise<Map<number, Message>> {
  const messages = (await messageStore.listByIds(q, realmId, messageIds)).filter((m) => m.is_channel_message);
  const streams = await channelRecipientStore.streamsByRecipientIds(
    q,
    realmId,
    messages.map((m) => m.recipient_id),
  );
  const readable = new Set(streams.filter((s) => visitorCanRead(realmId, s)).map((s) => s.recipient_id));
  return new Map(messages.filter((m) => readable.has(m.recipient_id)).map((m) => [m.id, m]));
}

/** accessMessage for changes (reactions, edits): also refuses messages in archived channels. */
export async function accessMessageForModification(q: Executor, subject: AccessSubject, messageId: number): Promise<AccessibleMessage> {
  const found = await accessMessage(q, subject, messageId);
  if (found.message.is_channel_message) {
    const [stream] = await channelRecipientStore.streamsByRecipientIds(q, subject.user.realm_id, [found.message.recipient_id]);
    if (!stream || stream.is_archived) throw invalidMessageError();
  }
  return found;
}

/**
 * Who gets the events about an action on a message (reaction, edit, deletion), Zulip's
 * event_recipient_ids_for_action_on_messages: for direct messages, those who received it; for
 * channels, the active subscribers, only those who also received it when history is protected,
 * and for public channels also non-guests holding a user_messages row (former subscribers, users
 * who reacted or starred). Users who could fetch it but have no row get no live updates, as in Zulip.
 */
export async function eventRecipientIdsForMessage(q: Executor, message: Message): Promise<number[]> {
  const received = await userMessageStore.userIdsFor(q, message.id);
  if (!message.is_channel_message) return received;
  const [stream] = await channelRecipientStore.streamsByRecipientIds(q, message.realm_id, [message.recipient_id]);
  if (!stream) return [];
  const subscribers = (await channelRecipientStore.activeSubscribers(q, message.recipient_id)).map((s) => s.user_id);
  if (!historyIsPublic(stream)) {
    const receivedSet = new Set(received);
    return subscribers.filter((id) => receivedSet.has(id));
  }
  if (stream.invite_only) return subscribers;
  const holders = (await userStore.listByIds(q, message.realm_id, received)).filter((u) => !isGuest(u)).map((u) => u.id);
  return [...new Set([...subscribers, ...holders])];
}
