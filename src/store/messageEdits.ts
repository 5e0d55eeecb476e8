import { type Updateable, sql } from "kysely";
import { dialectOf } from "../db/dialect.js";
import { type MessagesTable } from "../db/schema.js";
import { type Executor } from "../db/tx.js";
import { type Message } from "./messages.js";

const sameTopic = (topic: string) => sql<boolean>`lower(subject) = lower(${topic})`;

/** Message edits, moves and deletions (actions/messageEdit.ts, actions/messageDelete.ts). */
export const messageEditStore = {
  /** Locks the message row until the transaction ends, so concurrent edits apply one after the other. */
  async lock(q: Executor, id: number): Promise<void> {
    await dialectOf(q)
      .forUpdate(q.selectFrom("messages").select("id").where("id", "=", id))
      .execute();
  },

  async update(q: Executor, id: number, changes: Updateable<MessagesTable>): Promise<void> {
    await q.updateTable("messages").set(changes).where("id", "=", id).execute();
  },

  /**
   * One statement for many messages: `changes` on each, and `entryJson` (one edit history entry,
   * as JSON) put first in each message's edit_history (a JSON list, newest first) — the same text
   * as withEditEntry would write for every message.
   */
  async updateWithHistoryEntry(q: Executor, ids: readonly number[], changes: Updateable<MessagesTable>, entryJson: string): Promise<void> {
    if (ids.length === 0) return;
    const rest = sql<string>`case when edit_history is null or edit_history = '[]' then ']' else ',' || substr(edit_history, 2) end`;
    await q
      .updateTable("messages")
      .set({ ...changes, edit_history: sql<string>`'[' || cast(${entryJson} as text) || ${rest}` })
      .where("id", "in", [...ids])
      .execute();
  },

  /** The topic's messages (case-insensitive topic), oldest first; optionally from `fromId` on. */
  async topicMessages(q: Executor, recipientId: number, topic: string, fromId = 0): Promise<Message[]> {
    return q
      .selectFrom("messages")
      .selectAll()
      .where("recipient_id", "=", recipientId)
      .where(sameTopic(topic))
      .where("id", ">=", fromId)
      .orderBy("id")
      .execute();
  },

  async lastTopicMessage(q: Executor, recipientId: number, topic: string): Promise<Message | undefined> {
    return q
      .selectFrom("messages")
      .selectAll()
      .where("recipient_id", "=", recipientId)
      .where(sameTopic(topic))
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  },

  /** Deletes messages with everything hanging off them (reactions, submessages, attachment links, user rows). */
  async deleteMessages(q: Executor, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const list = [...ids];
    await q.deleteFrom("reactions").where("message_id", "in", list).execute();
    await q.deleteFrom("submessages").where("message_id", "in", list).execute();
    await q.deleteFrom("attachment_messages").where("message_id", "in", list).execute();
    await q.deleteFrom("user_messages").where("message_id", "in", list).execute();
    await q.updateTable("scheduled_messages").set({ delivered_message_id: null }).where("delivered_message_id", "in", list).execute();
    await q.deleteFrom("messages").where("id", "in", list).execute();
  },

  /** Sets the channel's first_message_id to its oldest remaining message (null when none). */
  async resetStreamFirstMessageId(q: Executor, streamId: number, recipientId: number): Promise<void> {
    const row = await q
      .selectFrom("messages")
      .select((eb) => eb.fn.min("id").as("first"))
      .where("recipient_id", "=", recipientId)
      .executeTakeFirst();
    const first = row?.first === null || row?.first === undefined ? null : Number(row.first);
    await q.updateTable("streams").set({ first_message_id: first }).where("id", "=", streamId).execute();
  },
};
