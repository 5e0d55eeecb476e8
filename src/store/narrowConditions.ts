import { type RawBuilder, sql } from "kysely";
import { dialectOf } from "../db/dialect.js";
import type { Executor } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";
import { VisibilityPolicy } from "../contract/constants.js";

/**
 * The SQL of narrows: conditions on `m` (messages) and `um` (the viewer's user_messages row, null
 * for public history the viewer did not receive), as narrowQueryStore runs them. lib/narrow/
 * decides which condition an operator's operand means (and checks access); this module only
 * writes it.
 */
export type Condition = RawBuilder<boolean>;

const followedTopic = (userId: number, policy: number) => sql<boolean>`exists (select 1 from user_topics ut join streams s on s.id = ut.stream_id
  where ut.user_id = ${userId} and s.recipient_id = m.recipient_id and lower(ut.topic_name) = lower(m.subject) and ut.visibility_policy = ${policy})`;

function muted(userId: number): Condition {
  const channelMuted = sql<boolean>`exists (select 1 from subscriptions sub where sub.user_id = ${userId} and sub.recipient_id = m.recipient_id and sub.is_muted = 1)`;
  const topicVisible = sql<boolean>`exists (select 1 from user_topics ut join streams s on s.id = ut.stream_id
    where ut.user_id = ${userId} and s.recipient_id = m.recipient_id and lower(ut.topic_name) = lower(m.subject)
    and ut.visibility_policy in (${VisibilityPolicy.UNMUTED}, ${VisibilityPolicy.FOLLOWED}))`;
  return sql<boolean>`(m.is_channel_message = 1 and ((${channelMuted} and not ${topicVisible}) or ${followedTopic(userId, VisibilityPolicy.MUTED)}))`;
}

const inList = (ids: readonly number[]): Condition => (ids.length > 0 ? sql<boolean>`m.recipient_id in (${sql.join(ids)})` : narrowSql.never);

export const narrowSql = {
  always: sql<boolean>`1 = 1` as Condition,
  never: sql<boolean>`1 = 0` as Condition,
  not: (condition: Condition): Condition => sql<boolean>`not (${condition})`,
  all: (conditions: readonly Condition[]): Condition => sql<boolean>`(${sql.join(conditions, sql` and `)})`,

  /** Messages of this conversation (a channel's or a direct message group's recipient). */
  recipient: (recipientId: number | null): Condition => sql<boolean>`m.recipient_id = ${recipientId}`,
  /** Messages of the realm's public (not invite-only) or web-public channels. */
  realmChannels: (realmId: number, which: "public" | "web-public"): Condition =>
    which === "public"
      ? sql<boolean>`m.recipient_id in (select recipient_id from streams where realm_id = ${realmId} and invite_only = 0)`
      : sql<boolean>`m.recipient_id in (select recipient_id from streams where realm_id = ${realmId} and is_web_public = 1)`,
  /** Channel messages of this topic, compared case-insensitively. */
  topic: (topic: string): Condition => sql<boolean>`(m.is_channel_message = 1 and lower(m.subject) = lower(${topic}))`,
  sender: (userId: number): Condition => sql<boolean>`m.sender_id = ${userId}`,
  /** Direct messages, all of them. */
  direct: sql<boolean>`m.is_channel_message = 0` as Condition,
  /** The viewer's direct messages to themself. */
  selfDirect: (me: { id: number; recipient_id: number | null }): Condition =>
    sql<boolean>`(m.is_channel_message = 0 and m.sender_id = ${me.id} and m.recipient_id = ${me.recipient_id})`,
  /** The one-to-one conversation of two users, and (for dm-including) these groups. */
  directBetween: (
    me: { id: number; recipient_id: number | null },
    other: { id: number; recipient_id: number | null },
    groupRecipientIds: readonly number[] = [],
  ): Condition => {
    const pair = sql<boolean>`((m.sender_id = ${me.id} and m.recipient_id = ${other.recipient_id}) or (m.sender_id = ${other.id} and m.recipient_id = ${me.recipient_id}))`;
    return groupRecipientIds.length > 0
      ? sql<boolean>`(m.is_channel_message = 0 and (${pair} or ${inList(groupRecipientIds)}))`
      : sql<boolean>`(m.is_channel_message = 0 and ${pair})`;
  },
  /** Some of these flag bits are set on the viewer's row. */
  flagSet: (bits: number): Condition => sql<boolean>`(um.flags & ${sql.lit(bits)}) <> 0`,
  unread: sql<boolean>`(um.flags & ${sql.lit(MessageFlag.READ)}) = 0` as Condition,
  /** Zulip's resolved topics: the topic starts with "✔ ". */
  resolved: (prefix: string): Condition => sql<boolean>`(m.is_channel_message = 1 and m.subject like ${`${prefix}%`})`,
  followed: (userId: number): Condition => sql<boolean>`(m.is_channel_message = 1 and ${followedTopic(userId, VisibilityPolicy.FOLLOWED)})`,
  /** Messages of muted channels (unless the topic is unmuted or followed) and of muted topics. */
  muted,
  hasLink: sql<boolean>`m.has_link = 1` as Condition,
  hasImage: sql<boolean>`m.has_image = 1` as Condition,
  hasAttachment: sql<boolean>`m.has_attachment = 1` as Condition,
  hasReaction: sql<boolean>`exists (select 1 from reactions r where r.message_id = m.id)` as Condition,
  id: (messageId: number): Condition => sql<boolean>`m.id = ${messageId}`,
  /** Full-text search on the database's index (db/dialect.ts). */
  search: (q: Executor, words: readonly string[]): Condition => dialectOf(q).searchCondition([...words]),

  /**
   * SECURITY.md's reading rules (messageAccess.accessMessages): never the `unreadable` channels;
   * with history, also every message of the `publicHistory` channels.
   */
  access: (unreadable: readonly number[], publicHistory: readonly number[] | null): Condition => {
    const notUnreadable = unreadable.length > 0 ? sql<boolean>`m.recipient_id not in (${sql.join(unreadable)})` : narrowSql.always;
    if (publicHistory === null) return notUnreadable;
    return sql<boolean>`((um.user_id is not null and ${notUnreadable}) or ${inList(publicHistory)})`;
  },
};
