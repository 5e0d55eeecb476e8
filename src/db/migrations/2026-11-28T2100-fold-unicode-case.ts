import { type Kysely, sql } from "kysely";
import type { Dialect } from "../dialect.js";
import { foldCase } from "../../util/foldCase.js";

/**
 * SQLite's lower() now folds all of Unicode, as PostgreSQL's (connect.ts, registerCaseFolding): the indexes on
 * lower(…) were built with the ASCII-only one, so they are rebuilt. Names that become one name
 * under the new folding are made distinct first, or the unique indexes could not be rebuilt:
 * a channel keeps its name when it is the oldest of its spelling and is otherwise renamed
 * "<name> (<id>)"; a user's topic setting or alert word repeated under another spelling keeps
 * the newest setting and the first word. Two accounts whose addresses now fold alike cannot be
 * merged: the migration stops and names them. Nothing to do on PostgreSQL.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (!d.lowerRegisteredByParley) return;
  // Read whole tables and fold here: the stale indexes must not answer these reads.
  const users = await sql<{ id: number; realm_id: number; email: string }>`select id, realm_id, email from users`.execute(db);
  for (const group of collisions(users.rows, (u) => `${u.realm_id}\u0000${foldCase(u.email)}`)) {
    const names = group.map((u) => `${u.email} (user ${u.id})`).join(", ");
    throw new Error(`These accounts' email addresses differ only in the case of non-ASCII letters, which Parley now treats as one address: ${names}`);
  }

  const streams = await sql<{ id: number; realm_id: number; name: string }>`select id, realm_id, name from streams`.execute(db);
  for (const group of collisions(streams.rows, (s) => `${s.realm_id}\u0000${foldCase(s.name)}`)) {
    for (const s of group.slice(1)) {
      const suffix = ` (${s.id})`;
      await sql`update streams set name = ${s.name.slice(0, 60 - suffix.length) + suffix} where id = ${s.id}`.execute(db);
    }
  }

  const topics = await sql<{ id: number; user_id: number; stream_id: number; topic_name: string; last_updated: number }>`
    select id, user_id, stream_id, topic_name, last_updated from user_topics`.execute(db);
  for (const group of collisions(topics.rows, (t) => `${t.user_id}\u0000${t.stream_id}\u0000${foldCase(t.topic_name)}`)) {
    const newest = group.reduce((a, b) => (b.last_updated > a.last_updated || (b.last_updated === a.last_updated && b.id > a.id) ? b : a));
    for (const t of group) if (t !== newest) await sql`delete from user_topics where id = ${t.id}`.execute(db);
  }

  const words = await sql<{ id: number; user_id: number; word: string }>`select id, user_id, word from alert_words`.execute(db);
  for (const group of collisions(words.rows, (w) => `${w.user_id}\u0000${foldCase(w.word)}`)) {
    for (const w of group.slice(1)) await sql`delete from alert_words where id = ${w.id}`.execute(db);
  }

  const indexes = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and sql like '%lower(%' order by name`.execute(db);
  for (const { name } of indexes.rows) await sql`reindex ${sql.id(name)}`.execute(db);
}

/** The groups of more than one row with the same key, each in id order. */
function collisions<T extends { id: number }>(rows: readonly T[], key: (row: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}
