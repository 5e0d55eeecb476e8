import { type Kysely, sql } from "kysely";

/**
 * Partial indexes on a user's messages by flag (Zulip's zerver_usermessage_*_message_id): is:unread,
 * is:starred, is:mentioned, is:alerted and direct messages become index scans of the few matching
 * rows instead of a scan of every message the user received. The WHERE of each is exactly the
 * condition the queries use (src/lib/narrow/operators.ts, src/store), so both engines pick them.
 */
export const USER_MESSAGE_FLAG_INDEXES: Array<[string, string]> = [
  ["user_messages_unread", "(flags & 1) = 0"],
  ["user_messages_starred", "(flags & 2) <> 0"],
  ["user_messages_mentioned", "(flags & 56) <> 0"],
  ["user_messages_has_alert_word", "(flags & 512) <> 0"],
  ["user_messages_private", "(flags & 2048) <> 0"],
];

export async function up(db: Kysely<any>): Promise<void> {
  await createUserMessageFlagIndexes(db);
}

/** Bulk loaders (scripts/bench-org.ts) drop these first and create them again at the end. */
export async function createUserMessageFlagIndexes(db: Kysely<any>): Promise<void> {
  for (const [name, predicate] of USER_MESSAGE_FLAG_INDEXES) {
    await sql`create index if not exists ${sql.id(name)} on user_messages (user_id, message_id) where ${sql.raw(predicate)}`.execute(db);
  }
}

export async function dropUserMessageFlagIndexes(db: Kysely<any>): Promise<void> {
  for (const [name] of USER_MESSAGE_FLAG_INDEXES) await sql`drop index if exists ${sql.id(name)}`.execute(db);
}
