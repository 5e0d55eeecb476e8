import { sql } from "kysely";
import { type Executor } from "../db/tx.js";

/** One topic of a channel (exact spelling) for the archive's index: newest message, count, last date. */
export interface ArchiveTopicRow {
  topic: string;
  max_id: number;
  count: number;
  last_date: number;
}

/** One message of a topic page, with its sender's name. */
export interface ArchiveMessageRow {
  id: number;
  sender_id: number;
  sender_full_name: string;
  content: string;
  rendered_content: string | null;
  date_sent: number;
}

/** Case-insensitive topic comparison, as Zulip's upper(subject) = upper(topic). */
const sameTopic = (topic: string) => sql<boolean>`lower(m.subject) = lower(${topic})`;

/**
 * The reads of the web-public archive pages (http/archivePages.ts). Every read is of one
 * channel's recipient: the caller decides that visitors may read the channel (visitorCanRead).
 */
export const archiveStore = {
  /** Each topic (exact spelling) of the channel with its newest message id, message count and newest date. */
  async topics(q: Executor, realmId: number, recipientId: number): Promise<ArchiveTopicRow[]> {
    const rows = await q
      .selectFrom("messages as m")
      .select(["m.subject as topic", sql<number>`max(m.id)`.as("max_id"), sql<number>`count(*)`.as("count"), sql<number>`max(m.date_sent)`.as("last_date")])
      .where("m.realm_id", "=", realmId)
      .where("m.recipient_id", "=", recipientId)
      .groupBy("m.subject")
      .execute();
    return rows.map((r) => ({ topic: r.topic, max_id: Number(r.max_id), count: Number(r.count), last_date: Number(r.last_date) }));
  },

  /** The newest spelling of the topic (case-insensitive) and its message count; undefined when it has none. */
  async topicSummary(q: Executor, realmId: number, recipientId: number, topic: string): Promise<{ topic: string; count: number } | undefined> {
    const counted = await q
      .selectFrom("messages as m")
      .select(sql<number>`count(*)`.as("count"))
      .where("m.realm_id", "=", realmId)
      .where("m.recipient_id", "=", recipientId)
      .where(sameTopic(topic))
      .executeTakeFirst();
    const count = Number(counted?.count ?? 0);
    if (count === 0) return undefined;
    const newest = await q
      .selectFrom("messages as m")
      .select("m.subject")
      .where("m.realm_id", "=", realmId)
      .where("m.recipient_id", "=", recipientId)
      .where(sameTopic(topic))
      .orderBy("m.id", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    return { topic: newest.subject, count };
  },

  /** The topic's messages in reading order (oldest first), `limit` from `offset`. */
  async topicMessages(q: Executor, realmId: number, recipientId: number, topic: string, offset: number, limit: number): Promise<ArchiveMessageRow[]> {
    const rows = await q
      .selectFrom("messages as m")
      .innerJoin("users as u", "u.id", "m.sender_id")
      .select(["m.id", "m.sender_id", "u.full_name as sender_full_name", "m.content", "m.rendered_content", "m.date_sent"])
      .where("m.realm_id", "=", realmId)
      .where("m.recipient_id", "=", recipientId)
      .where(sameTopic(topic))
      .orderBy("m.id", "asc")
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((r) => ({ ...r, id: Number(r.id), date_sent: Number(r.date_sent) }));
  },
};
