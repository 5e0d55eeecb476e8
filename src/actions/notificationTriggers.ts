import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";
import { userTopicFollowStore } from "../store/userTopicFollows.js";

/**
 * Why a new message may notify a receiver by push or email (Zulip's notification triggers): a
 * direct message, a mention (personal or wildcard), or a topic the receiver follows. The sender
 * and receivers whose copy starts read get nothing. One query for the topic's followers (not a
 * list of every receiver), whatever the number of receivers.
 */
export type NotificationTrigger = "direct_message" | "mentioned" | "stream_wildcard_mentioned" | "topic_wildcard_mentioned" | "followed_topic";

export async function notificationTriggers(
  tx: Tx,
  sender: User,
  rows: ReadonlyArray<{ user_id: number; flags: number }>,
  channel: { streamId: number; topic: string } | null,
): Promise<Map<number, NotificationTrigger>> {
  const result = new Map<number, NotificationTrigger>();
  const candidates = rows.filter((r) => r.user_id !== sender.id && (r.flags & MessageFlag.READ) === 0);
  if (candidates.length === 0) return result;
  const anyMention = MessageFlag.MENTIONED | MessageFlag.TOPIC_WILDCARD_MENTIONED | MessageFlag.STREAM_WILDCARD_MENTIONED;
  const someUnmentioned = candidates.some((r) => (r.flags & anyMention) === 0);
  const followers = channel && someUnmentioned ? await userTopicFollowStore.followers(tx.q, channel.streamId, channel.topic) : new Set<number>();
  for (const row of candidates) {
    if (!channel) result.set(row.user_id, "direct_message");
    else if (row.flags & MessageFlag.MENTIONED) result.set(row.user_id, "mentioned");
    else if (row.flags & MessageFlag.TOPIC_WILDCARD_MENTIONED) result.set(row.user_id, "topic_wildcard_mentioned");
    else if (row.flags & MessageFlag.STREAM_WILDCARD_MENTIONED) result.set(row.user_id, "stream_wildcard_mentioned");
    else if (followers.has(row.user_id)) result.set(row.user_id, "followed_topic");
  }
  return result;
}
