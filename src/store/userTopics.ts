import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { VisibilityPolicy } from "../contract/constants.js";

/** A (channel, topic) key for maps of policies; topics compare case-insensitively. */
export const policyKey = (streamId: number, topic: string) => `${streamId}:${topic.toLowerCase()}`;

const sameTopic = (topic: string) => sql<boolean>`lower(topic_name) = lower(${topic})`;

/**
 * Per-user topic preferences (Zulip's UserTopic). Topic names compare case-insensitively.
 */
export const userTopicStore = {
  async getPolicy(q: Executor, userId: number, streamId: number, topic: string): Promise<number> {
    const row = await q
      .selectFrom("user_topics")
      .select("visibility_policy")
      .where("user_id", "=", userId)
      .where("stream_id", "=", streamId)
      .where(sameTopic(topic))
      .executeTakeFirst();
    return row?.visibility_policy ?? VisibilityPolicy.INHERIT;
  },

  async setPolicy(
    q: Executor,
    row: { user_id: number; stream_id: number; recipient_id: number; topic_name: string; visibility_policy: number; last_updated: number },
  ): Promise<void> {
    const update = async () =>
      Number(
        (
          await q
            .updateTable("user_topics")
            .set({ visibility_policy: row.visibility_policy, last_updated: row.last_updated })
            .where("user_id", "=", row.user_id)
            .where("stream_id", "=", row.stream_id)
            .where(sameTopic(row.topic_name))
            .executeTakeFirst()
        ).numUpdatedRows,
      );
    if ((await update()) > 0) return;
    // A concurrent transaction (two sends to a new topic at once) may insert the row first: then
    // this insert waits for it, inserts nothing, and the row it committed is updated.
    const inserted = await q
      .insertInto("user_topics")
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) await update();
  },

  /** Removes the user's row; returns whether there was one. */
  async remove(q: Executor, userId: number, streamId: number, topic: string): Promise<boolean> {
    const result = await q.deleteFrom("user_topics").where("user_id", "=", userId).where("stream_id", "=", streamId).where(sameTopic(topic)).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /** Users with any policy for the topic. */
  async userIdsWithPolicy(q: Executor, streamId: number, topic: string): Promise<number[]> {
    const rows = await q.selectFrom("user_topics").select("user_id").where("stream_id", "=", streamId).where(sameTopic(topic)).orderBy("user_id").execute();
    return rows.map((r) => r.user_id);
  },

  /** The user's policies in these channels, keyed by `policyKey`. */
  async policiesInStreams(q: Executor, userId: number, streamIds: readonly number[]): Promise<Map<string, number>> {
    if (streamIds.length === 0) return new Map();
    const rows = await q
      .selectFrom("user_topics")
      .select(["stream_id", "topic_name", "visibility_policy"])
      .where("user_id", "=", userId)
      .where("stream_id", "in", [...new Set(streamIds)])
      .execute();
    return new Map(rows.map((r) => [policyKey(r.stream_id, r.topic_name), r.visibility_policy]));
  },

  /** The user's muted topics as the legacy muted_topics event lists them: [channel name, topic, time]. */
  async mutedTopics(q: Executor, userId: number): Promise<Array<[string, string, number]>> {
    const rows = await q
      .selectFrom("user_topics as ut")
      .innerJoin("streams as s", "s.id", "ut.stream_id")
      .select(["s.name", "ut.topic_name", "ut.last_updated"])
      .where("ut.user_id", "=", userId)
      .where("ut.visibility_policy", "=", VisibilityPolicy.MUTED)
      .orderBy("ut.id")
      .execute();
    return rows.map((r) => [r.name, r.topic_name, Number(r.last_updated)]);
  },
};

/** Users' topic visibility policies of one topic (user_topics), for message moves. */
export const topicPolicyStore = {
  async listForTopic(q: Executor, streamId: number, topic: string): Promise<Array<{ user_id: number; visibility_policy: number }>> {
    return q
      .selectFrom("user_topics")
      .select(["user_id", "visibility_policy"])
      .where("stream_id", "=", streamId)
      .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
      .orderBy("user_id")
      .execute();
  },

  async clear(q: Executor, userIds: readonly number[], streamId: number, topic: string): Promise<void> {
    if (userIds.length === 0) return;
    await q
      .deleteFrom("user_topics")
      .where("user_id", "in", [...userIds])
      .where("stream_id", "=", streamId)
      .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
      .execute();
  },
};
