import { usersWithAlertWords } from "../lib/alertWords.js";
import { normalizeContent, normalizeTopic } from "../lib/messageText.js";
import { foldCase } from "../util/foldCase.js";
import { receiverFilterStore, type SendReads, type SendTopic, type SendTopicState } from "../store/receiverFilters.js";
import { insertWidgetSubmessages } from "./submessages.js";
import { queueUrlPreviews } from "./urlPreviews.js";
import type { Realm, Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { findUserByEmail } from "../lib/access.js";
import { MessagePayloadBuilder, type SenderAccess } from "../lib/messagePayload.js";
import { VisibilityPolicy } from "../contract/constants.js";
import { type GuestAccessSnapshot, sendGuestAccessChanges, snapshotGuestAccess, userAccessMayBeRestricted } from "../lib/userAccessEvents.js";
import { renderMessageContent, type RenderedMessage } from "../lib/messageRendering.js";
import { hasRealmPermission, realmGroupPermissionId } from "../lib/realmPermissions.js";
import { accessStreamById, accessStreamByName, AccessSubject, type ChannelAccess, metadataAudience } from "../lib/streamAccess.js";
import { checkUserGroupMentionAllowed } from "../lib/userGroupAccess.js";
import { flagsToList, MessageFlag } from "../models/messageFlags.js";
import { userSettings } from "../models/userSettings.js";
import { directMessageRecipientId } from "../store/directMessageGroups.js";
import { type Message, messageStore, type Submessage } from "../store/messages.js";
import { userTopicStore } from "../store/userTopics.js";
import { groupMembershipStore, userGroupStore } from "../store/userGroups.js";
import { userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { streamStore } from "../store/streams.js";
import { nowSeconds } from "../util/time.js";
import { doLinkAttachments } from "./attachments.js";
import { queueOutgoingWebhooks } from "./outgoingWebhooks.js";
import { queueMissedMessageEmails } from "./missedMessageEmails.js";
import { notificationTriggers } from "./notificationTriggers.js";
import { queuePushNotifications } from "./pushNotifications.js";
import type { NewMessageEvent } from "../events/types.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { messageSearchStore } from "../store/messageSearch.js";
import { at } from "../util/defined.js";

const NO_USERS: ReadonlySet<number> = new Set();
/** Zulip's WILDCARD_MENTION_THRESHOLD. */
const WILDCARD_MENTION_THRESHOLD = 15;

export interface SendMessageRequest {
  type: "direct" | "private" | "stream" | "channel";
  to: unknown;
  content: string;
  topic: string | undefined;
  queueId?: string;
  localId?: string;
  readBySender?: boolean;
  clientName: string;
  /** The organization's URL (realmUrl), to show a sender a restricted guest may not access as Zulip's "Unknown user". */
  realmUrl?: string;
}

export type SendMessageResult = {
  id: number;
  automatic_new_visibility_policy?: number;
};

/** Where a message goes and who gets a user_messages row. */
export type Destination =
  | { kind: "channel"; access: ChannelAccess; recipientId: number; topic: string; receivers: Array<{ user_id: number; is_muted: number }> }
  | {
      kind: "direct";
      recipientId: number;
      participantIds: number[];
      /** The restricted guests among the participants, with whom they could access before this message. */
      accessBefore?: GuestAccessSnapshot;
    };

/** POST /messages: validates everything, then writes the message in the caller's transaction. */
export async function checkSendMessage(tx: Tx, sender: User, realm: Realm, req: SendMessageRequest): Promise<SendMessageResult> {
  return sendCheckedMessage(tx, sender, realm, await checkMessage(tx, sender, realm, req), req);
}

/** Writes a message checkMessage passed (in this or an earlier transaction), as `req` asked. */
export async function sendCheckedMessage(tx: Tx, sender: User, realm: Realm, checked: CheckedMessage, req: SendMessageRequest): Promise<SendMessageResult> {
  const readBySender = req.readBySender ?? defaultReadBySender(req.clientName);
  return doSendMessage(tx, sender, realm, checked.destination, checked.content, checked.rendered, { ...req, readBySender });
}

/** A message that passed every rule of sending, not yet written. */
export interface CheckedMessage {
  destination: Destination;
  content: string;
  rendered: RenderedMessage;
}

/**
 * Zulip's check_message: every rule of sending (recipients, permissions, topic, content,
 * wildcard mentions) checked and the content rendered, without writing the message. Scheduled
 * messages use it when scheduled, edited and delivered.
 */
export async function checkMessage(
  tx: Tx,
  sender: User,
  realm: Realm,
  req: Pick<SendMessageRequest, "type" | "to" | "content" | "topic">,
): Promise<CheckedMessage> {
  const content = normalizeContent(req.content);
  const subject = new AccessSubject(sender);
  const destination =
    req.type === "stream" || req.type === "channel"
      ? await channelDestination(tx, subject, realm, req.to, req.topic)
      : await directDestination(tx, subject, realm, req.to);
  const rendered = await renderMessageContent(tx.q, realm, sender, content);
  if (destination.kind === "channel") await checkWildcardMention(tx, subject, realm, destination, rendered);
  await checkUserGroupMentionAllowed(tx.q, subject, realm, rendered.mentionedGroupIds);
  return { destination, content, rendered };
}

/** Zulip's extract_stream_indicator: a name, a JSON name, an id, or a one-element list of either. */
function channelIndicator(to: unknown): string | number {
  let value = to;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw badRequest("Expected exactly one channel");
    value = value[0];
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  throw badRequest("Invalid data type for channel");
}

async function channelDestination(tx: Tx, subject: AccessSubject, realm: Realm, to: unknown, topic: string | undefined): Promise<Destination> {
  const indicator = channelIndicator(to);
  const topicName = normalizeTopic(realm, topic);
  // The channel's access needs both the sender's groups and subscriptions: one statement for the two.
  await subject.preload(tx.q);
  const access = typeof indicator === "string" ? await accessStreamByName(tx.q, subject, indicator.trim()) : await channelById(tx, subject, indicator);
  await checkCanPost(tx, subject, access);
  const recipientId = access.stream.recipient_id;
  const receivers = await channelRecipientStore.activeSubscribers(tx.q, recipientId);
  return { kind: "channel", access, recipientId, topic: topicName, receivers };
}

async function channelById(tx: Tx, subject: AccessSubject, streamId: number): Promise<ChannelAccess> {
  try {
    return await accessStreamById(tx.q, subject, streamId);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(`Channel with ID '${streamId}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream_id: streamId } });
  }
}

/** Zulip's access_stream_for_send_message texts; the rules are streamAccess's canPost. */
async function checkCanPost(tx: Tx, subject: AccessSubject, access: ChannelAccess): Promise<void> {
  if (access.canPost) return;
  const groupId = access.stream.can_send_message_group_id;
  if (!access.stream.is_archived && (groupId === null || !(await subject.groupIds(tx.q)).has(groupId))) {
    throw badRequest("You do not have permission to post in this channel.");
  }
  throw badRequest(`Not authorized to send to channel '${access.stream.name}'`);
}

/** Zulip's extract_private_recipients: JSON list of ids or emails, or comma-separated emails. */
function directIndicator(to: unknown): { ids: number[] } | { emails: string[] } {
  const data = typeof to === "string" ? to.split(",") : to;
  if (!Array.isArray(data)) throw badRequest("Invalid data type for recipients");
  if (data.length === 0) throw badRequest("Message must have recipients");
  if (typeof data[0] === "string") {
    if (!data.every((e) => typeof e === "string")) throw badRequest("Recipient lists may contain emails or user IDs, but not both.");
    const emails = [...new Set(data.map((e: string) => e.trim()).filter((e) => e !== ""))];
    if (emails.length === 0) throw badRequest("Message must have recipients");
    return { emails };
  }
  if (!data.every((id) => typeof id === "number" && Number.isSafeInteger(id))) {
    throw badRequest(typeof data[0] === "number" ? "Recipient lists may contain emails or user IDs, but not both." : "Invalid data type for recipients");
  }
  return { ids: [...new Set(data as number[])] };
}

async function directDestination(tx: Tx, subject: AccessSubject, realm: Realm, to: unknown): Promise<Destination> {
  const sender = subject.user;
  const indicator = directIndicator(to);
  const recipients: User[] = [];
  if ("ids" in indicator) {
    const found = new Map((await userStore.listByIds(tx.q, sender.realm_id, indicator.ids)).map((u) => [u.id, u]));
    for (const id of indicator.ids) {
      const user = found.get(id);
      if (!user) throw badRequest(`Invalid user ID ${id}`);
      recipients.push(user);
    }
  } else {
    for (const email of indicator.emails) {
      const user = await findUserByEmail(tx.q, sender, email);
      if (!user) throw badRequest(`Invalid email '${email}'`);
      recipients.push(user);
    }
  }
  for (const user of recipients) {
    if (!user.is_active && !user.is_mirror_dummy) throw badRequest(`'${user.email}' is no longer using Zulip.`);
  }
  const participantIds = [...new Set([sender.id, ...recipients.map((u) => u.id)])].sort((a, b) => a - b);
  // Taken before a new group conversation exists (Zulip's get_recipients_for_user_creation_events).
  const accessBefore = await snapshotGuestAccess(tx.q, realm, participantIds);
  const recipientId = await directMessageRecipientId(tx.q, sender.realm_id, [sender, ...recipients], sender.id);
  await checkDirectMessagePolicy(tx, subject, realm, recipients, recipientId);
  return { kind: "direct", recipientId, participantIds, accessBefore };
}

/**
 * Zulip's realm DM policies. Conversations with only bots or oneself are always allowed.
 * direct_message_permission_group: outside it, a user may only write to conversations that
 * include a member. direct_message_initiator_group: outside it, a user may not start a new one.
 */
async function checkDirectMessagePolicy(tx: Tx, subject: AccessSubject, realm: Realm, recipients: readonly User[], recipientId: number): Promise<void> {
  const sender = subject.user;
  const others = recipients.filter((u) => u.id !== sender.id);
  if (others.every((u) => u.is_bot)) return;
  if (!(await hasRealmPermission(tx.q, subject, realm, "direct_message_permission_group"))) {
    const groupId = await realmGroupPermissionId(tx.q, realm, "direct_message_permission_group");
    const nobody = await userGroupStore.getSystemGroup(tx.q, realm.id, "role:nobody");
    if (groupId === nobody.id) throw badRequest("Direct messages are disabled in this organization.");
    const authorizers = await groupMembershipStore.membersOf(
      tx.q,
      groupId,
      others.map((u) => u.id),
    );
    if (authorizers.size === 0) throw badRequest("This conversation does not include any users who can authorize it.");
  }
  if (!(await hasRealmPermission(tx.q, subject, realm, "direct_message_initiator_group"))) {
    // A 1:1 conversation is stored under each side's personal recipient, one per direction.
    const [other] = others;
    const earlier =
      others.length === 1 && other !== undefined
        ? [
            { recipientId: other.recipient_id, senderId: sender.id },
            { recipientId: sender.recipient_id, senderId: other.id },
          ]
        : [{ recipientId }];
    if (!(await messageStore.existsFor(tx.q, earlier))) {
      throw badRequest("You do not have permission to initiate direct message conversations.");
    }
  }
}

/** Zulip's stream/topic_wildcard_mention_allowed: large audiences need can_mention_many_users_group. */
export async function checkWildcardMention(
  tx: Tx,
  subject: AccessSubject,
  realm: Realm,
  destination: Extract<Destination, { kind: "channel" }>,
  rendered: RenderedMessage,
): Promise<void> {
  if (rendered.wildcard === null) return;
  const audience =
    rendered.wildcard === "stream"
      ? destination.receivers.length
      : new Set([subject.user.id, ...(await messageStore.topicSenderIds(tx.q, destination.recipientId, destination.topic))]).size;
  if (audience <= WILDCARD_MENTION_THRESHOLD) return;
  if (await hasRealmPermission(tx.q, subject, realm, "can_mention_many_users_group")) return;
  if (rendered.wildcard === "stream") {
    throw new ApiError("You do not have permission to use channel wildcard mentions in this channel.", { code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED" });
  }
  throw new ApiError("You do not have permission to use topic wildcard mentions in this topic.", { code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED" });
}

/**
 * Zulip's Client.default_read_by_sender: messages sent from Zulip's own apps are read for their
 * sender; messages sent by other API clients (integrations using a user's key) are not.
 */
const HUMAN_CLIENTS = new Set([
  "zulipandroid",
  "zulipios",
  "zulipdesktop",
  "zulipmobile",
  "zulipelectron",
  "zulipterminal",
  "zulipflutter",
  "snipe",
  "website",
  "ios",
  "android",
]);
export function defaultReadBySender(clientName: string): boolean {
  const name = clientName.toLowerCase();
  return HUMAN_CLIENTS.has(name) || name.includes("desktop app");
}

interface SendOptions {
  readBySender: boolean;
  /** Receivers whose copy starts read (Zulip's mark_as_read; "all" is limit_unread_user_ids=set()). */
  alsoReadBy?: ReadonlySet<number> | "all";
  clientName: string;
  queueId?: string;
  localId?: string;
  /** As in SendMessageRequest: needed when a human sender may be inaccessible to a receiver. */
  realmUrl?: string;
}

/** Writes the message, its user_messages rows and the sender's topic policy; queues the events. */
export async function doSendMessage(
  tx: Tx,
  sender: User,
  realm: Realm,
  destination: Destination,
  content: string,
  rendered: RenderedMessage,
  options: SendOptions,
): Promise<SendMessageResult> {
  return at(await doSendMessages(tx, sender, realm, [{ destination, content, rendered, options }]), 0);
}

/** One message of doSendMessages: checked (checkMessage) and rendered, not yet written. */
export interface OutgoingMessage {
  destination: Destination;
  content: string;
  rendered: RenderedMessage;
  options: SendOptions;
}

/**
 * doSendMessage for several messages from one sender (the Notification Bot's notices to many
 * users or channels): the same rows and events as sending them one by one, in that order, with
 * one statement per table for all of them (messages, search, user_messages, jobs, daily counts,
 * first_message_id, topic and follower look-ups). The messages are checked and rendered already
 * (checkMessage); the stages below pass one object along, each adding what it wrote or read.
 */
export async function doSendMessages(tx: Tx, sender: User, realm: Realm, outgoing: readonly OutgoingMessage[]): Promise<SendMessageResult[]> {
  if (outgoing.length === 0) return [];
  const channelMessages = outgoing.flatMap(({ destination: d }, i) => (d.kind === "channel" ? [{ i, destination: d }] : []));
  const read = await readTopics({ tx, sender, realm, outgoing, channelMessages });
  const written = await writeMessages(read);
  const received = await writeReceivers(written);
  await queueNotifications(received);
  const counted = await countChannelMessages(received);
  const results = await applyChannelEffects(counted);
  await publishMessages(counted);
  return results;
}

type ChannelDestination = Extract<Destination, { kind: "channel" }>;

/** A batch of doSendMessages: the messages to send, and their channel messages with their index. */
interface SendBatch {
  tx: Tx;
  sender: User;
  realm: Realm;
  outgoing: readonly OutgoingMessage[];
  channelMessages: ReadonlyArray<{ i: number; destination: ChannelDestination }>;
}

/** readTopics: who muted the sender, and the state of each message's topic. */
interface ReadBatch extends SendBatch {
  reads: SendReads;
  topicState: (i: number) => SendTopicState;
  /** Per message: whether it starts its topic (only asked for a human sender). */
  newTopic: boolean[];
}

/** writeMessages: the messages' rows and their widgets' submessages. */
interface WrittenBatch extends ReadBatch {
  messages: Message[];
  widgets: Submessage[];
}

/** writeReceivers: each message's user_messages rows. */
interface ReceivedBatch extends WrittenBatch {
  rowsByMessage: Array<Array<{ user_id: number; message_id: number; flags: number }>>;
}

/** countChannelMessages: the channels whose first message this batch sent, and who hears of it. */
interface CountedBatch extends ReceivedBatch {
  firstIn: Set<number>;
  audiences: Map<number, Set<number>>;
}

/**
 * One statement before any write: who muted the sender, and per distinct topic its followers,
 * whether it has a message yet and the sender's policy (receiverFilterStore.forSend). Topics
 * compare without regard to case, as the statement compares them.
 */
async function readTopics(batch: SendBatch): Promise<ReadBatch> {
  const { tx, sender, outgoing, channelMessages } = batch;
  const topicIndex = new Map<string, number>();
  const sendTopics: SendTopic[] = [];
  const topicOfMessage = new Map<number, number>();
  const firstInTopic = new Set<number>();
  for (const { i, destination: d } of channelMessages) {
    const key = `${d.access.stream.id} ${foldCase(d.topic)}`;
    let k = topicIndex.get(key);
    if (k === undefined) {
      topicIndex.set(key, (k = sendTopics.length));
      sendTopics.push({ streamId: d.access.stream.id, recipientId: d.recipientId, topic: d.topic });
      firstInTopic.add(i);
    }
    topicOfMessage.set(i, k);
  }
  const reads = await receiverFilterStore.forSend(tx.q, sender.id, sendTopics, { humanSender: !sender.is_bot });
  const topicState = (i: number) => at(reads.topics, topicOfMessage.get(i)!);
  // A topic is new when it has no message yet, nor an earlier one of this batch. Only the automatic
  // topic policies of a human sender ask.
  const newTopic: boolean[] = outgoing.map(() => false);
  if (!sender.is_bot) for (const { i } of channelMessages) newTopic[i] = firstInTopic.has(i) && !topicState(i).hasMessages;
  return { ...batch, reads, topicState, newTopic };
}

/** The messages' rows, their search index, their widgets, and the website previews they queue. */
async function writeMessages(batch: ReadBatch): Promise<WrittenBatch> {
  const { tx, sender, realm, outgoing } = batch;
  const topicOf = (d: Destination) => (d.kind === "channel" ? d.topic : "");
  const date = nowSeconds();
  const messages = await messageStore.insertMany(
    tx.q,
    outgoing.map(({ destination, content, rendered, options }) => ({
      realm_id: realm.id,
      sender_id: sender.id,
      recipient_id: destination.recipientId,
      subject: topicOf(destination),
      content,
      rendered_content: rendered.html,
      rendered_content_version: 1,
      date_sent: date,
      sending_client: options.clientName,
      has_attachment: rendered.hasAttachment ? 1 : 0,
      has_image: rendered.hasImage ? 1 : 0,
      has_link: rendered.hasLink ? 1 : 0,
      is_channel_message: destination.kind === "channel" ? 1 : 0,
    })),
  );
  await messageSearchStore.indexNew(tx.q, messages);
  const widgets = await insertWidgetSubmessages(
    tx,
    sender.id,
    outgoing.map(({ content }, i) => ({ message: at(messages, i), content })),
  );
  await queueUrlPreviews(
    tx,
    realm,
    sender,
    outgoing.map(({ rendered }, i) => ({ message: at(messages, i), links: rendered.linksForPreview })),
  );
  return { ...batch, messages, widgets };
}

/** Each message's attachments, outgoing webhooks and user_messages rows; guests' access changes. */
async function writeReceivers(batch: WrittenBatch): Promise<ReceivedBatch> {
  const { tx, sender, realm, outgoing, messages, reads } = batch;
  // Receivers who muted the sender get the message already read (Zulip's get_muting_users).
  const { mutedBy } = reads;
  const alertWords = await receiverFilterStore.alertWordsInRealm(tx.q, realm.id);
  const rowsByMessage: Array<Array<{ user_id: number; message_id: number; flags: number }>> = [];
  for (const [i, { destination, rendered, options }] of outgoing.entries()) {
    const message = at(messages, i);
    await doLinkAttachments(tx, message.id, rendered.attachments);
    if (destination.kind === "channel") await queueOutgoingWebhooks(tx, sender, message, rendered.mentionedUserIds, "mention");
    else await queueOutgoingWebhooks(tx, sender, message, destination.participantIds, "direct_message");
    const alerted = alertWords.length > 0 ? usersWithAlertWords(message.content, alertWords) : NO_USERS;
    rowsByMessage.push(await receiverRows(tx, sender, message, destination, rendered, options, { mutedBy, alerted }));
  }
  await userMessageStore.insertMany(tx.q, rowsByMessage.flat());
  // Restricted guests who now share a direct message with someone hear of him before the message.
  for (const { destination } of outgoing) {
    if (destination.kind === "direct" && destination.accessBefore) await sendGuestAccessChanges(tx, realm, destination.accessBefore);
  }
  return { ...batch, rowsByMessage };
}

/** The push notifications and missed-message emails the messages trigger. */
async function queueNotifications(batch: ReceivedBatch): Promise<void> {
  const { tx, sender, outgoing, messages, rowsByMessage, topicState } = batch;
  const triggers = await notificationTriggers(
    tx,
    sender,
    outgoing.map(({ destination: d }, i) => ({
      rows: at(rowsByMessage, i),
      channel: d.kind === "channel" ? { streamId: d.access.stream.id, topic: d.topic, followers: topicState(i).followers } : null,
    })),
  );
  const notifications = messages.map((message, i) => ({ message, triggers: at(triggers, i) }));
  await queuePushNotifications(tx, notifications);
  await queueMissedMessageEmails(tx, notifications);
}

/** The channels' daily counts and first messages, for all the channel messages at once. */
async function countChannelMessages(batch: ReceivedBatch): Promise<CountedBatch> {
  const { tx, realm, channelMessages, messages } = batch;
  await streamStore.countChannelMessages(
    tx.q,
    channelMessages.map(({ i, destination: d }) => ({ recipientId: d.recipientId, id: at(messages, i).id, dateSent: at(messages, i).date_sent })),
  );
  // Only channels without a first message yet (as read for this send) are asked.
  const firstIn = await messageStore.setStreamsFirstMessageIdIfNull(
    tx.q,
    channelMessages
      .filter(({ destination: d }) => d.access.stream.first_message_id === null)
      .map(({ i, destination: d }) => ({ streamId: d.access.stream.id, messageId: at(messages, i).id })),
  );
  const firstStreams = channelMessages.filter(({ destination: d }) => firstIn.has(d.access.stream.id)).map(({ destination: d }) => d.access.stream);
  const audiences =
    firstStreams.length > 0
      ? await metadataAudience(tx.q, realm.id, [...new Map(firstStreams.map((s) => [s.id, s])).values()])
      : new Map<number, Set<number>>();
  return { ...batch, firstIn, audiences };
}

/** Per message, in order: a channel's new first message, the sender's automatic topic policy; the results. */
async function applyChannelEffects(batch: CountedBatch): Promise<SendMessageResult[]> {
  const { tx, sender, outgoing, messages, firstIn, audiences, newTopic, topicState } = batch;
  const results: SendMessageResult[] = [];
  for (const [i, { destination }] of outgoing.entries()) {
    const message = at(messages, i);
    let automaticPolicy: number | undefined;
    if (destination.kind === "channel") {
      const stream = destination.access.stream;
      if (firstIn.has(stream.id)) {
        // Zulip sends this only when a deletion moves first_message_id; a channel's first message
        // changes it too, so clients that saw the channel created learn it (state stays consistent).
        // The first of this batch's messages to the channel is the one that set it.
        firstIn.delete(stream.id);
        tx.sendEventOnCommit(
          { type: "stream", op: "update", stream_id: stream.id, name: stream.name, property: "first_message_id", value: message.id },
          audiences.get(stream.id)!,
        );
      }
      automaticPolicy = await applyAutomaticTopicPolicy(tx, sender, destination, at(newTopic, i), topicState(i));
    }
    results.push(automaticPolicy === undefined ? { id: message.id } : { id: message.id, automatic_new_visibility_policy: automaticPolicy });
  }
  return results;
}

/** The message events: the payloads built once for the batch, one event per distinct payload. */
async function publishMessages(batch: ReceivedBatch): Promise<void> {
  const { tx, sender, realm, outgoing, messages, widgets, rowsByMessage } = batch;
  const channels = outgoing.flatMap(({ destination: d }) => (d.kind === "channel" ? [d.access.stream] : []));
  const builder = await MessagePayloadBuilder.loadJustSent(tx.q, realm, messages, {
    users: [sender],
    channels,
    submessages: widgets,
    linkifiers: at(outgoing, 0).rendered.linkifiers,
  });
  for (const [i, { destination, options }] of outgoing.entries()) {
    const isPublicChannel = destination.kind === "channel" && !destination.access.stream.invite_only;
    const hiddenFrom = destination.kind === "channel" ? await receiversWhoMayNotAccess(tx, realm, sender, at(rowsByMessage, i), options) : NO_HIDING;
    notifyNewMessage(tx, builder, realm, at(messages, i), at(rowsByMessage, i), sender, options, isPublicChannel, hiddenFrom);
  }
}

const NO_HIDING: ReadonlyMap<number, SenderAccess> = new Map();

/**
 * Receivers of a channel message (restricted guests) who may not access its sender — one who is
 * not subscribed may post to a public channel — with what their payload needs (Zulip's
 * can_access_sender in the message event).
 */
async function receiversWhoMayNotAccess(
  tx: Tx,
  realm: Realm,
  sender: User,
  rows: ReadonlyArray<{ user_id: number }>,
  options: SendOptions,
): Promise<ReadonlyMap<number, SenderAccess>> {
  if (sender.is_bot || options.realmUrl === undefined || !userAccessMayBeRestricted(realm)) return NO_HIDING;
  const hidden = new Map<number, SenderAccess>();
  for (const [guestId, accessible] of await snapshotGuestAccess(
    tx.q,
    realm,
    rows.map((r) => r.user_id),
  )) {
    if (!accessible.has(sender.id)) hidden.set(guestId, { accessible, realmUrl: options.realmUrl });
  }
  return hidden;
}

/** The message's user_messages rows: one per receiver, with the flags the message gives each. */
async function receiverRows(
  tx: Tx,
  sender: User,
  message: Message,
  destination: Destination,
  rendered: RenderedMessage,
  options: SendOptions,
  users: { mutedBy: ReadonlySet<number>; alerted: ReadonlySet<number> },
): Promise<Array<{ user_id: number; message_id: number; flags: number }>> {
  const receiverIds = destination.kind === "channel" ? destination.receivers.map((r) => r.user_id) : destination.participantIds;
  const topicParticipants =
    rendered.wildcard === "topic" && destination.kind === "channel"
      ? new Set([sender.id, ...(await messageStore.topicSenderIds(tx.q, destination.recipientId, destination.topic))])
      : new Set<number>();
  const flagsOf = (userId: number): number => {
    let flags = destination.kind === "direct" ? MessageFlag.IS_PRIVATE : 0;
    if (userId === sender.id && options.readBySender) flags |= MessageFlag.READ;
    if (options.alsoReadBy === "all" || options.alsoReadBy?.has(userId)) flags |= MessageFlag.READ;
    if (users.mutedBy.has(userId)) flags |= MessageFlag.READ;
    if (users.alerted.has(userId)) flags |= MessageFlag.HAS_ALERT_WORD;
    if (rendered.mentionedUserIds.has(userId)) flags |= MessageFlag.MENTIONED;
    if (rendered.wildcard === "stream") flags |= MessageFlag.STREAM_WILDCARD_MENTIONED;
    if (rendered.wildcard === "topic" && topicParticipants.has(userId)) flags |= MessageFlag.TOPIC_WILDCARD_MENTIONED;
    return flags;
  };
  return [...receiverIds].sort((a, b) => a - b).map((user_id) => ({ user_id, message_id: message.id, flags: flagsOf(user_id) }));
}

/**
 * Zulip's automatic follow/unmute on sending (automatically_follow_topics_policy and
 * automatically_unmute_topics_in_muted_streams_policy: 1 participation, 2 send, 3 initiation,
 * 4 never). Returns the new policy if it changed.
 */
async function applyAutomaticTopicPolicy(
  tx: Tx,
  sender: User,
  destination: Extract<Destination, { kind: "channel" }>,
  isNewTopic: boolean,
  topic: Pick<SendTopicState, "senderPolicy">,
): Promise<number | undefined> {
  if (sender.is_bot) return undefined;
  const settings = userSettings(sender);
  const applies = (policy: number) => policy === 1 || policy === 2 || (policy === 3 && isNewTopic);
  const stream: Stream = destination.access.stream;
  // Read with the send's other reads; kept current for a later message of the batch to this topic.
  const current = topic.senderPolicy;
  let next: number | undefined;
  if (applies(settings.automatically_follow_topics_policy)) {
    if (current !== VisibilityPolicy.FOLLOWED) next = VisibilityPolicy.FOLLOWED;
  } else if (applies(settings.automatically_unmute_topics_in_muted_streams_policy)) {
    const channelMuted = destination.receivers.some((r) => r.user_id === sender.id && r.is_muted === 1);
    if (channelMuted && (current === VisibilityPolicy.INHERIT || current === VisibilityPolicy.MUTED)) next = VisibilityPolicy.UNMUTED;
  }
  if (next === undefined) return undefined;
  topic.senderPolicy = next;
  const lastUpdated = nowSeconds();
  await userTopicStore.setPolicy(tx.q, {
    user_id: sender.id,
    stream_id: stream.id,
    recipient_id: destination.recipientId,
    topic_name: destination.topic,
    visibility_policy: next,
    last_updated: lastUpdated,
  });
  tx.sendEventOnCommit({ type: "user_topic", stream_id: stream.id, topic_name: destination.topic, last_updated: lastUpdated, visibility_policy: next }, [
    sender.id,
  ]);
  return next;
}

/**
 * The message event: Zulip sends one event with per-user flags; here one event per distinct
 * payload (flags, and the 1:1 recipient_id each side sees). The message is in its
 * apply_markdown=true, client_gravatar=false, allow_empty_topic_name=true form; `raw_content`
 * lets the event queue serve apply_markdown=false clients. `local_message_id`/`sender_queue_id`
 * ride only on the sender's event, for the queue that sent it (local echo). A message to a public
 * channel also goes, with no flags, to the realm's all_public_streams queues of non-recipients.
 */
function notifyNewMessage(
  tx: Tx,
  builder: MessagePayloadBuilder,
  realm: Realm,
  message: Message,
  rows: Array<{ user_id: number; flags: number }>,
  sender: User,
  options: SendOptions,
  isPublicChannel: boolean,
  hiddenFrom: ReadonlyMap<number, SenderAccess>,
): void {
  const payloadOptions = { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true };
  // raw_content and sender_uses_gravatar let each queue give its client the content and avatar
  // it registered for (apply_markdown, client_gravatar); they are never sent.
  const sharedFields = { raw_content: message.content, sender_uses_gravatar: sender.avatar_source === "G" && sender.email === sender.delivery_email };
  const groups = new Map<string, { event: NewMessageEvent; users: number[] }>();
  for (const row of rows) {
    const withQueue = row.user_id === sender.id && options.queueId !== undefined;
    // A channel message's payload depends on the flags only (built once per group); a direct
    // message's also on the viewer (the 1:1 recipient_id each side sees), and it has few receivers.
    const viewerPayload = message.is_channel_message ? undefined : builder.build(message, row.user_id, flagsToList(row.flags), payloadOptions);
    const senderAccess = hiddenFrom.get(row.user_id);
    const key = `${row.flags} ${withQueue ? 1 : 0} ${viewerPayload?.recipient_id ?? ""} ${senderAccess ? "hidden" : ""}`;
    let group = groups.get(key);
    if (!group) {
      const flags = flagsToList(row.flags);
      const payload = viewerPayload ?? builder.build(message, row.user_id, flags, senderAccess ? { ...payloadOptions, senderAccess } : payloadOptions);
      const event: NewMessageEvent = { type: "message", message: payload, flags, ...sharedFields };
      // A hidden sender keeps the unknown-user avatar, even for client_gravatar clients.
      if (senderAccess) event.sender_uses_gravatar = false;
      if (withQueue) {
        event.sender_queue_id = options.queueId;
        if (options.localId !== undefined) event.local_message_id = options.localId;
      }
      groups.set(key, (group = { event, users: [] }));
    }
    group.users.push(row.user_id);
  }
  for (const { event, users } of groups.values()) tx.sendEventOnCommit(event, users);
  if (isPublicChannel) {
    // A channel nobody is subscribed to has no receivers (a valid message): built for no viewer.
    // The copy for everyone else: one whose sender is not hidden.
    const shown = [...groups.entries()].find(([key]) => !key.endsWith("hidden"))?.[1];
    const first: NewMessageEvent = shown?.event ?? { type: "message", message: builder.build(message, null, [], payloadOptions), flags: [], ...sharedFields };
    const { sender_queue_id: _q, local_message_id: _l, ...shared } = first;
    const allPublicStreams = { realm_id: realm.id, except_user_ids: rows.map((r) => r.user_id) };
    tx.sendEventOnCommit({ ...shared, type: "message", flags: [], all_public_streams: allPublicStreams }, []);
  }
}
