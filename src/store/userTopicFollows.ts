import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { VisibilityPolicy } from "../contract/constants.js";
import { defined } from "../util/defined.js";

export const userTopicFollowStore = {
  /**
   * Who follows each (channel, topic): a few users per topic, however large the channel. One
   * statement for all pairs (topics compared case-insensitively in SQL); sets in `topics` order.
   */
  async followersOfTopics(q: Executor, topics: ReadonlyArray<{ streamId: number; topic: string }>): Promise<Array<Set<number>>> {
    const keyOf = (t: { streamId: number; topic: string }) => `${t.streamId} ${t.topic}`;
    const distinct = [...new Map(topics.map((t) => [keyOf(t), t])).values()];
    const [first] = distinct;
    if (first === undefined) return [];
    const select = (t: { streamId: number; topic: string }, i: number) =>
      q
        .selectFrom("user_topics")
        .select(["user_id", sql<number>`${sql.lit(i)}`.as("i")])
        .where("stream_id", "=", t.streamId)
        .where(sql<boolean>`lower(topic_name) = lower(${t.topic})`)
        .where("visibility_policy", "=", VisibilityPolicy.FOLLOWED);
    let query = select(first, 0);
    for (const [i, t] of distinct.entries()) if (i > 0) query = query.unionAll(select(t, i));
    const rows = await query.execute();
    const sets = distinct.map(() => new Set<number>());
    for (const row of rows) sets[Number(row.i)]?.add(row.user_id);
    const byKey = new Map(distinct.map((t, i) => [keyOf(t), defined(sets[i], `the followers of topic ${i}`)]));
    return topics.map((t) => byKey.get(keyOf(t))!);
  },
};
