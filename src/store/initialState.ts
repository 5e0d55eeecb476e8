import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";

/** Reads behind POST /register's initial state that no other store needs. Each is one query. */
export const initialStateStore = {
  async userStatuses(q: Executor, realmId: number) {
    return q
      .selectFrom("user_statuses as s")
      .innerJoin("users as u", "u.id", "s.user_id")
      .selectAll("s")
      .where("u.realm_id", "=", realmId)
      .where("u.is_active", "=", 1)
      .execute();
  },

  async defaultStreamIds(q: Executor, realmId: number): Promise<number[]> {
    return (await q.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realmId).orderBy("stream_id").execute()).map((r) => r.stream_id);
  },

  async userTopics(q: Executor, userId: number) {
    return q
      .selectFrom("user_topics")
      .select(["stream_id", "topic_name", "last_updated", "visibility_policy"])
      .where("user_id", "=", userId)
      .where("visibility_policy", "!=", 0)
      .orderBy("id")
      .execute();
  },

  /** The newest `limit` unread messages of the user, with what the unread state needs. */
  async unreadMessages(q: Executor, userId: number, limit: number) {
    return q
      .selectFrom("user_messages as um")
      .innerJoin("messages as m", "m.id", "um.message_id")
      .innerJoin("recipients as r", "r.id", "m.recipient_id")
      .select(["m.id", "m.sender_id", "m.recipient_id", "m.subject", "um.flags", "r.type as recipient_type", "r.type_id"])
      .where("um.user_id", "=", userId)
      .where(sql<boolean>`(um.flags & ${sql.lit(MessageFlag.READ)}) = 0`)
      .orderBy("m.id", "desc")
      .limit(limit)
      .execute();
  },

  /** The user's newest direct messages, for recent_private_conversations. */
  async recentDirectMessages(q: Executor, userId: number, limit: number) {
    return q
      .selectFrom("user_messages as um")
      .innerJoin("messages as m", "m.id", "um.message_id")
      .innerJoin("recipients as r", "r.id", "m.recipient_id")
      .select(["m.id", "m.sender_id", "m.recipient_id", "r.type as recipient_type", "r.type_id"])
      .where("um.user_id", "=", userId)
      .where(sql<boolean>`(um.flags & ${sql.lit(MessageFlag.IS_PRIVATE)}) != 0`)
      .orderBy("um.message_id", "desc")
      .limit(limit)
      .execute();
  },

  async starredMessageIds(q: Executor, userId: number): Promise<number[]> {
    const rows = await q
      .selectFrom("user_messages")
      .select("message_id")
      .where("user_id", "=", userId)
      .where(sql<boolean>`(flags & ${sql.lit(MessageFlag.STARRED)}) != 0`)
      .orderBy("message_id")
      .execute();
    return rows.map((r) => r.message_id);
  },

  /** Presences of active humans connected since `since` (if given) and changed after update id `after` (if given). */
  async presences(q: Executor, realmId: number, filter: { since: number | null; after: number | null }) {
    let query = q
      .selectFrom("user_presences as p")
      .innerJoin("users as u", "u.id", "p.user_id")
      .select(["p.user_id", "p.last_connected_time", "p.last_active_time", "p.last_update_id"])
      .where("p.realm_id", "=", realmId)
      .where("u.is_active", "=", 1)
      .where("u.is_bot", "=", 0);
    if (filter.since !== null) query = query.where("p.last_connected_time", ">=", filter.since);
    if (filter.after !== null) query = query.where("p.last_update_id", ">", filter.after);
    return query.execute();
  },
};

/** Active bots of the system realm (Notification Bot, Welcome Bot…), Zulip's cross-realm bots. */
export async function listCrossRealmBots(q: Executor, systemRealm: string) {
  return q
    .selectFrom("users")
    .innerJoin("realms", "realms.id", "users.realm_id")
    .selectAll("users")
    .where("realms.string_id", "=", systemRealm)
    .where("users.is_active", "=", 1)
    .where("users.is_bot", "=", 1)
    .orderBy("users.id")
    .execute();
}
