import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from "kysely";
import { dialectOf } from "../db/dialect.js";
import type { MessagesTable, ReactionsTable, Stream, SubmessagesTable, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";
import { insertInBatches } from "./batches.js";

export type Message = Selectable<MessagesTable>;
export type Reaction = Selectable<ReactionsTable>;
export type Submessage = Selectable<SubmessagesTable>;

export const recipientStore = {
  /** A recipient (RecipientType: a user, a channel or a direct-message group); returns its id. */
  async insert(q: Executor, type: number, typeId: number): Promise<number> {
    const row = await q.insertInto("recipients").values({ type, type_id: typeId }).returning("id").executeTakeFirstOrThrow();
    return row.id;
  },

  /** Recipients of one type for many objects in one statement: type_id → recipient id. */
  async insertMany(q: Executor, type: number, typeIds: readonly number[]): Promise<Map<number, number>> {
    if (typeIds.length === 0) return new Map();
    const rows = await insertInBatches(
      typeIds.map((type_id) => ({ type, type_id })),
      (batch) => q.insertInto("recipients").values(batch).returning(["id", "type_id"]).execute(),
    );
    return new Map(rows.map((r) => [r.type_id, r.id]));
  },

  async listByIds(q: Executor, ids: readonly number[]): Promise<Array<{ id: number; type: number; type_id: number }>> {
    if (ids.length === 0) return [];
    return q.selectFrom("recipients").selectAll().where("id", "in", [...new Set(ids)]).execute();
  },
};

/** Case-insensitive topic comparison, as Zulip's upper(subject) = upper(topic). */
const sameTopic = (topic: string) => sql<boolean>`lower(subject) = lower(${topic})`;

export const messageStore = {
  async insert(q: Executor, row: Insertable<MessagesTable>): Promise<Message> {
    return q.insertInto("messages").values(row).returningAll().executeTakeFirstOrThrow();
  },

  /** One statement for all `rows`; the messages come back in the order of `rows` (ids ascending). */
  async insertMany(q: Executor, rows: readonly Insertable<MessagesTable>[]): Promise<Message[]> {
    if (rows.length === 0) return [];
    const inserted = await insertInBatches(rows, (batch) => q.insertInto("messages").values(batch).returningAll().execute());
    return inserted.sort((a, b) => a.id - b.id);
  },

  /**
   * The realm's messages with these ids, in id order. The realm is checked on the rows, not in
   * SQL: with `realm_id = ?` in the query, SQLite's planner walked the (realm_id, date_sent) index
   * over every message of the realm (66 ms for 100 ids among 1M messages) instead of 100 key
   * look-ups.
   */
  async listByIds(q: Executor, realmId: number, ids: readonly number[]): Promise<Message[]> {
    if (ids.length === 0) return [];
    const rows = await q.selectFrom("messages").selectAll().where("id", "in", [...new Set(ids)]).orderBy("id").execute();
    return rows.filter((m) => m.realm_id === realmId);
  },

  async topicHasMessages(q: Executor, recipientId: number, topic: string): Promise<boolean> {
    return (await this.topicsHaveMessages(q, [{ recipientId, topic }]))[0];
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
        eb.or(pairs.map((p) => (p.senderId === undefined ? eb("recipient_id", "=", p.recipientId) : eb.and([eb("recipient_id", "=", p.recipientId), eb("sender_id", "=", p.senderId)])))),
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
        const pairs = [...lowest];
        // Bound and typed values: then(n) would write n into the SQL text, a new statement per message.
        const id = (messageId: number) => eb.cast<number>(eb.val(messageId), dialectOf(q).bigint);
        let whens = eb.case("id").when(pairs[0][0]).then(id(pairs[0][1]));
        for (const [streamId, messageId] of pairs.slice(1)) whens = whens.when(streamId).then(id(messageId));
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
    return q.selectFrom("reactions").selectAll().where("message_id", "in", [...messageIds]).orderBy("id").execute();
  },

  async listSubmessages(q: Executor, messageIds: readonly number[]): Promise<Submessage[]> {
    if (messageIds.length === 0) return [];
    return q.selectFrom("submessages").selectAll().where("message_id", "in", [...messageIds]).orderBy("id").execute();
  },
};

/** Channel lookups by recipient, and who receives a channel message. */
export const channelRecipientStore = {
  async streamsByRecipientIds(q: Executor, realmId: number, recipientIds: readonly number[]): Promise<Stream[]> {
    if (recipientIds.length === 0) return [];
    return q.selectFrom("streams").selectAll().where("realm_id", "=", realmId).where("recipient_id", "in", [...new Set(recipientIds)]).execute();
  },

  async streamsInRealm(q: Executor, realmId: number): Promise<Stream[]> {
    return q.selectFrom("streams").selectAll().where("realm_id", "=", realmId).execute();
  },

  /** activeSubscribers of many channels in one statement: recipient id → rows (every id present). */
  async activeSubscribersOf(q: Executor, recipientIds: readonly number[]): Promise<Map<number, Array<{ user_id: number; is_muted: number }>>> {
    const result = new Map(recipientIds.map((id) => [id, [] as Array<{ user_id: number; is_muted: number }>]));
    if (result.size === 0) return result;
    const rows = await q
      .selectFrom("subscriptions")
      .select(["recipient_id", "user_id", "is_muted"])
      .where("recipient_id", "in", [...result.keys()])
      .where("active", "=", 1)
      .where("is_user_active", "=", 1)
      .orderBy("user_id")
      .execute();
    for (const { recipient_id, user_id, is_muted } of rows) result.get(recipient_id)!.push({ user_id, is_muted });
    return result;
  },

  /** Active subscriptions of active users, with their mute state. */
  async activeSubscribers(q: Executor, recipientId: number): Promise<Array<{ user_id: number; is_muted: number }>> {
    return (await this.activeSubscribersOf(q, [recipientId])).get(recipientId)!;
  },
};

/** Zulip's user_topic visibility policies. */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export const userTopicStore = {
  async getPolicy(q: Executor, userId: number, streamId: number, topic: string): Promise<number> {
    const row = await q
      .selectFrom("user_topics")
      .select("visibility_policy")
      .where("user_id", "=", userId)
      .where("stream_id", "=", streamId)
      .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
      .executeTakeFirst();
    return row?.visibility_policy ?? VisibilityPolicy.INHERIT;
  },

  async setPolicy(
    q: Executor,
    row: { user_id: number; stream_id: number; recipient_id: number; topic_name: string; visibility_policy: number; last_updated: number },
  ): Promise<void> {
    const updated = await q
      .updateTable("user_topics")
      .set({ visibility_policy: row.visibility_policy, last_updated: row.last_updated })
      .where("user_id", "=", row.user_id)
      .where("stream_id", "=", row.stream_id)
      .where(sql<boolean>`lower(topic_name) = lower(${row.topic_name})`)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) await q.insertInto("user_topics").values(row).execute();
  },
};

