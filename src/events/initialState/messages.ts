import type { Executor } from "../../db/tx.js";
import { ANY_MENTION_FLAGS, MessageFlag } from "../../models/messageFlags.js";
import { RecipientType } from "../../models/roles.js";
import { VisibilityPolicy } from "../../contract/constants.js";
import { directMessageGroupStore } from "../../store/directMessageGroups.js";
import { initialStateStore } from "../../store/initialState.js";
import { userStore } from "../../store/users.js";
import { type SectionRequest, wants } from "./request.js";

/** Zulip's MAX_UNREAD_MESSAGES: older unread messages are left out (old_unreads_missing). */
export const MAX_UNREAD_MESSAGES = 50_000;
const RECENT_DIRECT_MESSAGES = 1000;

/** Sections about messages: message (max_message_id), unread_msgs, recent_private_conversations, starred_messages. */
export async function fetchMessageState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  if (req.visitor) return visitorMessageState(req);
  const state: Record<string, unknown> = {};
  if (wants(req, "message")) {
    state.max_message_id = await userStore.maxMessageIdForUser(q, req.user.id);
  }
  if (wants(req, "message") && wants(req, "update_message_flags")) state.unread_msgs = await unreadState(q, req);
  if (wants(req, "recent_private_conversations")) state.recent_private_conversations = await recentConversations(q, req);
  if (wants(req, "starred_messages")) state.starred_messages = await initialStateStore.starredMessageIds(q, req.user.id);
  return state;
}

/** A visitor has received nothing and has read everything (Zulip's max_message_id_for_user(None) is -1). */
function visitorMessageState(req: SectionRequest): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (wants(req, "message")) state.max_message_id = -1;
  if (wants(req, "message") && wants(req, "update_message_flags")) {
    state.unread_msgs = { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false };
  }
  if (wants(req, "recent_private_conversations")) state.recent_private_conversations = [];
  if (wants(req, "starred_messages")) state.starred_messages = [];
  return state;
}

/**
 * Zulip's get_raw_unread_data + aggregate_unread_data. Messages of channels the user left are
 * not counted; muted channels and topics count toward nothing but their own list, and their
 * wildcard mentions are not mentions.
 */
async function unreadState(q: Executor, req: SectionRequest) {
  const me = req.user.id;
  const rows = await initialStateStore.unreadMessages(q, me, MAX_UNREAD_MESSAGES);
  rows.sort((a, b) => a.id - b.id);
  const channelRecipients = [...new Set(rows.filter((r) => r.recipient_type === RecipientType.STREAM).map((r) => r.recipient_id))];
  const unreadIn = new Set(channelRecipients);
  const subs = (await req.reads.channelSubscriptions()).filter((s) => unreadIn.has(s.recipient_id));
  const activeSubs = new Map(subs.filter((s) => s.active).map((s) => [s.recipient_id, s]));
  const streams = (await req.reads.realmStreams()).filter((s) => activeSubs.has(s.recipient_id));
  const streamIds = new Map(streams.map((s) => [s.recipient_id, s.id]));
  const topics = await req.reads.userTopics();
  const policy = new Map(topics.map((t) => [`${t.stream_id}\u0000${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  const groupMembers = await directMessageGroupStore.listByRecipientIds(
    q,
    rows.filter((r) => r.recipient_type === RecipientType.DIRECT_MESSAGE_GROUP).map((r) => r.recipient_id),
  );
  const topicName = (topic: string) => (topic === "" && !req.client.capabilities.empty_topic_name ? req.client.emptyTopicDisplayName : topic);

  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const channels = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  let count = 0;
  for (const row of rows) {
    let muted = false;
    if (row.recipient_type === RecipientType.STREAM) {
      const streamId = streamIds.get(row.recipient_id);
      if (streamId === undefined) continue;
      const topicPolicy = policy.get(`${streamId}\u0000${row.subject.toLowerCase()}`) ?? VisibilityPolicy.INHERIT;
      muted =
        topicPolicy === VisibilityPolicy.MUTED ||
        (activeSubs.get(row.recipient_id)!.is_muted === 1 && topicPolicy !== VisibilityPolicy.UNMUTED && topicPolicy !== VisibilityPolicy.FOLLOWED);
      const key = JSON.stringify([streamId, row.subject.toLowerCase()]);
      if (!channels.has(key)) channels.set(key, { stream_id: streamId, topic: topicName(row.subject), unread_message_ids: [] });
      channels.get(key)!.unread_message_ids.push(row.id);
      if (!muted) count += 1;
    } else if (row.recipient_type === RecipientType.PERSONAL) {
      const other = row.sender_id === me ? row.type_id : row.sender_id;
      pms.set(other, [...(pms.get(other) ?? []), row.id]);
      count += 1;
    } else {
      const key = [...(groupMembers.get(row.recipient_id) ?? [])].sort((a, b) => a - b).join(",");
      huddles.set(key, [...(huddles.get(key) ?? []), row.id]);
      count += 1;
    }
    if ((row.flags & MessageFlag.MENTIONED) !== 0 || (!muted && (row.flags & ANY_MENTION_FLAGS) !== 0)) mentions.push(row.id);
  }
  return {
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...channels.values()],
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    count,
    old_unreads_missing: rows.length === MAX_UNREAD_MESSAGES,
  };
}

/** Zulip's get_recent_private_conversations: the newest message of each recent conversation. */
async function recentConversations(q: Executor, req: SectionRequest) {
  const me = req.user.id;
  const rows = await initialStateStore.recentDirectMessages(q, me, RECENT_DIRECT_MESSAGES);
  const groupMembers = await directMessageGroupStore.listByRecipientIds(
    q,
    rows.filter((r) => r.recipient_type === RecipientType.DIRECT_MESSAGE_GROUP).map((r) => r.recipient_id),
  );
  const conversations = new Map<string, { max_message_id: number; user_ids: number[] }>();
  for (const row of rows) {
    let others: number[];
    if (row.recipient_type === RecipientType.PERSONAL) {
      const other = row.sender_id === me ? row.type_id : row.sender_id;
      others = other === me ? [] : [other];
    } else {
      others = (groupMembers.get(row.recipient_id) ?? []).filter((id) => id !== me).sort((a, b) => a - b);
    }
    const key = others.join(",");
    const existing = conversations.get(key);
    if (!existing || existing.max_message_id < row.id) conversations.set(key, { max_message_id: row.id, user_ids: others });
  }
  return [...conversations.values()].sort((a, b) => b.max_message_id - a.max_message_id);
}
