import { type Kysely, sql } from "kysely";

/**
 * A send reads the followers of its topic (`receiverFilterStore.forSend`: stream_id and
 * lower(topic_name), whoever the user): the unique index starts with user_id and cannot serve it,
 * so that read scanned every user's topic settings. Topic moves and deletions find a topic's
 * settings the same way. `if not exists`: tests that make a database "older" by forgetting the
 * migrations after one (test/db/caseFoldingMigration.test.ts) run this again on it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists user_topics_stream_lower_topic on user_topics (stream_id, lower(topic_name))`.execute(db);
}
