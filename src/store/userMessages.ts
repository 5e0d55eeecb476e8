import type { Insertable } from "kysely";
import type { UserMessagesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

/**
 * Per-user message state (Zulip's UserMessage): one row per (user, message) with a flags bitmask.
 * Callers ask questions through these functions and never depend on the representation.
 */
export const userMessageStore = {
  /** One multi-row insert; rows sorted by (message_id, user_id) append fastest. */
  async insertMany(q: Executor, rows: readonly Insertable<UserMessagesTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await q.insertInto("user_messages").values([...rows]).execute();
  },

  /** The user's flags for each of `messageIds` the user received (absent: not received). */
  async flagsFor(q: Executor, userId: number, messageIds: readonly number[]): Promise<Map<number, number>> {
    if (messageIds.length === 0) return new Map();
    const rows = await q
      .selectFrom("user_messages")
      .select(["message_id", "flags"])
      .where("user_id", "=", userId)
      .where("message_id", "in", [...messageIds])
      .execute();
    return new Map(rows.map((r) => [r.message_id, r.flags]));
  },

  /** Who received the message (for a direct message: its participants). */
  async userIdsFor(q: Executor, messageId: number): Promise<number[]> {
    const rows = await q.selectFrom("user_messages").select("user_id").where("message_id", "=", messageId).orderBy("user_id").execute();
    return rows.map((r) => r.user_id);
  },
};
