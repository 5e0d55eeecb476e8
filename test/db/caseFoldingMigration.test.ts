import SqliteDatabase from "better-sqlite3";
import { at } from "../support/at.js";
import { sql } from "kysely";
import { afterEach, describe, expect, inject, it } from "vitest";
import { openDb } from "../../src/db/connect.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { freshDatabase, type FreshDatabase, TEST_ENGINE } from "../support/testDb.js";

const MIGRATION = "2026-11-28T2100-fold-unicode-case";

// A database written before SQLite's lower() folded Unicode (db/connect.ts, registerCaseFolding): its indexes on
// lower(…) hold ASCII-only keys, and it may hold names that now fold alike. The migration makes
// them distinct and rebuilds the indexes. Written here through a connection with SQLite's own
// lower(), as the older version wrote.
describe.runIf(TEST_ENGINE === "sqlite")(`migration ${MIGRATION}`, () => {
  let fresh: FreshDatabase | undefined;
  afterEach(async () => fresh?.drop());

  /** The test realm's database as an older Parley left it, after `write` ran on it. */
  async function olderDatabase(write: (raw: SqliteDatabase.Database) => void): Promise<string> {
    fresh = await freshDatabase(inject("templateDatabase"));
    const file = (fresh.database as { file: string }).file;
    const raw = new SqliteDatabase(file);
    // This migration and every later one are pending again (migrations apply in name order).
    raw.prepare("delete from parley_migrations where name >= ?").run(MIGRATION);
    write(raw);
    raw.close();
    return file;
  }

  it("renames a channel whose name now folds like an older one's, keeps one topic setting and alert word, and rebuilds the indexes", async () => {
    const file = await olderDatabase((raw) => {
      raw.prepare("update streams set name = 'Équipe' where id = 1").run();
      raw.prepare("update streams set name = 'équipe' where id = 2").run();
      raw.prepare("update messages set subject = 'Ärger' where id = (select max(id) from messages where is_channel_message = 1)").run();
      const user = raw.prepare("select id from users order by id limit 1").get() as { id: number };
      const recipient = raw.prepare("select recipient_id from streams where id = 1").get() as { recipient_id: number };
      const topic = raw.prepare(
        "insert into user_topics (user_id, stream_id, recipient_id, topic_name, last_updated, visibility_policy) values (?, 1, ?, ?, ?, ?)",
      );
      topic.run(user.id, recipient.recipient_id, "Öl", 100, 1);
      topic.run(user.id, recipient.recipient_id, "öl", 200, 3);
      const word = raw.prepare("insert into alert_words (user_id, word) values (?, ?)");
      word.run(user.id, "Ärger");
      word.run(user.id, "ärger");
    });
    const db = openDb({ kind: "sqlite", file, synchronous: "NORMAL" });
    try {
      expect((await migrateToLatest(db.kysely, db.dialect))[0]).toBe(MIGRATION);
      const streams = await db.kysely.selectFrom("streams").select(["id", "name"]).where("id", "in", [1, 2]).orderBy("id").execute();
      expect(streams).toEqual([
        { id: 1, name: "Équipe" },
        { id: 2, name: "équipe (2)" },
      ]);
      expect(await db.kysely.selectFrom("user_topics").select(["topic_name", "visibility_policy"]).execute()).toEqual([
        { topic_name: "öl", visibility_policy: 3 },
      ]);
      expect(await db.kysely.selectFrom("alert_words").select("word").execute()).toEqual([{ word: "Ärger" }]);
      const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db.kysely);
      expect(check.rows).toEqual([{ integrity_check: "ok" }]);
      // Found through the rebuilt index, in another case.
      const found = await sql<{ id: number }>`select id from messages indexed by messages_recipient_lower_topic
        where recipient_id = (select recipient_id from messages where subject = 'Ärger') and lower(subject) = lower('ÄRGER')`.execute(db.kysely);
      expect(found.rows).toHaveLength(1);
      const user = await db.kysely.selectFrom("users").select("id").orderBy("id").limit(1).executeTakeFirstOrThrow();
      await expect(db.kysely.insertInto("alert_words").values({ user_id: user.id, word: "ÄRGER" }).execute()).rejects.toThrow(/UNIQUE/);
    } finally {
      await db.close();
    }
  });

  it("stops, naming them, when two accounts' addresses now fold alike", async () => {
    const file = await olderDatabase((raw) => {
      const rows = raw.prepare("select id from users where is_bot = 0 order by id limit 2").all() as Array<{ id: number }>;
      const [a, b] = [at(rows, 0), at(rows, 1)];
      raw.prepare("update users set email = 'élodie@zulip.com', delivery_email = 'élodie@zulip.com' where id = ?").run(a.id);
      raw.prepare("update users set email = 'Élodie@zulip.com', delivery_email = 'Élodie@zulip.com' where id = ?").run(b.id);
    });
    const db = openDb({ kind: "sqlite", file, synchronous: "NORMAL" });
    try {
      await expect(migrateToLatest(db.kysely, db.dialect)).rejects.toThrow(
        /differ only in the case of non-ASCII letters.*élodie@zulip\.com.*Élodie@zulip\.com/,
      );
    } finally {
      await db.close();
    }
  });
});
