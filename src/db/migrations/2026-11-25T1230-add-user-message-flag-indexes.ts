import { type Kysely, sql } from "kysely";

/**
 * Partial indexes on a user's messages by flag (Zulip's zerver_usermessage_*_message_id): is:unread,
 * is:starred, is:mentioned, is:alerted and direct messages become index scans of the few matching
 * rows instead of a scan of every message the user received. The WHERE of each is exactly the
 * condition the queries use (src/lib/narrow/operators.ts, src/store), so both engines pick them.
 */
const INDEXES: Array<[string, string]> = [
  ["user_messages_unread", "(flags & 1) = 0"],
  ["user_messages_starred", "(flags & 2) <> 0"],
  ["user_messages_mentioned", "(flags & 56) <> 0"],
  ["user_messages_has_alert_word", "(flags & 512) <> 0"],
  ["user_messages_private", "(flags & 2048) <> 0"],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, predicate] of INDEXES) {
    await sql`create index ${sql.id(name)} on user_messages (user_id, message_id) where ${sql.raw(predicate)}`.execute(db);
  }
}