/** A narrow's condition on `m` (messages) and `um` (the viewer's user_messages row). */
export interface NarrowQuery {
  userId: number;
  realmId: number;
  /** false: only messages the user received (drives from the (user_id, message_id) key). */
  includeHistory: boolean;
  where: RawBuilder<boolean>;
  /** The narrow has a full-text `search` term (the dialect may plan it row by row). */
  searchesText: boolean;
}

export interface NarrowRow {
  id: number;
  /** null: a message of public history the user did not receive. */
  flags: number | null;
}

/** A matching message, whole, with the viewer's flags (null as in NarrowRow). */
export interface NarrowMessage {
  message: Message;
  flags: number | null;
}

/** Runs narrows (src/lib/narrow builds them): one query per call, whatever the result size. */
export const narrowQueryStore = {
  /** The oldest matching message the user has not read (received messages only). */
  async firstUnreadId(q: Executor, narrow: NarrowQuery): Promise<number | undefined> {
    const unread = sql<boolean>`um.user_id is not null and (um.flags & ${sql.lit(MessageFlag.READ)}) = 0`;
    return (await this.range(q, narrow, ">=", 0, 1, unread))[0]?.id;
  },

  /** Matching messages on one side of `anchor` (op "<", ">", ">="), nearest first. */
  async range(q: Executor, narrow: NarrowQuery, op: "<" | ">" | ">=", anchor: number, limit: number, extra?: RawBuilder<boolean>): Promise<NarrowRow[]> {
    if (limit <= 0) return [];
    const rows = await narrowSelect(q, narrow, ID_COLUMNS, rangeTail(narrow, op, anchor, limit, extra)).execute(q);
    return rows.rows.map((r) => ({ id: Number(r.id), flags: flagsOf(r.flags) }));
  },

  /** The whole matching messages among `ids`, in id order. */
  async messagesAmongIds(q: Executor, narrow: NarrowQuery, ids: readonly number[]): Promise<NarrowMessage[]> {
    if (ids.length === 0) return [];
    return toNarrowMessages((await narrowSelect<MessageColumns>(q, narrow, MESSAGE_COLUMNS, amongTail(ids)).execute(q)).rows);
  },

  /**
   * The whole matching messages around `anchor`, in one statement: up to `before` below it and up
   * to `after` from it on (`includeAnchor`: the anchor itself too), each side in ascending order.
   */
  async messagesAround(
    q: Executor,
    narrow: NarrowQuery,
    anchor: number,
    sides: { before: number; after: number; includeAnchor: boolean },
  ): Promise<{ before: NarrowMessage[]; after: NarrowMessage[] }> {
    const parts = [];
    if (sides.before > 0) parts.push(narrowSelect<MessageColumns>(q, narrow, MESSAGE_COLUMNS, rangeTail(narrow, "<", anchor, sides.before)));
    if (sides.after > 0) parts.push(narrowSelect<MessageColumns>(q, narrow, MESSAGE_COLUMNS, rangeTail(narrow, sides.includeAnchor ? ">=" : ">", anchor, sides.after)));
    if (parts.length === 0) return { before: [], after: [] };
    // Each side keeps its own ORDER BY and LIMIT inside a derived table.
    const query = parts.length === 1 ? parts[0] : sql<MessageColumns>`select * from (${parts[0]}) as before_anchor union all select * from (${parts[1]}) as after_anchor`;
    const rows = toNarrowMessages((await query.execute(q)).rows).sort((a, b) => a.message.id - b.message.id);
    return { before: rows.filter((r) => r.message.id < anchor), after: rows.filter((r) => r.message.id >= anchor) };
  },
};

