import { type Executor } from "../db/tx.js";
import { type Message } from "./messages.js";

/** Messages past a retention period (oldest first). */
export const retentionStore = {
  async channelMessagesBefore(q: Executor, recipientId: number, cutoff: number, limit: number): Promise<Message[]> {
    return q.selectFrom("messages").selectAll().where("recipient_id", "=", recipientId).where("date_sent", "<", cutoff).orderBy("id").limit(limit).execute();
  },

  async directMessagesBefore(q: Executor, realmId: number, cutoff: number, limit: number): Promise<Message[]> {
    return q
      .selectFrom("messages")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("is_channel_message", "=", 0)
      .where("date_sent", "<", cutoff)
      .orderBy("id")
      .limit(limit)
      .execute();
  },
};
