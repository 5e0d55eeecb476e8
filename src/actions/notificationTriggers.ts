import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";
import { userTopicFollowStore } from "../store/userTopicFollows.js";
import { defined } from "../util/defined.js";

/**
 * Why a new message may notify a receiver by push or email (Zulip's notification triggers): a
 * direct message, a mention (personal or wildcard), or a topic the receiver follows. The sender
 * and receivers whose copy starts read get nothing. One query for the topic's followers (not a
 * list of every receiver), whatever the number of receivers.
 */
export type NotificationTrigger = "direct_message" | "mentioned" | "stream_wildcard_mentioned" | "topic_wildcard_mentioned" | "followed_topic";

/** The triggers of each of several messages from one sender: one query for the followers of all their topics. */
export async function notificationTriggers(
  tx: Tx,
  sender: Pick<User, "id">,
  messages: ReadonlyArray<{
    rows: ReadonlyArray<{ user_id: number; flags: number }>;
    /** `followers`: the topic's, when the caller read them already (the send does, with its other reads). */
    channel: { streamId: number; topic: string; followers?: ReadonlySet<number> } | null;
  }>,
): Promise<Array<Map<number, NotificationTrigger>>> {
  const anyMention = MessageFlag.MENTIONED | MessageFlag.TOPIC_WILDCARD_MENTIONED | MessageFlag.STREAM_WILDCARD_MENTIONED;
  const candidatesOf = messages.map(({ rows }) => rows.filter((r) => r.user_id !== sender.id && (r.flags & MessageFlag.READ) === 0));
  const candidates = (i: number) => defined(candidatesOf[i], `the candidates of message ${i}`);
  // Followers matter only to channel messages with a receiver whom no mention notifies.
  const needFollowers = messages.flatMap(({ channel }, i) =>
    channel && !channel.followers && candidates(i).some((r) => (r.flags & anyMention) === 0) ? [{ i, channel }] : [],
  );
  const followerSets = await userTopicFollowStore.followersOfTopics(
    tx.q,
    needFollowers.map(({ channel }) => channel),
  );
  const followersOf = new Map<number, ReadonlySet<number>>(needFollowers.map(({ i }, k) => [i, defined(followerSets[k], `the followers of topic ${k}`)]));
  return messages.map(({ channel }, i) => {
    const result = new Map<number, NotificationTrigger>();
    const followers = channel?.followers ?? followersOf.get(i) ?? new Set<number>();
    for (const row of candidates(i)) {
      if (!channel) result.set(row.user_id, "direct_message");
      else if (row.flags & MessageFlag.MENTIONED) result.set(row.user_id, "mentioned");
      else if (row.flags & MessageFlag.TOPIC_WILDCARD_MENTIONED) result.set(row.user_id, "topic_wildcard_mentioned");
      else if (row.flags & MessageFlag.STREAM_WILDCARD_MENTIONED) result.set(row.user_id, "stream_wildcard_mentioned");
      else if (followers.has(row.user_id)) result.set(row.user_id, "followed_topic");
    }
    return result;
  });
}