type MessageColumns = Message & { um_flags: number | null };
const ID_COLUMNS = sql`m.id as id, um.flags as flags`;
const MESSAGE_COLUMNS = sql`m.*, um.flags as um_flags`;
const flagsOf = (flags: unknown) => (flags === null ? null : Number(flags));

function toNarrowMessages(rows: MessageColumns[]): NarrowMessage[] {
  return rows.map(({ um_flags, ...message }) => ({ message, flags: flagsOf(um_flags) }));
}

/**
 * The narrow's SELECT of `columns` (on `m` and `um`), in one of the two shapes: all messages of
 * the realm joined to the viewer's rows (history), or the viewer's rows joined to their messages.
 */
function narrowSelect<Row = { id: number; flags: number | null }>(q: Executor, narrow: NarrowQuery, columns: RawBuilder<unknown>, tail: RawBuilder<unknown>): RawBuilder<Row> {
  return narrow.includeHistory
    ? sql<Row>`select ${columns} from messages m
          left join user_messages um on um.message_id = m.id and um.user_id = ${narrow.userId}
          where m.realm_id = ${narrow.realmId} and ${narrow.where} and ${tail}`
    : sql<Row>`select ${columns} from user_messages um
          ${narrow.searchesText ? dialectOf(q).joinMessagesRowByRow : sql`join messages m on m.id = um.message_id`}
          where um.user_id = ${narrow.userId} and m.realm_id = ${narrow.realmId} and ${narrow.where} and ${tail}`;
}

