import { type Insertable, type RawBuilder, type Selectable, sql } from "kysely";
import type { MessagesTable, ReactionsTable, Stream, SubmessagesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";

export type Message = Selectable<MessagesTable>;
export type Reaction = Selectable<ReactionsTable>;
export type Submessage = Selectable<SubmessagesTable>;

export const recipientStore = {
  /** A recipient (RecipientType: a user, a channel or a direct-message group); returns its id. */
  async insert(q: Executor, type: number, typeId: number): Promise<number> {
    const row = await q.insertInto("recipients").values({ type, type_id: typeId }).returning("id").executeTakeFirstOrThrow();
    return row.id;
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

  /** The realm's messages with these ids, in id order. */
  async listByIds(q: Executor, realmId: number, ids: readonly number[]): Promise<Message[]> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("messages")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("id", "in", [...new Set(ids)])
      .orderBy("id")
      .execute();
  },

  async topicHasMessages(q: Executor, recipientId: number, topic: string): Promise<boolean> {
    const row = await q.selectFrom("messages").select("id").where("recipient_id", "=", recipientId).where(sameTopic(topic)).limit(1).executeTakeFirst();
    return row !== undefined;
  },

  /** Users who sent a message to the topic (Zulip's topic participants, without reactions). */
  async topicSenderIds(q: Executor, recipientId: number, topic: string): Promise<number[]> {
    const rows = await q.selectFrom("messages").select("sender_id").distinct().where("recipient_id", "=", recipientId).where(sameTopic(topic)).execute();
    return rows.map((r) => r.sender_id);
  },

  async setStreamFirstMessageIdIfNull(q: Executor, streamId: number, messageId: number): Promise<void> {
    await q.updateTable("streams").set({ first_message_id: messageId }).where("id", "=", streamId).where("first_message_id", "is", null).execute();
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

  /** Active subscriptions of active users, with their mute state. */
  async activeSubscribers(q: Executor, recipientId: number): Promise<Array<{ user_id: number; is_muted: number }>> {
    return q
      .selectFrom("subscriptions")
      .select(["user_id", "is_muted"])
      .where("recipient_id", "=", recipientId)
      .where("active", "=", 1)
      .where("is_user_active", "=", 1)
      .orderBy("user_id")
      .execute();
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
}

export interface NarrowRow {
  id: number;
  /** null: a message of public history the user did not receive. */
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
    const id = narrow.includeHistory ? sql.ref("m.id") : sql.ref("um.message_id");
    const order = op === "<" ? sql`desc` : sql`asc`;
    const bound = sql`${id} ${sql.raw(op)} ${anchor}`;
    return this.run(q, narrow, sql`${bound}${extra ? sql` and ${extra}` : sql``} order by ${id} ${order} limit ${limit}`);
  },

  /** The matching messages among `ids`, in id order. */
  async amongIds(q: Executor, narrow: NarrowQuery, ids: readonly number[]): Promise<NarrowRow[]> {
    if (ids.length === 0) return [];
    return this.run(q, narrow, sql`m.id in (${sql.join([...new Set(ids)])}) order by m.id asc`);
  },

  async run(q: Executor, narrow: NarrowQuery, tail: RawBuilder<unknown>): Promise<NarrowRow[]> {
    const query = narrow.includeHistory
      ? sql<NarrowRow>`select m.id as id, um.flags as flags from messages m
          left join user_messages um on um.message_id = m.id and um.user_id = ${narrow.userId}
          where m.realm_id = ${narrow.realmId} and ${narrow.where} and ${tail}`
      : sql<NarrowRow>`select um.message_id as id, um.flags as flags from user_messages um
          join messages m on m.id = um.message_id
          where um.user_id = ${narrow.userId} and m.realm_id = ${narrow.realmId} and ${narrow.where} and ${tail}`;
    const result = await query.execute(q);
    return result.rows.map((r) => ({ id: Number(r.id), flags: r.flags === null ? null : Number(r.flags) }));
  },
};
