import { sql } from "kysely";
import type { User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { RecipientType } from "../models/roles.js";
import type { Submessage } from "./messages.js";
import type { Reaction } from "./reactions.js";

/** A message's recipient with what its payload shows: the channel, or the group's members. */
export interface PayloadRecipient {
  id: number;
  type: number;
  type_id: number;
  /** The channel (type STREAM, in the realm asked for), else null. */
  stream_id: number | null;
  stream_name: string | null;
  /** The direct-message group's member key (type DIRECT_MESSAGE_GROUP), else null. */
  member_key: string | null;
}

/**
 * The reads of lib/messagePayload.ts, batched into as few statements as possible: each is a round
 * trip on PostgreSQL, and every GET /messages and every sent message's event runs them.
 */
export const messagePayloadLookupStore = {
  /**
   * Recipients by id, each joined with its channel or direct-message group. A recipient's type_id
   * is the id of its channel or group, so both joins are primary-key look-ups.
   */
  async recipients(q: Executor, realmId: number, recipientIds: readonly number[]): Promise<PayloadRecipient[]> {
    if (recipientIds.length === 0) return [];
    return q
      .selectFrom("recipients as r")
      .leftJoin("streams as s", (join) =>
        join.onRef("s.id", "=", "r.type_id").onRef("s.recipient_id", "=", "r.id").on("r.type", "=", RecipientType.STREAM).on("s.realm_id", "=", realmId),
      )
      .leftJoin("direct_message_groups as g", (join) =>
        join.onRef("g.id", "=", "r.type_id").onRef("g.recipient_id", "=", "r.id").on("r.type", "=", RecipientType.DIRECT_MESSAGE_GROUP),
      )
      .select(["r.id", "r.type", "r.type_id", "s.id as stream_id", "s.name as stream_name", "g.member_key"])
      .where("r.id", "in", [...new Set(recipientIds)])
      .execute();
  },

  /** Users by id: those of the realm and Zulip's cross-realm system bots (of `systemRealm`). */
  async usersAndSystemBots(q: Executor, realmId: number, systemRealm: string, ids: readonly number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("users")
      .selectAll()
      .where("id", "in", [...ids])
      .where((eb) =>
        eb.or([eb("realm_id", "=", realmId), eb("realm_id", "in", eb.selectFrom("realms").select("realms.id").where("realms.string_id", "=", systemRealm))]),
      )
      .execute();
  },

  /** The messages' reactions and submessages (one UNION ALL), each list in id order. */
  async reactionsAndSubmessages(q: Executor, messageIds: readonly number[]): Promise<{ reactions: Reaction[]; submessages: Submessage[] }> {
    if (messageIds.length === 0) return { reactions: [], submessages: [] };
    const ids = [...messageIds];
    const rows = await q
      .selectFrom("reactions")
      .select([
        sql<string>`'reaction'`.as("kind"),
        "id",
        "message_id",
        "user_id",
        "emoji_name as name",
        "emoji_code as code",
        sql<string | null>`${sql.ref("reaction_type")}`.as("reaction_type"),
      ])
      .where("message_id", "in", ids)
      .unionAll(
        q
          .selectFrom("submessages")
          .select([
            sql<string>`'submessage'`.as("kind"),
            "id",
            "message_id",
            "sender_id as user_id",
            "msg_type as name",
            "content as code",
            sql<string | null>`null`.as("reaction_type"),
          ])
          .where("message_id", "in", ids),
      )
      .orderBy("id")
      .execute();
    const reactions: Reaction[] = [];
    const submessages: Submessage[] = [];
    for (const r of rows) {
      if (r.kind === "reaction") {
        reactions.push({ id: r.id, message_id: r.message_id, user_id: r.user_id, emoji_name: r.name, emoji_code: r.code, reaction_type: r.reaction_type! });
      } else {
        submessages.push({ id: r.id, message_id: r.message_id, sender_id: r.user_id, msg_type: r.name, content: r.code });
      }
    }
    return { reactions, submessages };
  },
};
