import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { accessMessages, invalidMessageError } from "../lib/messageAccess.js";
import { narrowQueryFor, buildNarrow, type NarrowTerm } from "../lib/narrow/index.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { ANY_MENTION_FLAGS, MessageFlag } from "../models/messageFlags.js";
import { RecipientType } from "../models/roles.js";
import { directMessageGroupStore } from "../store/directMessageGroups.js";
import { messageStore } from "../store/messages.js";
import { subscriptionStore } from "../store/streams.js";
import { userMessageFlagStore, userMessageStore } from "../store/userMessages.js";
import { policyKey, userTopicStore } from "../store/userTopics.js";
import { VisibilityPolicy } from "../contract/constants.js";
import { queuePushRemovals } from "./pushNotifications.js";
import type { UpdateMessageFlagsEvent } from "../events/types.js";
import { recipientStore } from "../store/recipients.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { narrowQueryStore } from "../store/narrowQueries.js";
import { defined } from "../util/defined.js";

/** Editable flags by API name; the others of Zulip's UserMessage.flags are bookkeeping. */
const EDITABLE_FLAGS: Record<string, number> = { read: MessageFlag.READ, starred: MessageFlag.STARRED, collapsed: MessageFlag.COLLAPSED };
const NON_EDITABLE_FLAGS = new Set([
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "force_expand",
  "force_collapse",
  "has_alert_word",
  "historical",
]);

/** What a user who did not receive a message sees for it (Zulip's DEFAULT_HISTORICAL_FLAGS). */
const DEFAULT_HISTORICAL_FLAGS = MessageFlag.READ | MessageFlag.HISTORICAL;

export interface FlagChange {
  add: boolean;
  flag: string;
  bit: number;
}

/** Zulip's checks in do_update_message_flags, in its order. */
export function checkFlagChange(op: string, flag: string): FlagChange {
  if (!(flag in EDITABLE_FLAGS) && !NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== "add" && op !== "remove") throw badRequest(`Invalid message flag operation: '${op}'`);
  return { add: op === "add", flag, bit: defined(EDITABLE_FLAGS[flag], `the bit of flag ${flag}`) };
}

export interface FlagUpdateResult {
  /** Ids whose flag changed, in request order. */
  changed: number[];
  /** Channels whose messages were not marked unread because the user is not subscribed. */
  ignoredChannelIds: number[];
}

/**
 * Adds or removes one flag on the user's messages (Zulip's do_update_message_flags). Messages
 * the user may read without having received them (public history) get a row with the
 * historical flags when the change makes them differ from the historical default; an id the
 * user may not read is then "Invalid message(s)". Ids where nothing would change are skipped
 * silently, whoever's they are. Unread messages exist only in subscribed channels, so marking
 * unread skips the others.
 */
export async function doUpdateMessageFlags(tx: Tx, user: User, change: FlagChange, requested: readonly number[]): Promise<FlagUpdateResult> {
  const q = tx.q;
  const subject = new AccessSubject(user);
  let ids = [...new Set(requested)];
  let ignoredChannelIds: number[] = [];
  if (change.bit === MessageFlag.READ && !change.add) {
    const subscribed = await subject.subscribedRecipientIds(q);
    const skipped = (await messageStore.listByIds(q, user.realm_id, ids)).filter((m) => m.is_channel_message && !subscribed.has(m.recipient_id));
    const skippedIds = new Set(skipped.map((m) => m.id));
    ids = ids.filter((id) => !skippedIds.has(id));
    const streams = await channelRecipientStore.streamsByRecipientIds(
      q,
      user.realm_id,
      skipped.map((m) => m.recipient_id),
    );
    ignoredChannelIds = streams.map((s) => s.id).sort((a, b) => a - b);
  }

  const flags = await userMessageStore.flagsFor(q, user.id, ids);
  const target = change.add ? change.bit : 0;
  const changed = ids.filter((id) => ((flags.get(id) ?? DEFAULT_HISTORICAL_FLAGS) & change.bit) !== target);
  const historical = changed.filter((id) => !flags.has(id));
  if (historical.length > 0) {
    const readable = await accessMessages(q, subject, historical);
    if (readable.size !== historical.length) throw invalidMessageError();
    const rowFlags = (DEFAULT_HISTORICAL_FLAGS & ~change.bit) | target;
    await userMessageFlagStore.insertIfMissing(
      q,
      historical.sort((a, b) => a - b).map((message_id) => ({ user_id: user.id, message_id, flags: rowFlags })),
    );
  }
  await userMessageFlagStore.setFlag(q, user.id, changed, change.bit, change.add);
  if (change.bit === MessageFlag.READ && change.add) await queuePushRemovals(tx, user.id, changed);

  const op = change.add ? "add" : "remove";
  const event: UpdateMessageFlagsEvent = { type: "update_message_flags", op, operation: op, flag: change.flag, messages: changed, all: false };
  if (change.bit === MessageFlag.READ && !change.add) event.message_details = await unreadMessageDetails(q, user, changed);
  tx.sendEventOnCommit(event, [user.id]);
  return { changed, ignoredChannelIds };
}

