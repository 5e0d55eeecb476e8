import type { Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../contract/constants.js";
import { accessStreamById, accessStreamByName, AccessSubject } from "../lib/streamAccess.js";
import { streamStore } from "../store/streams.js";
import { userTopicStore } from "../store/userTopics.js";
import { nowSeconds } from "../util/time.js";

/**
 * Topic parameters: the empty topic's display name and "(no topic)" name the empty topic
 * (Zulip's maybe_rename_general_chat_to_empty_topic, feature levels 334 and 370).
 */
export function topicFromInput(topic: string): string {
  return topic === EMPTY_TOPIC_DISPLAY_NAME || topic === "(no topic)" ? "" : topic;
}

/**
 * Removing a policy needs no access to the channel, only that it exists in the realm (Zulip's
 * access_stream_to_remove_visibility_policy_by_id/_by_name): a user who lost access may still
 * clean up.
 */
async function anyChannel(tx: Tx, user: User, target: ChannelTarget, error: string): Promise<Stream> {
  const stream =
    target.streamId !== undefined
      ? await streamStore.getById(tx.q, user.realm_id, target.streamId)
      : await streamStore.getByName(tx.q, user.realm_id, target.streamName!);
  if (!stream) throw badRequest(error);
  return stream;
}

type ChannelTarget = { streamId: number; streamName?: undefined } | { streamId?: undefined; streamName: string };

/** POST /user_topics */
export async function checkUpdateUserTopic(tx: Tx, user: User, streamId: number, topic: string, policy: number): Promise<void> {
  const stream =
    policy === VisibilityPolicy.INHERIT
      ? await anyChannel(tx, user, { streamId }, "Invalid channel ID")
      : (await accessStreamById(tx.q, new AccessSubject(user), streamId, "content", { requireActive: true })).stream;
  await doSetUserTopicVisibilityPolicy(tx, [user.id], stream, topicFromInput(topic), policy);
}

/** PATCH /users/me/subscriptions/muted_topics (deprecated): mute (add) or clear (remove) a topic. */
export async function checkUpdateMutedTopic(
  tx: Tx,
  user: User,
  target: { streamId?: number; streamName?: string },
  topic: string,
  op: "add" | "remove",
): Promise<void> {
  const { streamId, streamName } = target;
  if (streamId === undefined && streamName === undefined) throw badRequest("Missing 'stream_id' argument");
  if (streamId !== undefined && streamName !== undefined) {
    throw badRequest("Unsupported parameter combination: stream_id, stream", { parameters: "stream_id, stream" });
  }
  const channel: ChannelTarget = streamId !== undefined ? { streamId } : { streamName: streamName! };
  if (op === "remove") {
    const stream = await anyChannel(tx, user, channel, "Topic is not muted");
    await doSetUserTopicVisibilityPolicy(tx, [user.id], stream, topic, VisibilityPolicy.INHERIT);
    return;
  }
  const subject = new AccessSubject(user);
  const access =
    channel.streamId !== undefined
      ? await accessStreamById(tx.q, subject, channel.streamId, "content", { requireActive: true })
      : await accessStreamByName(tx.q, subject, channel.streamName, "content", { requireActive: true, invalidNameError: true });
  await doSetUserTopicVisibilityPolicy(tx, [user.id], access.stream, topic, VisibilityPolicy.MUTED);
}

/**
 * Sets the users' policy for the topic (Zulip's bulk_do_set_user_topic_visibility_policy).
 * Users whose policy already has that value are left alone and get no event. Each changed user
 * gets the legacy muted_topics event (event queues drop it for clients that asked for
 * user_topic) and a user_topic event.
 */
export async function doSetUserTopicVisibilityPolicy(tx: Tx, userIds: readonly number[], stream: Stream, topic: string, policy: number): Promise<void> {
  const lastUpdated = nowSeconds();
  for (const userId of userIds) {
    const current = await userTopicStore.getPolicy(tx.q, userId, stream.id, topic);
    if (current === policy) continue;
    if (policy === VisibilityPolicy.INHERIT) {
      await userTopicStore.remove(tx.q, userId, stream.id, topic);
    } else {
      await userTopicStore.setPolicy(tx.q, {
        user_id: userId,
        stream_id: stream.id,
        recipient_id: stream.recipient_id,
        topic_name: topic,
        visibility_policy: policy,
        last_updated: lastUpdated,
      });
    }
    tx.sendEventOnCommit({ type: "muted_topics", muted_topics: await userTopicStore.mutedTopics(tx.q, userId) }, [userId]);
    tx.sendEventOnCommit({ type: "user_topic", stream_id: stream.id, topic_name: topic, last_updated: lastUpdated, visibility_policy: policy }, [userId]);
  }
}
