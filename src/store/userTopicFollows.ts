import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { VisibilityPolicy } from "./messages.js";

export const userTopicFollowStore = {
  /** Of `userIds`, those who follow the topic. */
  async followers(q: Executor, streamId: number, topic: string, userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await q
      .selectFrom("user_topics")
      .select("user_id")
      .where("stream_id", "=", streamId)
      .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
      .where("visibility_policy", "=", VisibilityPolicy.FOLLOWED)
      .where("user_id", "in", [...userIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },
};
