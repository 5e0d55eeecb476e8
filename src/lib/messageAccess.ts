import type { Stream } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { badRequest } from "../http/errors.js";
import { channelRecipientStore, messageStore, type Message } from "../store/messages.js";
import { userMessageStore } from "../store/userMessages.js";
import { type AccessSubject, type ChannelAccess, channelAccess } from "./streamAccess.js";

/**
 * THE place that decides whether a user may read a message (SECURITY.md, "Who may read a
 * message"). Every message endpoint, event fan-out and search asks here or applies
 * `readableChannelFilter` below, which encodes the same rules for queries.
 *
 * - direct messages: only users who received them (a user_messages row);
 * - channel messages: content access to the channel now, and, when the channel's history is
 *   protected (private, history not public to subscribers), the user must have received it.
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
  const flags = await userMessageStore.flagsFor(q, subject.user.id, messages.map((m) => m.id));
  const channels = await channelsByRecipient(q, subject, messages.filter((m) => m.is_channel_message).map((m) => m.recipient_id));
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
export async function channelsByRecipient(q: Executor, subject: AccessSubject, recipientIds: readonly number[]): Promise<Map<number, ChannelAccess>> {
  if (recipientIds.length === 0) return new Map();
  const streams = await channelRecipientStore.streamsByRecipientIds(q, subject.user.realm_id, recipientIds);
  const result = new Map<number, ChannelAccess>();
  for (const stream of streams) result.set(stream.recipient_id!, await channelAccess(q, subject, stream));
  return result;
}

/**
 * For queries over many messages (narrows): the realm's channel recipient ids whose messages the
 * user may not read at all now, and those whose history is protected (readable only if received).
 */
export async function channelReadability(q: Executor, subject: AccessSubject): Promise<{ unreadable: number[]; protectedHistory: number[]; readable: Map<number, ChannelAccess> }> {
  const streams = await channelRecipientStore.streamsInRealm(q, subject.user.realm_id);
  const unreadable: number[] = [];
  const protectedHistory: number[] = [];
  const readable = new Map<number, ChannelAccess>();
  for (const stream of streams) {
    if (stream.recipient_id === null) continue;
    const access = await channelAccess(q, subject, stream);
    if (!access.canReadContent) unreadable.push(stream.recipient_id);
    else {
      readable.set(stream.recipient_id, access);
      if (!historyIsPublic(stream)) protectedHistory.push(stream.recipient_id);
    }
  }
  return { unreadable, protectedHistory, readable };
}
