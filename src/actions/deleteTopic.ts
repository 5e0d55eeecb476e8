import type { Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { OrganizationAdministratorRequiredError } from "../lib/errors.js";
import { historyIsPublic } from "../lib/messageAccess.js";
import { accessStreamById, AccessSubject, metadataAudience } from "../lib/streamAccess.js";
import { isAdmin } from "../models/roles.js";
import { streamStore } from "../store/streams.js";
import { userMessageFlagStore } from "../store/userMessages.js";
import { userTopicStore } from "../store/userTopics.js";
import { VisibilityPolicy } from "../contract/constants.js";
import { doSetUserTopicVisibilityPolicy } from "./userTopics.js";
import { prepareMessageDeletion } from "./attachments.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { topicStore } from "../store/topics.js";
import { messageSearchStore } from "../store/messageSearch.js";
import { messageEditStore } from "../store/messageEdits.js";

/** Zulip's retention.STREAM_MESSAGE_BATCH_SIZE: messages deleted per transaction. */
export const DELETE_TOPIC_BATCH_SIZE = 100;

/** POST /streams/{id}/delete_topic: organization administrators with content access to the channel. */
export async function checkDeleteTopicAccess(tx: Tx, user: User, streamId: number): Promise<Stream> {
  if (!isAdmin(user)) throw new OrganizationAdministratorRequiredError();
  return (await accessStreamById(tx.q, new AccessSubject(user), streamId, "content", { requireActive: true })).stream;
}

/**
 * Deletes the newest batch of the topic's messages that `actor` may read (in a channel with
 * protected history: those the actor received). Returns how many were deleted.
 */
export async function doDeleteTopicBatch(tx: Tx, actor: User, streamId: number, topic: string): Promise<number> {
  const stream = (await streamStore.getById(tx.q, actor.realm_id, streamId))!;
  const receivedBy = historyIsPublic(stream) ? null : actor.id;
  const messages = await topicStore.newestMessages(tx.q, actor.realm_id, stream.recipient_id, topic, receivedBy, DELETE_TOPIC_BATCH_SIZE);
  const [newest] = messages;
  if (newest === undefined) return 0;
  const ids = messages.map((m) => m.id).sort((a, b) => a - b);
  const receivers = await userMessageFlagStore.receiversByMessage(tx.q, ids);
  await messageSearchStore.unindex(tx.q, ids);
  const releaseUploads = await prepareMessageDeletion(tx, ids);
  await messageEditStore.deleteMessages(tx.q, ids);
  await releaseUploads();
  await notifyDeletion(tx, actor, stream, newest.subject, ids, receivers);
  if (stream.first_message_id !== null && ids.includes(stream.first_message_id)) await updateFirstMessageId(tx, stream);
  return ids.length;
}

/**
 * delete_message events: to the channel's subscribers and everyone who had the messages (public
 * history); with protected history, each subscriber learns only of the messages they received.
 */
async function notifyDeletion(tx: Tx, actor: User, stream: Stream, topic: string, ids: number[], receivers: Map<number, number[]>): Promise<void> {
  const publicHistory = historyIsPublic(stream);
  const subscribers = (await channelRecipientStore.activeSubscribers(tx.q, stream.recipient_id)).map((s) => s.user_id);
  const visible = new Map<number, Set<number>>();
  const show = (userId: number, messageIds: readonly number[]) => {
    const set = visible.get(userId) ?? new Set<number>();
    for (const id of messageIds) set.add(id);
    visible.set(userId, set);
  };
  for (const id of ids) {
    for (const userId of receivers.get(id) ?? []) if (publicHistory || subscribers.includes(userId)) show(userId, publicHistory ? ids : [id]);
  }
  if (publicHistory) for (const userId of subscribers) show(userId, ids);
  show(actor.id, ids);
  const groups = new Map<string, { ids: number[]; users: number[] }>();
  for (const [userId, set] of visible) {
    const sorted = [...set].sort((a, b) => a - b);
    const key = sorted.join(",");
    groups.set(key, { ids: sorted, users: [...(groups.get(key)?.users ?? []), userId] });
  }
  for (const group of groups.values()) {
    tx.sendEventOnCommit({ type: "delete_message", message_ids: group.ids, message_type: "stream", stream_id: stream.id, topic }, group.users);
  }
  // Visitors' queues (events/visitorQueues.ts) get every deleted id once, when the channel is one they may read.
  tx.sendEventOnCommit(
    {
      type: "delete_message",
      message_ids: [...ids].sort((a, b) => a - b),
      message_type: "stream",
      stream_id: stream.id,
      topic,
      spectators: { realm_id: stream.realm_id },
    },
    [],
  );
}

/** The channel's oldest message changed: store it and tell who sees the channel (Zulip 9.0, FL 256). */
async function updateFirstMessageId(tx: Tx, stream: Stream): Promise<void> {
  await messageEditStore.resetStreamFirstMessageId(tx.q, stream.id, stream.recipient_id);
  const value = (await streamStore.getById(tx.q, stream.realm_id, stream.id))!.first_message_id;
  const audience = (await metadataAudience(tx.q, stream.realm_id, [stream])).get(stream.id)!;
  tx.sendEventOnCommit({ type: "stream", op: "update", stream_id: stream.id, name: stream.name, property: "first_message_id", value }, audience);
}

/**
 * After the last batch: users' preferences for the topic go, except, with protected history,
 * for users who can still read messages of it.
 */
export async function doClearDeletedTopicPolicies(tx: Tx, actor: User, streamId: number, topic: string): Promise<void> {
  const stream = (await streamStore.getById(tx.q, actor.realm_id, streamId))!;
  let userIds = await userTopicStore.userIdsWithPolicy(tx.q, stream.id, topic);
  if (!historyIsPublic(stream)) {
    const stillReading = await Promise.all(userIds.map((id) => userMessageFlagStore.receivedInTopic(tx.q, id, stream.recipient_id, topic)));
    userIds = userIds.filter((_, i) => !stillReading[i]);
  }
  await doSetUserTopicVisibilityPolicy(tx, userIds, stream, topic, VisibilityPolicy.INHERIT);
}
