import { type Insertable, type Selectable, sql } from "kysely";
import { dialectOf } from "../db/dialect.js";
import type { MessagesTable, SubmessagesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { insertInBatches } from "./batches.js";
import { compiledQuery } from "../db/compiledQuery.js";

/** The columns a send writes (actions/messageSend.ts), every one given. */
type SentMessageRow = Required<Omit<Insertable<MessagesTable>, "id" | "last_edit_time" | "last_moved_time" | "edit_history">>;
const SENT_MESSAGE_COLUMNS = [
  "realm_id",
  "sender_id",
  "recipient_id",
  "subject",
  "content",
  "rendered_content",
  "rendered_content_version",
  "date_sent",
  "sending_client",
  "has_attachment",
  "has_image",
  "has_link",
  "is_channel_message",
] as const satisfies ReadonlyArray<keyof SentMessageRow>;
const isSentMessageRow = (row: Insertable<MessagesTable>): row is SentMessageRow =>
  Object.keys(row).length === SENT_MESSAGE_COLUMNS.length && SENT_MESSAGE_COLUMNS.every((c) => row[c] !== undefined);

/** One sent message's insert (every send), compiled once (db/compiledQuery.ts). */
const insertSentMessage = compiledQuery((db, p: SentMessageRow) =>
  db
    .insertInto("messages")
    .values(Object.fromEntries(SENT_MESSAGE_COLUMNS.map((c) => [c, p[c]])) as SentMessageRow)
    .returningAll(),
);
import type { Reaction } from "./reactions.js";
import { defined } from "../util/defined.js";

export type Message = Selectable<MessagesTable>;
export type Submessage = Selectable<SubmessagesTable>;

/** Case-insensitive topic comparison, as Zulip's upper(subject) = upper(topic). */
const sameTopic = (topic: string) => sql<boolean>`lower(subject) = lower(${topic})`;

export const messageStore = {
  async insert(q: Executor, row: Insertable<MessagesTable>): Promise<Message> {
    return q.insertInto("messages").values(row).returningAll().executeTakeFirstOrThrow();
  },

  /** One statement for all `rows`; the messages come back in the order of `rows` (ids ascending). */
  async insertMany(q: Executor, rows: readonly Insertable<MessagesTable>[]): Promise<Message[]> {
    if (rows.length === 0) return [];
    const [only] = rows;
    if (rows.length === 1 && only !== undefined && isSentMessageRow(only)) return insertSentMessage.rows(q, only);
    const inserted = await insertInBatches(rows, (batch) => q.insertInto("messages").values(batch).returningAll().execute());
    return inserted.sort((a, b) => a.id - b.id);
  },

  /**
   * The realm's messages with these ids, in id order. The realm is checked on the rows, not in
   * SQL: with `realm_id = ?` in the query, SQLite's planner walked the (realm_id, date_sent) index
   * over every message of the realm instead of one key look-up per id.
   */
  async listByIds(q: Executor, realmId: number, ids: readonly number[]): Promise<Message[]> {
    if (ids.length === 0) return [];
    const rows = await q
      .selectFrom("messages")
      .selectAll()
      .where("id", "in", [...new Set(ids)])
      .orderBy("id")
      .execute();
    return rows.filter((m) => m.realm_id === realmId);
  },

  async topicHasMessages(q: Executor, recipientId: number, topic: string): Promise<boolean> {
    const [has] = await this.topicsHaveMessages(q, [{ recipientId, topic }]);
    return defined(has, "the answer for the topic");
  },

  /**
   * Whether each (recipient, topic) has a message, in one statement (an EXISTS per distinct pair,
   * each stopping at its first message; topics compared case-insensitively); in `topics` order.
   */
  async topicsHaveMessages(q: Executor, topics: ReadonlyArray<{ recipientId: number; topic: string }>): Promise<boolean[]> {
    const keyOf = (t: { recipientId: number; topic: string }) => `${t.recipientId} ${t.topic}`;
    const distinct = [...new Map(topics.map((t) => [keyOf(t), t])).values()];
    if (distinct.length === 0) return [];
    const row = await q
      .selectNoFrom((eb) =>
        distinct.map((t, i) =>
          eb.exists(eb.selectFrom("messages").select("id").where("recipient_id", "=", t.recipientId).where(sameTopic(t.topic)).limit(1)).as(`t${i}`),
        ),
      )
      .executeTakeFirstOrThrow();
    const values = row as Record<string, unknown>;
    const found = new Map(distinct.map((t, i) => [keyOf(t), Boolean(Number(values[`t${i}`]) || values[`t${i}`] === true)]));
    return topics.map((t) => found.get(keyOf(t))!);
  },

  /** Whether any message matches one of the (recipient, optional sender) pairs. */
  async existsFor(q: Executor, pairs: ReadonlyArray<{ recipientId: number; senderId?: number }>): Promise<boolean> {
    if (pairs.length === 0) return false;
    const row = await q
      .selectFrom("messages")
      .select("id")
      .where((eb) =>
        eb.or(
          pairs.map((p) =>
            p.senderId === undefined
              ? eb("recipient_id", "=", p.recipientId)
              : eb.and([eb("recipient_id", "=", p.recipientId), eb("sender_id", "=", p.senderId)]),
          ),
        ),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Users who sent a message to the topic (Zulip's topic participants, without reactions). */
  async topicSenderIds(q: Executor, recipientId: number, topic: string): Promise<number[]> {
    const rows = await q.selectFrom("messages").select("sender_id").distinct().where("recipient_id", "=", recipientId).where(sameTopic(topic)).execute();
    return rows.map((r) => r.sender_id);
  },

  /**
   * Sets each channel's first_message_id where it is null, in one statement (a channel's first
   * message: the lowest id given for it); returns the channels whose first_message_id it set.
   */
  async setStreamsFirstMessageIdIfNull(q: Executor, firsts: ReadonlyArray<{ streamId: number; messageId: number }>): Promise<Set<number>> {
    const lowest = new Map<number, number>();
    for (const { streamId, messageId } of firsts) lowest.set(streamId, Math.min(messageId, lowest.get(streamId) ?? Infinity));
    if (lowest.size === 0) return new Set();
    const rows = await q
      .updateTable("streams")
      .set((eb) => {
        const [first, ...pairs] = lowest;
        const [firstStream, firstMessage] = defined(first, "a channel's lowest message id");
        // Bound and typed values: then(n) would write n into the SQL text, a new statement per message.
        const id = (messageId: number) => eb.cast<number>(eb.val(messageId), dialectOf(q).bigint);
        let whens = eb.case("id").when(firstStream).then(id(firstMessage));
        for (const [streamId, messageId] of pairs) whens = whens.when(streamId).then(id(messageId));
        return { first_message_id: whens.end() };
      })
      .where("id", "in", [...lowest.keys()])
      .where("first_message_id", "is", null)
      .returning("id")
      .execute();
    return new Set(rows.map((r) => r.id));
  },

  async listReactions(q: Executor, messageIds: readonly number[]): Promise<Reaction[]> {
    if (messageIds.length === 0) return [];
    return q
      .selectFrom("reactions")
      .selectAll()
      .where("message_id", "in", [...messageIds])
      .orderBy("id")
      .execute();
  },

  async listSubmessages(q: Executor, messageIds: readonly number[]): Promise<Submessage[]> {
    if (messageIds.length === 0) return [];
    return q
      .selectFrom("submessages")
      .selectAll()
      .where("message_id", "in", [...messageIds])
      .orderBy("id")
      .execute();
  },
};
