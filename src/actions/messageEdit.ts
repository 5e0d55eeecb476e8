import { submessageStore } from "../store/submessages.js";
import { sendUpdateEvents } from "../lib/messageUpdateEvents.js";
import { queueUrlPreviews } from "./urlPreviews.js";
import type { Realm, Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { withEditEntry, type EditHistoryEntry } from "../lib/editHistory.js";
import { accessMessageForModification, accessMessages, historyIsPublic } from "../lib/messageAccess.js";
import { EMPTY_TOPIC_DISPLAY_NAME, RESOLVED_TOPIC_PREFIX, VisibilityPolicy } from "../contract/constants.js";
import { channelSlug, serverHashEncode } from "../contract/hash.js";
import { topicLinks } from "../lib/linkifiers.js";
import { isMeMessage, realmLinkifiers, renderMessageContent, type RenderedMessage } from "../lib/messageRendering.js";
import { hasRealmPermission } from "../lib/realmPermissions.js";
import { realmSettings } from "../models/realmSettings.js";
import { accessStreamById, AccessSubject, type ChannelAccess } from "../lib/streamAccess.js";
import { ANY_MENTION_FLAGS, flagsToList, MessageFlag } from "../models/messageFlags.js";
import { isGuest, isModerator } from "../models/roles.js";
import { type Message, messageStore } from "../store/messages.js";
import { topicPolicyStore, userTopicStore } from "../store/userTopics.js";
import { userMessageEditStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { doDeleteMessages } from "./messageDelete.js";
import { getNotificationBot, sendNotificationBotChannelMessage } from "./notificationBot.js";
import { checkTopicCharacters, truncate } from "../lib/messageText.js";
import { checkWildcardMention } from "./messageSend.js";
import { checkUserGroupMentionAllowed } from "../lib/userGroupAccess.js";
import { doRelinkAttachments } from "./attachments.js";
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from "../models/limits.js";
import { type AttachmentPayload } from "../lib/attachmentPayload.js";
import { channelRecipientStore, moveAudienceStore } from "../store/subscriptions.js";
import { messageSearchStore } from "../store/messageSearch.js";
import { messageEditStore } from "../store/messageEdits.js";

/**
 * PATCH /messages/{id}: content edits, topic and channel moves (Zulip's check_update_message and
 * do_update_message, 10.2). Everything is validated before the first write; the events go to
 * the users who may see the message (and delete_message to those who lose it on a move).
 */
export type PropagateMode = "change_one" | "change_later" | "change_all";

export interface UpdateMessageRequest {
  streamId?: number;
  topic?: string;
  propagateMode: PropagateMode;
  sendNotificationToOldThread: boolean;
  sendNotificationToNewThread: boolean;
  content?: string;
}

/** Zulip allows 20 s beyond each limit for the client's own buffer and network delays. */
const EDIT_LIMIT_BUFFER = 20;
/** Realm defaults (Zulip 10.2): 10 minutes to edit content, 7 days to move. */
type MoveLimitSetting = "move_messages_within_stream_limit_seconds" | "move_messages_between_streams_limit_seconds";

interface StreamEdit {
  message: Message;
  content: string | null;
  rendered: RenderedMessage | null;
  origStream: Stream;
  target: ChannelAccess;
  origTopic: string;
  targetTopic: string;
  topicEdited: boolean;
  streamEdited: boolean;
  topicResolved: boolean;
  topicUnresolved: boolean;
}

export async function checkUpdateMessage(
  tx: Tx,
  user: User,
  realm: Realm,
  messageId: number,
  req: UpdateMessageRequest,
): Promise<{ detached_uploads: AttachmentPayload[] }> {
  const subject = new AccessSubject(user);
  await messageEditStore.lock(tx.q, messageId);
  const { message } = await accessMessageForModification(tx.q, subject, messageId);
  const now = nowSeconds();
  if (req.content !== undefined) checkCanEditContent(user, realm, message, now);

  let topic = req.topic === undefined ? undefined : normalizeTopicInput(req.topic);
  if (topic === message.subject) topic = undefined;
  let streamId = req.streamId;
  const origStream = message.is_channel_message ? (await channelRecipientStore.streamsByRecipientIds(tx.q, realm.id, [message.recipient_id]))[0] : null;
  if (streamId !== undefined && origStream?.id === streamId) streamId = undefined;
  validatePayload(message, streamId, topic, req.propagateMode, req.content);
  // Zulip's is_widget_message: a poll or to-do list keeps the content it was made from.
  if (req.content !== undefined && (await submessageStore.exists(tx.q, message.id))) throw badRequest("Widgets cannot be edited.");

  const content = req.content === undefined ? null : normalizeEditedContent(req.content);
  const rendered = content === null ? null : await renderMessageContent(tx.q, realm, user, content);
  if (rendered) await checkUserGroupMentionAllowed(tx.q, subject, realm, rendered.mentionedGroupIds);

  if (rendered) await queueUrlPreviews(tx, realm, user, [{ message: { ...message, content: content! }, links: rendered.linksForPreview }]);
  if (!origStream) {
    await doUpdateDirectMessage(tx, user, message, content!, rendered!, now);
    return { detached_uploads: await doRelinkAttachments(tx, user, message.id, rendered!.attachments) };
  }
  const edit = await buildStreamEdit(tx, subject, realm, message, origStream, { streamId, topic, content, rendered });
  if (rendered) {
    const receivers = await channelRecipientStore.activeSubscribers(tx.q, message.recipient_id);
    await checkWildcardMention(
      tx,
      subject,
      realm,
      { kind: "channel", access: edit.target, recipientId: message.recipient_id, topic: message.subject, receivers },
      rendered,
    );
  }
  await checkCanMove(tx, subject, realm, edit, req.propagateMode, now);
  await doUpdateStreamMessage(tx, user, realm, edit, req, now);
  return { detached_uploads: rendered ? await doRelinkAttachments(tx, user, message.id, rendered.attachments) : [] };
}

/** Zulip's validate_user_can_edit_message (content edits). */
function checkCanEditContent(user: User, realm: Realm, message: Message, now: number): void {
  if (!realmSettings(realm).allow_message_editing) throw badRequest("Your organization has turned off message editing");
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  const limit = realmSettings(realm).message_content_edit_limit_seconds;
  if (limit !== null && now - message.date_sent > limit + EDIT_LIMIT_BUFFER) throw badRequest("The time limit for editing this message has passed");
}

/** Topic input: trimmed; "(no topic)" and the empty-topic display name mean the empty topic. */
function normalizeTopicInput(topic: string): string {
  const trimmed = topic.trim();
  checkTopicCharacters(trimmed);
  return trimmed === "(no topic)" || trimmed === EMPTY_TOPIC_DISPLAY_NAME ? "" : trimmed;
}

/** Zulip's validate_message_edit_payload. */
function validatePayload(
  message: Message,
  streamId: number | undefined,
  topic: string | undefined,
  propagateMode: PropagateMode,
  content: string | undefined,
): void {
  if (topic === undefined && content === undefined && streamId === undefined) throw badRequest("Nothing to change");
  if (!message.is_channel_message) {
    if (streamId !== undefined) throw badRequest("Direct messages cannot be moved to channels.");
    if (topic !== undefined) throw badRequest("Direct messages cannot have topics.");
  }
  if (propagateMode !== "change_one" && topic === undefined && streamId === undefined) throw badRequest("Invalid propagate_mode without topic edit");
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === RESOLVED_TOPIC_PREFIX + EMPTY_TOPIC_DISPLAY_NAME)
    throw badRequest("General chat cannot be marked as resolved");
  if (streamId !== undefined && content !== undefined) throw badRequest("Cannot change message content while changing channel");
}

/** Blank content becomes "(deleted)"; then Zulip's normalize_body. */
function normalizeEditedContent(raw: string): string {
  const body = raw.trimEnd() === "" ? "(deleted)" : raw.trimEnd().replace(/^\n+/, "");
  return truncate(body, MAX_MESSAGE_LENGTH, "\n[message truncated]");
}

async function buildStreamEdit(
  tx: Tx,
  subject: AccessSubject,
  realm: Realm,
  message: Message,
  origStream: Stream,
  change: { streamId?: number; topic?: string; content: string | null; rendered: RenderedMessage | null },
): Promise<StreamEdit> {
  const origTopic = message.subject;
  const targetTopic = change.topic === undefined ? origTopic : truncate(change.topic, MAX_TOPIC_LENGTH, "...");
  const topicEdited = change.topic !== undefined;
  const topicResolved =
    topicEdited &&
    targetTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    !origTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    change.topic!.slice(RESOLVED_TOPIC_PREFIX.length) === origTopic;
  const topicUnresolved =
    topicEdited &&
    origTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    !targetTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    origTopic.replace(/^[✔ ]+/u, "") === targetTopic;
  const target =
    change.streamId === undefined
      ? await accessStreamById(tx.q, subject, origStream.id, "metadata")
      : await accessStreamById(tx.q, subject, change.streamId, "metadata", { requireActive: true });
  if ((topicEdited || change.streamId !== undefined) && targetTopic === "" && realmSettings(realm).mandatory_topics) {
    throw badRequest("Topics are required in this organization");
  }
  return {
    message,
    content: change.content,
    rendered: change.rendered,
    origStream,
    target,
    origTopic,
    targetTopic,
    topicEdited,
    streamEdited: change.streamId !== undefined,
    topicResolved,
    topicUnresolved,
  };
}

/** The permission and time-limit checks for moves (check_update_message). */
async function checkCanMove(tx: Tx, subject: AccessSubject, realm: Realm, edit: StreamEdit, propagateMode: PropagateMode, now: number): Promise<void> {
  const user = subject.user;
  const age = now - edit.message.date_sent;
  const moveLimit = (name: MoveLimitSetting) => realmSettings(realm)[name];
  if (edit.topicEdited) {
    if (edit.topicResolved || edit.topicUnresolved) {
      if (!(await hasRealmPermission(tx.q, subject, realm, "can_resolve_topics_group"))) {
        throw badRequest("You don't have permission to resolve topics in this channel.");
      }
    } else {
      if (!(await hasRealmPermission(tx.q, subject, realm, "can_move_messages_between_topics_group"))) {
        throw badRequest("You don't have permission to edit this message");
      }
      const limit = moveLimit("move_messages_within_stream_limit_seconds");
      if (limit !== null && !isModerator(user) && age > limit + EDIT_LIMIT_BUFFER)
        throw badRequest("The time limit for editing this message's topic has passed.");
    }
  }
  if (edit.streamEdited) {
    if (isGuest(user) || !(await hasRealmPermission(tx.q, subject, realm, "can_move_messages_between_channels_group"))) {
      throw badRequest("You don't have permission to move this message");
    }
    const sendGroup = edit.target.stream.can_send_message_group_id;
    if (sendGroup === null || !(await subject.groupIds(tx.q)).has(sendGroup)) throw badRequest("You do not have permission to post in this channel.");
    const limit = moveLimit("move_messages_between_streams_limit_seconds");
    if (limit !== null && !isModerator(user) && age > limit + EDIT_LIMIT_BUFFER)
      throw badRequest("The time limit for editing this message's channel has passed");
  }
  const moved = edit.topicEdited || edit.streamEdited;
  if (propagateMode === "change_all" && moved && !isModerator(user) && !edit.topicResolved && !edit.topicUnresolved) {
    await checkChangeAllTimeLimit(tx, subject, realm, edit, now);
  }
}

/** Zulip's check_time_limit_for_change_all_propagate_mode: the whole (visible) topic must be movable. */
async function checkChangeAllTimeLimit(tx: Tx, subject: AccessSubject, realm: Realm, edit: StreamEdit, now: number): Promise<void> {
  const limits = [
    edit.topicEdited ? realmSettings(realm).move_messages_within_stream_limit_seconds : null,
    edit.streamEdited ? realmSettings(realm).move_messages_between_streams_limit_seconds : null,
  ].filter((l): l is number => l !== null);
  if (limits.length === 0) return;
  const deadline = Math.min(...limits) + EDIT_LIMIT_BUFFER;
  const visible = await visibleTopicMessages(tx, subject, edit.origStream, edit.origTopic);
  const allowed = visible.filter((m) => now - m.date_sent <= deadline);
  if (allowed.length === visible.length) return;
  throw new ApiError(`You only have permission to move the ${allowed.length}/${visible.length} most recent messages in this topic.`, {
    code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    data: { first_message_id_allowed_to_move: allowed[0]?.id ?? null, total_messages_in_topic: visible.length, total_messages_allowed_to_move: allowed.length },
  });
}

/** The topic's messages the user may read (all of them, or those received with protected history). */
async function visibleTopicMessages(tx: Tx, subject: AccessSubject, stream: Stream, topic: string, fromId = 0): Promise<Message[]> {
  const messages = await messageEditStore.topicMessages(tx.q, stream.recipient_id, topic, fromId);
  if (historyIsPublic(stream)) return messages;
  const readable = await accessMessages(
    tx.q,
    subject,
    messages.map((m) => m.id),
  );
  return messages.filter((m) => readable.has(m.id));
}

/** New mention flags of each row after a content edit (Zulip's update_user_message_flags). */
async function updateMentionFlags(tx: Tx, message: Message, rendered: RenderedMessage): Promise<Map<number, number>> {
  const topicParticipants =
    rendered.wildcard === "topic"
      ? new Set([message.sender_id, ...(await messageStore.topicSenderIds(tx.q, message.recipient_id, message.subject))])
      : new Set<number>();
  const result = new Map<number, number>();
  // The rows whose flags change, by their new mention bits: at most four statements in all.
  const changedBy = new Map<number, number[]>();
  for (const row of await userMessageEditStore.rowsFor(tx.q, message.id)) {
    const bits =
      (rendered.mentionedUserIds.has(row.user_id) ? MessageFlag.MENTIONED : 0) |
      (rendered.wildcard === "stream" ? MessageFlag.STREAM_WILDCARD_MENTIONED : 0) |
      (topicParticipants.has(row.user_id) ? MessageFlag.TOPIC_WILDCARD_MENTIONED : 0);
    const flags = (row.flags & ~ANY_MENTION_FLAGS) | bits;
    if (flags !== row.flags) changedBy.set(bits, [...(changedBy.get(bits) ?? []), row.user_id]);
    result.set(row.user_id, flags);
  }
  for (const [bits, userIds] of changedBy) await userMessageEditStore.changeFlags(tx.q, message.id, userIds, bits, ANY_MENTION_FLAGS & ~bits);
  return result;
}

function contentChanges(message: Message, content: string, rendered: RenderedMessage) {
  return {
    history: { prev_content: message.content, prev_rendered_content: message.rendered_content },
    event: {
      orig_content: message.content,
      orig_rendered_content: message.rendered_content,
      content,
      rendered_content: rendered.html,
      is_me_message: isMeMessage(content),
    },
    columns: {
      content,
      rendered_content: rendered.html,
      has_link: rendered.hasLink ? (1 as const) : (0 as const),
      has_image: rendered.hasImage ? (1 as const) : (0 as const),
      has_attachment: rendered.hasAttachment ? (1 as const) : (0 as const),
    },
  };
}

async function doUpdateDirectMessage(tx: Tx, user: User, message: Message, content: string, rendered: RenderedMessage, now: number): Promise<void> {
  const changes = contentChanges(message, content, rendered);
  const flags = await updateMentionFlags(tx, message, rendered);
  const entry: EditHistoryEntry = { user_id: user.id, timestamp: now, ...changes.history };
  const updated = { ...changes.columns, last_edit_time: now, edit_history: withEditEntry(message.edit_history, entry) };
  await messageEditStore.update(tx.q, message.id, updated);
  await messageSearchStore.index(tx.q, [{ ...message, ...updated }]);
  const event = { user_id: user.id, edit_timestamp: now, message_id: message.id, message_ids: [message.id], rendering_only: false, ...changes.event };
  sendUpdateEvents(tx, event, new Map([...flags].map(([id, bits]) => [id, flagsToList(bits)])));
}

async function doUpdateStreamMessage(tx: Tx, user: User, realm: Realm, edit: StreamEdit, req: UpdateMessageRequest, now: number): Promise<void> {
  const { message, origStream, target } = edit;
  const newStream = target.stream;
  const moved = edit.topicEdited || edit.streamEdited;
  const event: Record<string, unknown> = {
    user_id: user.id,
    edit_timestamp: now,
    message_id: message.id,
    rendering_only: false,
    stream_name: origStream.name,
    stream_id: origStream.id,
  };
  const entry: EditHistoryEntry = { user_id: user.id, timestamp: now };
  const moveEntry: EditHistoryEntry = { user_id: user.id, timestamp: now };
  let flags = new Map((await userMessageEditStore.rowsFor(tx.q, message.id)).map((r) => [r.user_id, r.flags]));
  const targetColumns: Record<string, unknown> = {};
  if (edit.content !== null) {
    const changes = contentChanges(message, edit.content, edit.rendered!);
    Object.assign(entry, changes.history);
    Object.assign(event, changes.event);
    Object.assign(targetColumns, changes.columns, { last_edit_time: now });
    flags = await updateMentionFlags(tx, message, edit.rendered!);
  }
  if (moved) event.propagate_mode = req.propagateMode;
  if (edit.streamEdited) {
    Object.assign(moveEntry, { prev_stream: origStream.id, stream: newStream.id });
    event.orig_subject = edit.origTopic;
    event.new_stream_id = newStream.id;
  }
  if (edit.topicEdited) {
    Object.assign(moveEntry, { prev_topic: edit.origTopic, topic: edit.targetTopic });
    Object.assign(event, {
      orig_subject: edit.origTopic,
      subject: edit.targetTopic,
      topic_links: topicLinks(await realmLinkifiers(tx.q, realm), edit.targetTopic),
    });
  }
  Object.assign(entry, moveEntry);

  const subject = new AccessSubject(user);
  const targetHadMessages = moved && (await messageStore.topicHasMessages(tx.q, newStream.recipient_id, edit.targetTopic));
  const others =
    req.propagateMode === "change_one" || !moved
      ? []
      : (await visibleTopicMessages(tx, subject, origStream, edit.origTopic, req.propagateMode === "change_later" ? message.id : 0)).filter(
          (m) => m.id !== message.id,
        );
  const changed = [message, ...others].sort((a, b) => a.id - b.id);
  const changedIds = changed.map((m) => m.id);
  const countsAsMove = edit.streamEdited || (edit.topicEdited && !edit.topicResolved && !edit.topicUnresolved);
  const placement = moved ? { recipient_id: newStream.recipient_id, subject: edit.targetTopic, ...(countsAsMove ? { last_moved_time: now } : {}) } : {};
  await messageEditStore.update(tx.q, message.id, { ...placement, ...targetColumns, edit_history: withEditEntry(message.edit_history, entry) });
  await messageEditStore.updateWithHistoryEntry(
    tx.q,
    others.map((m) => m.id),
    placement,
    JSON.stringify(moveEntry),
  );
  const refreshed = await messageStore.listByIds(tx.q, realm.id, changedIds);
  await messageSearchStore.index(tx.q, refreshed);

  const losing = edit.streamEdited
    ? await moveUserMessages(tx, origStream, newStream, edit.origTopic, changedIds)
    : { rows: new Set<number>(), access: new Set<number>() };
  for (const userId of losing.rows) flags.delete(userId);
  if (edit.streamEdited) {
    await messageEditStore.resetStreamFirstMessageId(tx.q, origStream.id, origStream.recipient_id);
    await messageEditStore.resetStreamFirstMessageId(tx.q, newStream.id, newStream.recipient_id);
  }
  event.message_ids = changedIds;
  const audience = new Map([...flags].map(([id, bits]) => [id, flagsToList(bits)]));
  for (const id of await historySubscribers(tx, edit, new Set(flags.keys()), losing.access)) audience.set(id, ["read"]);
  sendUpdateEvents(tx, event, audience, { realm_id: realm.id, recipient_id: origStream.recipient_id });

  if (!moved) return;
  const movedAll = req.propagateMode === "change_all" || (await visibleTopicMessages(tx, subject, origStream, edit.origTopic)).length === 0;
  if (movedAll) await moveTopicPolicies(tx, edit, losing.access, targetHadMessages, now);
  await sendEditNotifications(tx, user, realm, edit, req, changed, subject, movedAll);
}

/**
 * A move to another channel: users who were subscribed to the old channel but are not to the new
 * one lose their rows (and, if the new channel is private or they are guests, the messages: they
 * get delete_message); with protected history in the new channel, its subscribers get rows.
 */
async function moveUserMessages(
  tx: Tx,
  origStream: Stream,
  newStream: Stream,
  origTopic: string,
  messageIds: number[],
): Promise<{ rows: Set<number>; access: Set<number> }> {
  const oldAll = await moveAudienceStore.everSubscribedUserIds(tx.q, origStream.recipient_id);
  const newCurrent = new Set((await channelRecipientStore.activeSubscribers(tx.q, newStream.recipient_id)).map((s) => s.user_id));
  const losingRows = oldAll.filter((id) => !newCurrent.has(id));
  let losingAccess = losingRows;
  if (!newStream.invite_only) {
    const users = await userStore.listByIds(tx.q, origStream.realm_id, losingRows);
    losingAccess = users.filter((u) => isGuest(u)).map((u) => u.id);
  }
  if (!historyIsPublic(newStream)) await userMessageEditStore.insertMissing(tx.q, [...newCurrent], messageIds, MessageFlag.READ);
  await userMessageEditStore.deleteFor(tx.q, losingRows, messageIds);
  tx.sendEventOnCommit({ type: "delete_message", message_ids: messageIds, message_type: "stream", stream_id: origStream.id, topic: origTopic }, losingAccess);
  return { rows: new Set(losingRows), access: new Set(losingAccess) };
}

/** Subscribers without a row who still get live updates when the channel's history is public. */
async function historySubscribers(tx: Tx, edit: StreamEdit, rowHolders: Set<number>, losingAccess: Set<number>): Promise<number[]> {
  if (!historyIsPublic(edit.origStream)) return [];
  const targetSubs = (await channelRecipientStore.activeSubscribers(tx.q, edit.target.stream.recipient_id)).map((s) => s.user_id);
  const ids = new Set(targetSubs);
  if (edit.streamEdited) {
    const oldSubs = new Set((await channelRecipientStore.activeSubscribers(tx.q, edit.origStream.recipient_id)).map((s) => s.user_id));
    for (const id of oldSubs) ids.add(id);
    // Guests who only see the new channel are not told about messages they never saw (Zulip).
    const guests = new Set((await userStore.listByIds(tx.q, edit.origStream.realm_id, targetSubs)).filter((u) => isGuest(u)).map((u) => u.id));
    for (const id of targetSubs) if (guests.has(id) && !oldSubs.has(id)) ids.delete(id);
  }
  return [...ids].filter((id) => !rowHolders.has(id) && !losingAccess.has(id));
}

/**
 * Zulip's user_topic migration when a whole topic moves: each user's policy follows the topic
 * (merged with the target's, the more visible winning, if the target already had messages);
 * users who lose access to the messages lose the policy.
 */
async function moveTopicPolicies(tx: Tx, edit: StreamEdit, losingAccess: Set<number>, targetHadMessages: boolean, now: number): Promise<void> {
  const origStream = edit.origStream;
  const targetStream = edit.target.stream;
  if (origStream.id === targetStream.id && edit.origTopic.toLowerCase() === edit.targetTopic.toLowerCase()) return;
  const orig = await topicPolicyStore.listForTopic(tx.q, origStream.id, edit.origTopic);
  const target = new Map((await topicPolicyStore.listForTopic(tx.q, targetStream.id, edit.targetTopic)).map((r) => [r.user_id, r.visibility_policy]));
  const notify = (userId: number, streamId: number, topic: string, policy: number) =>
    tx.sendEventOnCommit({ type: "user_topic", stream_id: streamId, topic_name: topic, last_updated: now, visibility_policy: policy }, [userId]);
  await topicPolicyStore.clear(
    tx.q,
    orig.map((r) => r.user_id),
    origStream.id,
    edit.origTopic,
  );
  const origPolicies = new Map<number, number>();
  for (const row of orig) {
    notify(row.user_id, origStream.id, edit.origTopic, VisibilityPolicy.INHERIT);
    if (!(edit.streamEdited && losingAccess.has(row.user_id))) origPolicies.set(row.user_id, row.visibility_policy);
  }
  for (const userId of new Set([...origPolicies.keys(), ...target.keys()])) {
    const before = target.get(userId) ?? VisibilityPolicy.INHERIT;
    const moving = origPolicies.get(userId) ?? VisibilityPolicy.INHERIT;
    const next = targetHadMessages ? mergedPolicy(moving, before) : moving;
    if (next === before) continue;
    if (next === VisibilityPolicy.INHERIT) await topicPolicyStore.clear(tx.q, [userId], targetStream.id, edit.targetTopic);
    else {
      const row = {
        user_id: userId,
        stream_id: targetStream.id,
        recipient_id: targetStream.recipient_id,
        topic_name: edit.targetTopic,
        visibility_policy: next,
        last_updated: now,
      };
      await userTopicStore.setPolicy(tx.q, row);
    }
    notify(userId, targetStream.id, edit.targetTopic, next);
  }
}

/** Zulip's get_visibility_policy_after_merge: the more visible policy wins. */
function mergedPolicy(a: number, b: number): number {
  for (const policy of [VisibilityPolicy.FOLLOWED, VisibilityPolicy.UNMUTED, VisibilityPolicy.INHERIT]) if (a === policy || b === policy) return policy;
  return VisibilityPolicy.MUTED;
}

/** Resolve/unresolve notices and the "moved" breadcrumbs, from the Notification Bot. */
async function sendEditNotifications(
  tx: Tx,
  user: User,
  realm: Realm,
  edit: StreamEdit,
  req: UpdateMessageRequest,
  changed: Message[],
  subject: AccessSubject,
  movedAll: boolean,
): Promise<void> {
  const mention = `@_**${user.full_name}|${user.id}**`;
  let resolveNoticeId: number | null = null;
  if (edit.topicEdited && edit.content === null && !edit.streamEdited && (edit.topicResolved || edit.topicUnresolved)) {
    const state = edit.topicResolved ? "resolved" : "unresolved";
    if (!(await undoRecentResolveNotice(tx, user, realm, edit))) {
      resolveNoticeId = await sendNotificationBotChannelMessage(
        tx,
        realm,
        edit.target.stream,
        edit.targetTopic,
        `${mention} has marked this topic as ${state}.`,
        { renderAs: user },
      );
    }
  }
  const count = changed.length;
  const oldLocation = topicLink(edit.origStream, edit.origTopic);
  const newLocation = topicLink(edit.target.stream, edit.targetTopic);
  const eligibleForNew = edit.streamEdited || (edit.topicEdited && !edit.topicResolved && !edit.topicUnresolved);
  if (req.sendNotificationToNewThread && eligibleForNew) {
    const changedIds = new Set([...changed.map((m) => m.id), resolveNoticeId]);
    const preexisting = (await visibleTopicMessages(tx, subject, edit.target.stream, edit.targetTopic)).filter((m) => !changedIds.has(m.id));
    const link = `#narrow/channel/${channelSlug(edit.target.stream.id, edit.target.stream.name, serverHashEncode)}/topic/${serverHashEncode(edit.targetTopic)}/near/${edit.message.id}`;
    const text =
      preexisting.length === 0 && movedAll
        ? `This topic was moved here from ${oldLocation} by ${mention}.`
        : count === 1
          ? `[A message](${link}) was moved here from ${oldLocation} by ${mention}.`
          : `${count} messages were moved here from ${oldLocation} by ${mention}.`;
    await sendNotificationBotChannelMessage(tx, realm, edit.target.stream, edit.targetTopic, text, { renderAs: user });
  }
  if (req.sendNotificationToOldThread) {
    const text = movedAll
      ? `This topic was moved to ${newLocation} by ${mention}.`
      : count === 1
        ? `A message was moved from this topic to ${newLocation} by ${mention}.`
        : `${count} messages were moved from this topic to ${newLocation} by ${mention}.`;
    await sendNotificationBotChannelMessage(tx, realm, edit.origStream, edit.origTopic, text, { renderAs: user });
  }
}

/** Zulip's get_stream_topic_link_syntax: #**channel>topic**, or plain text when the names would break it. */
function topicLink(stream: Stream, topic: string): string {
  if (/[`>*]|\$\$/.test(stream.name) || /[`*]|\$\$/.test(topic)) return `#${stream.name} > ${topic}`;
  return `#**${stream.name}>${topic}**`;
}

/** Zulip's RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS. */
const RESOLVE_UNDO_GRACE_SECONDS = 60;
const RESOLVE_NOTICE = /^@_\*\*[^*]*\*\* has marked this topic as (un)?resolved\.$/;

/**
 * Zulip's maybe_delete_previous_resolve_topic_notification: toggling a topic's resolved state
 * right back deletes the notice of the first toggle instead of adding another one.
 */
async function undoRecentResolveNotice(tx: Tx, user: User, realm: Realm, edit: StreamEdit): Promise<boolean> {
  const bot = await getNotificationBot(tx);
  const last = await messageEditStore.lastTopicMessage(tx.q, edit.target.stream.recipient_id, edit.targetTopic);
  if (!bot || !last || last.sender_id !== bot.id || !RESOLVE_NOTICE.test(last.content)) return false;
  if (nowSeconds() - last.date_sent > RESOLVE_UNDO_GRACE_SECONDS) return false;
  await doDeleteMessages(tx, realm, [last], user);
  return true;
}
