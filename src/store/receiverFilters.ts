import { type RawBuilder, sql } from "kysely";
import { realmReadCache } from "../db/realmReadCache.js";
import type { Executor } from "../db/tx.js";
import { VisibilityPolicy } from "../contract/constants.js";
import { defined } from "../util/defined.js";

/** A channel message's conversation, as the send reads it. */
export interface SendTopic {
  streamId: number;
  recipientId: number;
  topic: string;
}

/** What a send reads of its topics before writing: one entry per distinct (stream, topic), in `SendTopic` order. */
export interface SendTopicState {
  /** Whether the topic had a message before this send (only asked for a human sender: automatic topic policies). */
  hasMessages: boolean;
  /** Users who follow the topic (notification triggers). */
  followers: Set<number>;
  /** The sender's visibility policy for the topic (only asked for a human sender). */
  senderPolicy: number;
}

/** What a send needs of its receivers' and sender's preferences, read before it writes. */
export interface SendReads {
  /** Users who muted the sender: their copy of the message is read already (Zulip's get_muting_users). */
  mutedBy: Set<number>;
  /** Per topic of `topics`, in that order. */
  topics: SendTopicState[];
}

// Row kinds of the one statement below.
const MUTER = 0;
const FOLLOWER = 1;
const SENDER_POLICY = 2;
const HAS_MESSAGES = 3;
/** Topics read by one statement of forSend (SQLite allows 500 terms in a compound SELECT). */
const TOPICS_PER_STATEMENT = 100;

export const receiverFilterStore = {
  /**
   * Everything a send reads about its receivers and topics, in one statement (PostgreSQL: one
   * round trip instead of four): who muted the sender, and per topic whether it has a message yet,
   * its followers and the sender's policy. Each part is a branch of a UNION ALL that keeps the
   * index it used as a statement of its own. Read before the message is written: nothing the send
   * writes before it used them changes them (the sender's policy is updated by the caller).
   */
  async forSend(q: Executor, senderId: number, topics: readonly SendTopic[], options: { humanSender: boolean }): Promise<SendReads> {
    const rows: Array<{ kind: number; user_id: number; k: number }> = [];
    // SQLite refuses a compound SELECT of more than 500 terms: a send of many messages (a channel
    // notice for each of 10,000 new channels) reads its topics in slices of 100 (3 terms each).
    for (let from = 0; from === 0 || from < topics.length; from += TOPICS_PER_STATEMENT) {
      const parts: RawBuilder<unknown>[] = [];
      if (from === 0) parts.push(sql`select ${sql.lit(MUTER)} as kind, user_id, 0 as k from muted_users where muted_user_id = ${senderId}`);
      for (const [k, t] of topics.slice(from, from + TOPICS_PER_STATEMENT).entries()) {
        const kk = sql.lit(from + k);
        const sameTopic = sql`lower(topic_name) = lower(${t.topic})`;
        parts.push(
          sql`select ${sql.lit(FOLLOWER)} as kind, user_id, ${kk} as k from user_topics where stream_id = ${t.streamId} and ${sameTopic} and visibility_policy = ${sql.lit(VisibilityPolicy.FOLLOWED)}`,
        );
        if (!options.humanSender) continue;
        parts.push(
          sql`select ${sql.lit(SENDER_POLICY)}, visibility_policy, ${kk} from user_topics where user_id = ${senderId} and stream_id = ${t.streamId} and ${sameTopic}`,
        );
        parts.push(
          sql`select ${sql.lit(HAS_MESSAGES)}, 0, ${kk} where exists (select 1 from messages where recipient_id = ${t.recipientId} and lower(subject) = lower(${t.topic}))`,
        );
      }
      rows.push(...(await sql<{ kind: number; user_id: number; k: number }>`${sql.join(parts, sql` union all `)}`.execute(q)).rows);
    }
    const reads: SendReads = {
      mutedBy: new Set(),
      topics: topics.map(() => ({ hasMessages: false, followers: new Set<number>(), senderPolicy: VisibilityPolicy.INHERIT })),
    };
    const topicOf = (k: number) => defined(reads.topics[Number(k)], `topic ${k} of the send`);
    for (const { kind, user_id: value, k } of rows) {
      switch (Number(kind)) {
        case MUTER:
          reads.mutedBy.add(value);
          break;
        case FOLLOWER:
          topicOf(k).followers.add(value);
          break;
        case SENDER_POLICY:
          topicOf(k).senderPolicy = value;
          break;
        case HAS_MESSAGES:
          topicOf(k).hasMessages = true;
          break;
      }
    }
    return reads;
  },

  /**
   * The alert words of the organization's users, from memory (db/realmReadCache.ts: dropped by
   * every alert_words event). Deactivated users' words are included: only receivers get flags, and
   * a message's receivers are active, so they never match anyone; leaving them in means a
   * (re)activation needs no invalidation. A semi-join from alert_words: a join let SQLite walk all
   * the organization's users and probe alert_words for each, on every load.
   */
  async alertWordsInRealm(q: Executor, realmId: number): Promise<ReadonlyArray<{ user_id: number; word: string }>> {
    return realmReadCache(q).get("alert_words", realmId, () =>
      q
        .selectFrom("alert_words as aw")
        .select(["aw.user_id", "aw.word"])
        .where(({ exists, selectFrom }) =>
          exists(selectFrom("users as u").select("u.id").whereRef("u.id", "=", "aw.user_id").where("u.realm_id", "=", realmId)),
        )
        .orderBy("aw.id")
        .execute(),
    );
  },
};
