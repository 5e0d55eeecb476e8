import { type Kysely, sql } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * PostgreSQL: user_messages.message_id no longer checked by a foreign key. The check ran once per
 * row (a message to a 50-member channel: 50 `SELECT … FOR KEY SHARE` of the message row the same
 * transaction had just inserted), on the one connection a busy channel's group commit holds: a
 * 50-member channel with every member long-polling took 300–330 messages/s without it against
 * 220–230 with it (alternating runs, docs/benchmarks/notes.md, stop 46). The rows are written only
 * by the send (with the id its own insert returned) and the importer, and the message's deletion
 * deletes them first; SQLite keeps the key, so every test run on it still checks that order.
 * The key to users stays (measured: no cost).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.userMessagesKeyToMessages) return;
  await sql`alter table user_messages drop constraint if exists user_messages_message_id_fkey`.execute(db);
}
