import { type Insertable, sql } from "kysely";
import type { UserMessagesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";
import { dialectOf } from "../db/dialect.js";
import { insertInBatches } from "./batches.js";

/**
 * Per-user message state (Zulip's UserMessage): one row per (user, message) with a flags bitmask.
 * Callers ask questions through these functions and never depend on the representation.
 */
export const userMessageStore = {
  /** In as few statements as the engine takes (the dialect's insertMany); rows sorted by (message_id, user_id) append fastest. */
  async insertMany(q: Executor, rows: readonly Insertable<UserMessagesTable>[]): Promise<void> {
    await dialectOf(q).insertMany(q, "user_messages", rows);
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

/** Flag changes and unread lookups of one user's messages (the message flags endpoints). */
export const userMessageFlagStore = {
  /** Sets (`on`) or clears one flag bit on the user's rows for `messageIds`. */
  async setFlag(q: Executor, userId: number, messageIds: readonly number[], bit: number, on: boolean): Promise<void> {
    if (messageIds.length === 0) return;
    await q
      .updateTable("user_messages")
      .set({ flags: on ? sql<number>`flags | ${sql.lit(bit)}` : sql<number>`flags & ${sql.lit(~bit)}` })
      .where("user_id", "=", userId)
      .where("message_id", "in", [...messageIds])
      .execute();
  },

  /** The user's unread message ids in id order: all, or of one channel, or of one topic of it. */
  async unreadIds(q: Executor, userId: number, opts: { recipientId?: number; topic?: string; senderId?: number; limit?: number } = {}): Promise<number[]> {
    const unread = sql<boolean>`(um.flags & ${sql.lit(MessageFlag.READ)}) = 0`;
    if (opts.recipientId === undefined && opts.senderId === undefined) {
      let query = q.selectFrom("user_messages as um").select("um.message_id").where("um.user_id", "=", userId).where(unread).orderBy("um.message_id");
      if (opts.limit !== undefined) query = query.limit(opts.limit);
      return (await query.execute()).map((r) => r.message_id);
    }
    let query = q
      .selectFrom("user_messages as um")
      .innerJoin("messages as m", "m.id", "um.message_id")
      .select("um.message_id")
      .where("um.user_id", "=", userId)
      .where(unread)
      .orderBy("um.message_id");
    if (opts.recipientId !== undefined) {
      query = query.where("m.recipient_id", "=", opts.recipientId);
      if (opts.topic !== undefined) query = query.where(sql<boolean>`lower(m.subject) = lower(${opts.topic})`);
    }
    if (opts.senderId !== undefined) query = query.where("m.sender_id", "=", opts.senderId);
    if (opts.limit !== undefined) query = query.limit(opts.limit);
    return (await query.execute()).map((r) => r.message_id);
  },

  /** Whether the user received a message in this topic (Zulip's user_message_exists_for_topic). */
  async receivedInTopic(q: Executor, userId: number, recipientId: number, topic: string): Promise<boolean> {
    const row = await q
      .selectFrom("user_messages as um")
      .innerJoin("messages as m", "m.id", "um.message_id")
      .select("um.message_id")
      .where("um.user_id", "=", userId)
      .where("m.recipient_id", "=", recipientId)
      .where(sql<boolean>`lower(m.subject) = lower(${topic})`)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Inserts rows, leaving alone any that a concurrent request created first. */
  async insertIfMissing(q: Executor, rows: readonly Insertable<UserMessagesTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await insertInBatches(rows, (batch) =>
      q
        .insertInto("user_messages")
        .values(batch)
        .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
        .execute(),
    );
  },

  /** Who received each of `messageIds`. */
  async receiversByMessage(q: Executor, messageIds: readonly number[]): Promise<Map<number, number[]>> {
    const result = new Map<number, number[]>();
    if (messageIds.length === 0) return result;
    const rows = await q
      .selectFrom("user_messages")
      .select(["message_id", "user_id"])
      .where("message_id", "in", [...messageIds])
      .orderBy("user_id")
      .execute();
    for (const row of rows) result.set(row.message_id, [...(result.get(row.message_id) ?? []), row.user_id]);
    return result;
  },
};

/** user_messages changes for message edits, moves and deletions. */
export const userMessageEditStore = {
  /** Every row of the message: who received it, with their flags. */
  async rowsFor(q: Executor, messageId: number): Promise<Array<{ user_id: number; flags: number }>> {
    return q.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", messageId).orderBy("user_id").execute();
  },

  /** Who holds a row for any of `messageIds`. */
  async userIdsForAny(q: Executor, messageIds: readonly number[]): Promise<number[]> {
    if (messageIds.length === 0) return [];
    const rows = await q
      .selectFrom("user_messages")
      .select("user_id")
      .distinct()
      .where("message_id", "in", [...messageIds])
      .orderBy("user_id")
      .execute();
    return rows.map((r) => r.user_id);
  },

  /** Sets the bits of `set` and clears those of `clear` on these users' rows of one message. */
  async changeFlags(q: Executor, messageId: number, userIds: readonly number[], set: number, clear: number): Promise<void> {
    if (userIds.length === 0) return;
    await q
      .updateTable("user_messages")
      .set({ flags: sql<number>`(flags & ${sql.lit(~clear)}) | ${sql.lit(set)}` })
      .where("message_id", "=", messageId)
      .where("user_id", "in", [...userIds])
      .execute();
  },

  /** Adds `bits` to the flags of the user's rows for these messages. */
  async addFlags(q: Executor, userId: number, messageIds: readonly number[], bits: number): Promise<void> {
    if (messageIds.length === 0) return;
    await q
      .updateTable("user_messages")
      .set({ flags: sql<number>`flags | ${sql.lit(bits)}` })
      .where("user_id", "=", userId)
      .where("message_id", "in", [...messageIds])
      .execute();
  },

  /** Rows for every (user, message) pair that has none yet, with `flags`. */
  async insertMissing(q: Executor, userIds: readonly number[], messageIds: readonly number[], flags: number): Promise<void> {
    const rows = messageIds.flatMap((message_id) => userIds.map((user_id) => ({ user_id, message_id, flags })));
    if (rows.length === 0) return;
    await insertInBatches(rows, (batch) =>
      q
        .insertInto("user_messages")
        .values(batch)
        .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
        .execute(),
    );
  },

  async deleteFor(q: Executor, userIds: readonly number[], messageIds: readonly number[]): Promise<void> {
    if (userIds.length === 0 || messageIds.length === 0) return;
    await q
      .deleteFrom("user_messages")
      .where("user_id", "in", [...userIds])
      .where("message_id", "in", [...messageIds])
      .execute();
  },
};
