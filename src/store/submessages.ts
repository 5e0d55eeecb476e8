import type { Insertable } from "kysely";
import type { SubmessagesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import type { Submessage } from "./messages.js";

/** Submessages: widgets (polls, to-do lists) and their changes, attached to a message. */
export const submessageStore = {
  async insertMany(q: Executor, rows: ReadonlyArray<Insertable<SubmessagesTable>>): Promise<Submessage[]> {
    if (rows.length === 0) return [];
    return q
      .insertInto("submessages")
      .values([...rows])
      .returningAll()
      .execute();
  },

  /** The content of the message's first "widget" submessage (the one the message was sent with). */
  async widgetContent(q: Executor, messageId: number): Promise<string | undefined> {
    const row = await q
      .selectFrom("submessages")
      .select("content")
      .where("message_id", "=", messageId)
      .where("msg_type", "=", "widget")
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row?.content;
  },

  async anyFrom(q: Executor, messageId: number, senderId: number): Promise<boolean> {
    const row = await q
      .selectFrom("submessages")
      .select("id")
      .where("message_id", "=", messageId)
      .where("sender_id", "=", senderId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  async exists(q: Executor, messageId: number): Promise<boolean> {
    const row = await q.selectFrom("submessages").select("id").where("message_id", "=", messageId).limit(1).executeTakeFirst();
    return row !== undefined;
  },
};