export interface NarrowFlagRequest {
  anchor: number | null;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  terms: NarrowTerm[];
  op: string;
  flag: string;
}

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID and MAX_MESSAGES_PER_UPDATE. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;
const MAX_MESSAGES_PER_UPDATE = 5000;

/** POST /messages/flags/narrow: the range is found as GET /messages finds it, then updated. */
export async function checkUpdateMessageFlagsForNarrow(tx: Tx, user: User, realm: Realm, req: NarrowFlagRequest) {
  if (req.numBefore > 0 && req.numAfter > 0 && !req.includeAnchor) throw badRequest("The anchor can only be excluded at an end of the range");
  const numBefore = Math.min(req.numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - req.numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  const numAfter = Math.min(req.numAfter, MAX_MESSAGES_PER_UPDATE - numBefore);

  const narrow = await buildNarrow({ q: tx.q, subject: new AccessSubject(user), me: user, realmId: user.realm_id }, req.terms);
  const query = narrowQueryFor(narrow, user, realm.id);
  const anchor = req.anchor ?? (await narrowQueryStore.firstUnreadId(tx.q, query)) ?? LARGER_THAN_MAX_MESSAGE_ID;
  const anchoredToRight = anchor === LARGER_THAN_MAX_MESSAGE_ID;
  const before = (await narrowQueryStore.range(tx.q, query, "<", anchor, numBefore)).reverse();
  const after = anchoredToRight
    ? []
    : await narrowQueryStore.range(tx.q, query, req.includeAnchor ? ">=" : ">", anchor, numAfter + (req.includeAnchor ? 1 : 0));
  const anchorRows = after.filter((r) => r.id === anchor);
  const afterRows = after.filter((r) => r.id !== anchor).slice(0, numAfter);
  const ids = [...before, ...anchorRows, ...afterRows].map((r) => r.id);

  const { changed, ignoredChannelIds } = await doUpdateMessageFlags(tx, user, checkFlagChange(req.op, req.flag), ids);
  return {
    processed_count: ids.length,
    updated_count: changed.length,
    first_processed_id: ids[0] ?? null,
    last_processed_id: ids.at(-1) ?? null,
    found_oldest: anchor === 0 || before.length < numBefore,
    found_newest: anchoredToRight || afterRows.length < numAfter,
    ...(req.flag === "read" && req.op === "remove" ? { ignored_because_not_subscribed_channels: ignoredChannelIds } : {}),
  };
}

/**
 * One batch of POST /mark_all_as_read; returns how many messages it marked. The last batch
 * (fewer than `batchSize`) sends the single `all: true` event, as Zulip does.
 */
export async function doMarkAllAsReadBatch(tx: Tx, user: User, batchSize: number): Promise<number> {
  const ids = await userMessageFlagStore.unreadIds(tx.q, user.id, { limit: batchSize });
  await userMessageFlagStore.setFlag(tx.q, user.id, ids, MessageFlag.READ, true);
  await queuePushRemovals(tx, user.id, ids);
  if (ids.length < batchSize) {
    tx.sendEventOnCommit({ type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true }, [user.id]);
  }
  return ids.length;
}

/** Marks the user's unread messages of a channel, or of one topic of it, as read. */
export async function doMarkStreamMessagesAsRead(tx: Tx, user: User, recipientId: number, topic?: string): Promise<number> {
  const ids = await userMessageFlagStore.unreadIds(tx.q, user.id, { recipientId, topic });
  if (ids.length === 0) return 0;
  await userMessageFlagStore.setFlag(tx.q, user.id, ids, MessageFlag.READ, true);
  await queuePushRemovals(tx, user.id, ids);
  tx.sendEventOnCommit({ type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: ids, all: false }, [user.id]);
  return ids.length;
}

type MessageDetails =
  | { type: "private"; user_ids: number[]; mentioned?: true }
  | { type: "stream"; stream_id: number; topic: string; unmuted_stream_msg: boolean; mentioned?: true };

/**
 * What clients need to put messages that became unread into their unread_msgs (Zulip's
 * format_unread_message_details). Wildcard mentions in muted conversations do not count.
 */
async function unreadMessageDetails(q: Executor, user: User, ids: readonly number[]): Promise<Record<string, MessageDetails>> {
  const messages = await messageStore.listByIds(q, user.realm_id, ids);
  const flags = await userMessageStore.flagsFor(q, user.id, ids);
  const recipients = new Map(
    (
      await recipientStore.listByIds(
        q,
        messages.map((m) => m.recipient_id),
      )
    ).map((r) => [r.id, r]),
  );
  const channelRecipientIds = messages.filter((m) => m.is_channel_message).map((m) => m.recipient_id);
  const streams = new Map((await channelRecipientStore.streamsByRecipientIds(q, user.realm_id, channelRecipientIds)).map((s) => [s.recipient_id, s]));
  const mutedChannels = new Set(
    (await subscriptionStore.listForUsers(q, [user.id], channelRecipientIds)).filter((s) => s.active && s.is_muted).map((s) => s.recipient_id),
  );
  const policies = await userTopicStore.policiesInStreams(
    q,
    user.id,
    [...streams.values()].map((s) => s.id),
  );
  const groups = await directMessageGroupStore.listByRecipientIds(
    q,
    [...recipients.values()].filter((r) => r.type === RecipientType.DIRECT_MESSAGE_GROUP).map((r) => r.id),
  );

  const result: Record<string, MessageDetails> = {};
  for (const message of messages) {
    const bits = flags.get(message.id) ?? 0;
    let details: MessageDetails;
    let muted = false;
    if (message.is_channel_message) {
      const stream = streams.get(message.recipient_id)!;
      const policy = policies.get(policyKey(stream.id, message.subject)) ?? VisibilityPolicy.INHERIT;
      muted =
        policy === VisibilityPolicy.MUTED ||
        (mutedChannels.has(message.recipient_id) && policy !== VisibilityPolicy.UNMUTED && policy !== VisibilityPolicy.FOLLOWED);
      details = { type: "stream", stream_id: stream.id, topic: message.subject, unmuted_stream_msg: !muted };
    } else {
      const recipient = recipients.get(message.recipient_id)!;
      const members = recipient.type === RecipientType.PERSONAL ? [message.sender_id, recipient.type_id] : (groups.get(recipient.id) ?? []);
      details = { type: "private", user_ids: [...new Set(members)].filter((id) => id !== user.id).sort((a, b) => a - b) };
    }
    const mentioned = (bits & MessageFlag.MENTIONED) !== 0 || (!muted && (bits & ANY_MENTION_FLAGS) !== 0);
    if (mentioned) details.mentioned = true;
    result[String(message.id)] = details;
  }
  return result;
}
