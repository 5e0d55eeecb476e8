import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Statistics on each flag expression of the partial indexes (2026-11-25T1230): with them PostgreSQL
 * knows that few of a user's rows are mentions, stars or direct messages and walks the partial
 * index into messages (is:mentioned on 16.9 M rows: 160 ms -> 1.6 ms) instead of merging with a
 * backward scan of every message.
 */
export const USER_MESSAGE_FLAG_EXPRESSIONS: Array<[string, string]> = [
  ["user_messages_flag_read", "flags & 1"],
  ["user_messages_flag_starred", "flags & 2"],
  ["user_messages_flag_mentioned", "flags & 56"],
  ["user_messages_flag_alert_word", "flags & 512"],
  ["user_messages_flag_private", "flags & 2048"],
];

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  for (const [name, expression] of USER_MESSAGE_FLAG_EXPRESSIONS) {
    await dialect.createExpressionStatistics(db, name, "user_messages", expression);
  }
}
