import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { VisibilityPolicy } from "./messages.js";

export const userTopicFollowStore = {
  /** Everyone who follows the topic: a few users, however large the channel. */
  async followers(q: Executor, streamId: number, topic: string): Promise<Set<number>> {
    const rows = await q
      .selectFrom("user_topics")
      .select("user_id")
      .where("stream_id", "=", streamId)
      .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
      .where("visibility_policy", "=", VisibilityPolicy.FOLLOWED)
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },
};