function rangeTail(narrow: NarrowQuery, op: "<" | ">" | ">=", anchor: number, limit: number, extra?: RawBuilder<boolean>): RawBuilder<unknown> {
  const id = narrow.includeHistory ? sql.ref("m.id") : sql.ref("um.message_id");
  const order = op === "<" ? sql`desc` : sql`asc`;
  const bound = sql`${id} ${sql.raw(op)} ${anchor}`;
  return sql`${bound}${extra ? sql` and ${extra}` : sql``} order by ${id} ${order} limit ${limit}`;
}

const amongTail = (ids: readonly number[]) => sql`m.id in (${sql.join([...new Set(ids)])}) order by m.id asc`;

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
  async newestMessages(q: Executor, realmId: number, recipientId: number, topic: string, receivedBy: number | null, limit: number): Promise<Array<{ id: number; subject: string }>> {
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

/** The engine's full-text index of messages (db/dialect.ts): callers report new and edited messages. */
export const messageSearchStore = {
  async index(q: Executor, messages: readonly Pick<Message, "id" | "subject" | "rendered_content">[]): Promise<void> {
    await dialectOf(q).indexMessagesForSearch(q, messages);
  },

  async unindex(q: Executor, ids: readonly number[]): Promise<void> {
    await dialectOf(q).unindexMessagesForSearch(q, ids);
  },
};

/** Message edits, moves and deletions (actions/messageEdit.ts, actions/messageDelete.ts). */
export const messageEditStore = {
  /** Locks the message row until the transaction ends, so concurrent edits apply one after the other. */
  async lock(q: Executor, id: number): Promise<void> {
    await dialectOf(q).forUpdate(q.selectFrom("messages").select("id").where("id", "=", id)).execute();
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
    return q.selectFrom("messages").selectAll().where("recipient_id", "=", recipientId).where(sameTopic(topic)).where("id", ">=", fromId).orderBy("id").execute();
  },

  async lastTopicMessage(q: Executor, recipientId: number, topic: string): Promise<Message | undefined> {
    return q.selectFrom("messages").selectAll().where("recipient_id", "=", recipientId).where(sameTopic(topic)).orderBy("id", "desc").limit(1).executeTakeFirst();
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
    const row = await q.selectFrom("messages").select((eb) => eb.fn.min("id").as("first")).where("recipient_id", "=", recipientId).executeTakeFirst();
    const first = row?.first === null || row?.first === undefined ? null : Number(row.first);
    await q.updateTable("streams").set({ first_message_id: first }).where("id", "=", streamId).execute();
  },

};

/** Zulip's cross-realm system bots (Notification Bot...): users of the realm `systemRealm` that send into other realms. */
export const systemBotStore = {
  async getByEmail(q: Executor, systemRealm: string, email: string): Promise<User | undefined> {
    return q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .where("realms.string_id", "=", systemRealm)
      .where("users.email", "=", email)
      .where("users.is_active", "=", 1)
      .executeTakeFirst();
  },

  async listByIds(q: Executor, systemRealm: string, ids: readonly number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .where("realms.string_id", "=", systemRealm)
      .where("users.id", "in", [...ids])
      .execute();
  },
};

export const moveAudienceStore = {
  /** Everyone who was ever subscribed to the channel (active or not), for message moves. */
  async everSubscribedUserIds(q: Executor, recipientId: number): Promise<number[]> {
    const rows = await q.selectFrom("subscriptions").select("user_id").distinct().where("recipient_id", "=", recipientId).orderBy("user_id").execute();
    return rows.map((r) => r.user_id);
  },
};

/** Users' topic visibility policies of one topic (user_topics), for message moves. */
export const topicPolicyStore = {
  async listForTopic(q: Executor, streamId: number, topic: string): Promise<Array<{ user_id: number; visibility_policy: number }>> {
    return q
      .selectFrom("user_topics")
      .select(["user_id", "visibility_policy"])
      .where("stream_id", "=", streamId)
      .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
      .orderBy("user_id")
      .execute();
  },

  async clear(q: Executor, userIds: readonly number[], streamId: number, topic: string): Promise<void> {
    if (userIds.length === 0) return;
    await q.deleteFrom("user_topics").where("user_id", "in", [...userIds]).where("stream_id", "=", streamId).where(sql<boolean>`lower(topic_name) = lower(${topic})`).execute();
  },
};

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

