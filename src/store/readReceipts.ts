import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";

/** Who has read a message, for read receipts (Zulip's read_receipts query). */
export const readReceiptStore = {
  /**
   * Active users holding a read row for the message, but its sender and anyone the viewer muted
   * or who muted the viewer; with their settings (send_read_receipts is checked by the caller).
   */
  async readers(q: Executor, messageId: number, senderId: number, viewerId: number): Promise<Array<{ id: number; settings: string }>> {
    return q
      .selectFrom("user_messages as um")
      .innerJoin("users as u", "u.id", "um.user_id")
      .select(["u.id", "u.settings"])
      .where("um.message_id", "=", messageId)
      .where("u.is_active", "=", 1)
      .where("um.user_id", "!=", senderId)
      .where(sql<boolean>`(um.flags & ${sql.lit(MessageFlag.READ)}) != 0`)
      .where("um.user_id", "not in", (eb) => eb.selectFrom("muted_users").select("user_id").where("muted_user_id", "=", viewerId))
      .where("um.user_id", "not in", (eb) => eb.selectFrom("muted_users").select("muted_user_id").where("user_id", "=", viewerId))
      .orderBy("u.id")
      .execute();
  },
};
