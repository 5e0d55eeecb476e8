import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/** Full-text search over messages (the `search` narrow operator); the engine's own FTS, see dialect.ts. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await dialect.createSearchIndex(db);
}
