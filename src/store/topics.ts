import { sql } from "kysely";
import { type Executor } from "../db/tx.js";

/** Topics of a channel: listing and the messages of one topic (topics endpoints). */
export const topicStore = {
  /**
   * Each topic (exact spelling) with its newest message id, newest first; `receivedBy` limits
   * to messages that user received (protected history).
   */
  async history(q: Executor, realmId: number, recipientId: number, receivedBy: number | null): Promise<Array<{ topic: string; max_id: number }>> {
    let query = q
      .selectFrom("messages as m")
      .select(["m.subject as topic", sql<number>`max(m.id)`.as("max_id")])
      .where("m.realm_id", "=", realmId)
      .where("m.recipient_id", "=", recipientId)
      .groupBy("m.subject")
      .orderBy(sql`max(m.id)`, "desc");
    if (receivedBy !== null) query = query.innerJoin("user_messages as um", (j) => j.onRef("um.message_id", "=", "m.id").on("um.user_id", "=", receivedBy));
    return (await query.execute()).map((r) => ({ topic: r.topic, max_id: Number(r.max_id) }));
  },

  /** Up to `limit` of the topic's messages (id, exact topic), newest first; `receivedBy` as in history(). */
  async newestMessages(
    q: Executor,
    realmId: number,
    recipientId: number,
    topic: string,
    receivedBy: number | null,
    limit: number,
  ): Promise<Array<{ id: number; subject: string }>> {
    let query = q
      .selectFrom("messages as m")
      .select(["m.id", "m.subject"])
      .where("m.realm_id", "=", realmId)
      .where("m.recipient_id", "=", recipientId)
      .where(sql<boolean>`lower(m.subject) = lower(${topic})`)
      .orderBy("m.id", "desc")
      .limit(limit);
    if (receivedBy !== null) query = query.innerJoin("user_messages as um", (j) => j.onRef("um.message_id", "=", "m.id").on("um.user_id", "=", receivedBy));
    return query.execute();
  },
};
