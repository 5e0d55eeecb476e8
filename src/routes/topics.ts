import { transaction } from "../appContext.js";
import { checkDeleteTopicAccess, DELETE_TOPIC_BATCH_SIZE, doClearDeletedTopicPolicies, doDeleteTopicBatch } from "../actions/deleteTopic.js";
import { checkUpdateMutedTopic, checkUpdateUserTopic, topicFromInput } from "../actions/userTopics.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { historyIsPublic } from "../lib/messageAccess.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";
import { accessStreamAsVisitor, accessStreamById, AccessSubject } from "../lib/streamAccess.js";
import { MAX_TOPIC_LENGTH } from "../models/limits.js";
import { topicStore } from "../store/topics.js";

const streamIdOf = (path: Record<string, string>) => pathParam.int(path.stream_id, "stream_id");

/**
 * GET /users/me/{stream_id}/topics: topics of the messages the user may read, newest first.
 * Spellings differing only in case are one topic, named as its most recent message has it. A
 * visitor gets a web-public channel's topics (Zulip's access_web_public_stream: any other id is
 * "Invalid channel ID").
 */
export const getTopics = endpoint({
  auth: "visitor",
  params: { allow_empty_topic_name: p.bool().default(false) },
  handler: async ({ ctx, user, realm, params, path }) => {
    const q = ctx.db.kysely;
    const stream = user
      ? (await accessStreamById(q, new AccessSubject(user), streamIdOf(path), "content", { requireActive: true })).stream
      : await accessStreamAsVisitor(q, realm.id, streamIdOf(path));
    const rows = await topicStore.history(q, realm.id, stream.recipient_id, user && !historyIsPublic(stream) ? user.id : null);
    const byName = new Map<string, { name: string; max_id: number }>();
    for (const row of [...rows].sort((a, b) => a.max_id - b.max_id)) byName.set(row.topic.toLowerCase(), { name: row.topic, max_id: row.max_id });
    const topics = [...byName.values()]
      .map((t) => ({ name: t.name === "" && !params.allow_empty_topic_name ? EMPTY_TOPIC_DISPLAY_NAME : t.name, max_id: t.max_id }))
      .sort((a, b) => b.max_id - a.max_id);
    return { topics };
  },
});

/** Zulip stops a topic deletion after 50 s and answers complete: false; the client repeats it. */
const DELETE_TOPIC_TIME_LIMIT_MS = 50_000;

/** POST /streams/{stream_id}/delete_topic: one transaction per batch of messages, newest first. */
export const deleteInTopic = endpoint({
  auth: "user",
  params: { topic_name: p.string({ trim: false }) },
  handler: async ({ ctx, user, params, path }) => {
    const streamId = streamIdOf(path);
    await transaction(ctx, (tx) => checkDeleteTopicAccess(tx, user, streamId));
    const topic = topicFromInput(params.topic_name);
    const deadline = Date.now() + DELETE_TOPIC_TIME_LIMIT_MS;
    for (;;) {
      if (Date.now() >= deadline) return { complete: false };
      const deleted = await transaction(ctx, async (tx) => {
        await checkDeleteTopicAccess(tx, user, streamId);
        return doDeleteTopicBatch(tx, user, streamId, topic);
      });
      if (deleted < DELETE_TOPIC_BATCH_SIZE) break;
    }
    await transaction(ctx, (tx) => doClearDeletedTopicPolicies(tx, user, streamId, topic));
    return { complete: true };
  },
});

/** POST /user_topics */
export const updateUserTopic = endpoint({
  auth: "user",
  params: {
    stream_id: p.int(),
    topic: p.string({ trim: false, maxLength: MAX_TOPIC_LENGTH }),
    visibility_policy: p.intEnum([0, 1, 2, 3]),
  },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => checkUpdateUserTopic(tx, user, params.stream_id, params.topic, params.visibility_policy));
  },
});

/** PATCH /users/me/subscriptions/muted_topics (deprecated) */
export const updateMutedTopic = endpoint({
  auth: "user",
  params: {
    op: p.enum(["add", "remove"]),
    topic: p.string({ trim: false, maxLength: MAX_TOPIC_LENGTH }),
    stream: p.string({ trim: false }).optional(),
    stream_id: p.int().optional(),
  },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => checkUpdateMutedTopic(tx, user, { streamId: params.stream_id, streamName: params.stream }, params.topic, params.op));
  },
});
