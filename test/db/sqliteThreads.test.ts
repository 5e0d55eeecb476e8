import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { ConfigError } from "../../src/config.js";
import { type Db, DEFAULT_SQLITE_THREADS, openDb } from "../../src/db/connect.js";
import { isUniqueViolation } from "../../src/db/errors.js";
import { freshDatabase, type FreshDatabase, TEST_ENGINE } from "../support/testDb.js";
import { expectSuccess, TestServer } from "../support/testApp.js";

// SQLite's two drivers (db/connect.ts): connections in worker threads (db/sqliteThreads.ts: a
// writer, and readers with PARLEY_SQLITE_THREADS >= 2) and the in-process connection
// (PARLEY_SQLITE_THREADS=0). The rest of the suite runs on the default; each gets its own checks here.
describe.runIf(TEST_ENGINE === "sqlite")("SQLite drivers", () => {
  let fresh: FreshDatabase | undefined;
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
    await fresh?.drop();
  });

  async function open(threads: number): Promise<Db> {
    fresh = await freshDatabase(inject("templateDatabase"));
    const { file } = fresh.database as { file: string };
    db = openDb({ kind: "sqlite", file, synchronous: "NORMAL", threads });
    return db;
  }

  for (const threads of [0, 1, 2]) {
    describe(`PARLEY_SQLITE_THREADS=${threads}`, () => {
      it("folds case with Parley's lower(), reports SQLite's error codes, and runs writes outside a transaction", async () => {
        const db = await open(threads);
        expect((await sql<{ folded: string }>`select lower('ÜBER İ') as folded`.execute(db.kysely)).rows).toEqual([{ folded: "über i" }]);
        const user = await db.kysely.selectFrom("users").select("id").orderBy("id").limit(1).executeTakeFirstOrThrow();
        // A write outside a transaction: on the writer, not on a reader (which is query_only).
        await db.kysely.insertInto("alert_words").values({ user_id: user.id, word: "Ärger" }).execute();
        const error = await db.kysely
          .insertInto("alert_words")
          .values({ user_id: user.id, word: "ÄRGER" })
          .execute()
          .catch((e: unknown) => e);
        expect((error as { code?: string }).code).toBe("SQLITE_CONSTRAINT_UNIQUE");
        expect(isUniqueViolation(error)).toBe(true);
        expect(await db.kysely.selectFrom("alert_words").select("word").where("user_id", "=", user.id).execute()).toEqual([{ word: "Ärger" }]);
        // A transaction rolled back leaves nothing; its error reaches the caller.
        await expect(
          db.kysely.transaction().execute(async (trx) => {
            await trx.insertInto("alert_words").values({ user_id: user.id, word: "rolled back" }).execute();
            throw new Error("stop");
          }),
        ).rejects.toThrow("stop");
        expect(await db.kysely.selectFrom("alert_words").select("word").where("word", "=", "rolled back").execute()).toEqual([]);
        // VACUUM INTO (backup) and a PRAGMA outside a transaction.
        const copy = path.join(fresh!.dataDir, "copy.sqlite3");
        await sql`vacuum into ${sql.lit(copy)}`.execute(db.kysely);
        expect(fs.statSync(copy).size).toBeGreaterThan(0);
        expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db.kysely)).rows).toEqual([{ foreign_keys: 1 }]);
        expect(db.queryCount()).toBeGreaterThanOrEqual(8);
      });
    });
  }

  it("answers a query outside a transaction from a reader while a transaction holds the writer (PARLEY_SQLITE_THREADS=2)", async () => {
    const db = await open(2);
    const user = await db.kysely.selectFrom("users").select(["id", "full_name"]).orderBy("id").limit(1).executeTakeFirstOrThrow();
    let releaseWriter!: () => void;
    const writerHeld = new Promise<void>((resolve) => (releaseWriter = resolve));
    let inTransaction!: () => void;
    const started = new Promise<void>((resolve) => (inTransaction = resolve));
    const transaction = db.kysely.transaction().execute(async (trx) => {
      await trx.updateTable("users").set({ full_name: "Changed" }).where("id", "=", user.id).execute();
      inTransaction();
      await writerHeld;
    });
    await started;
    // With one connection this read would wait for the transaction; a reader sees the last COMMIT.
    const read = await db.kysely.selectFrom("users").select("full_name").where("id", "=", user.id).executeTakeFirstOrThrow();
    expect(read.full_name).toBe(user.full_name);
    releaseWriter();
    await transaction;
    const after = await db.kysely.selectFrom("users").select("full_name").where("id", "=", user.id).executeTakeFirstOrThrow();
    expect(after.full_name).toBe("Changed");
  });

  it("stops with a message naming the setting when the file cannot be opened", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-threads-"));
    try {
      fs.mkdirSync(path.join(dir, "parley.sqlite3"));
      expect(() => openDb({ kind: "sqlite", file: path.join(dir, "parley.sqlite3"), synchronous: "NORMAL", threads: 2 })).toThrow(ConfigError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The API on the driver the rest of the suite does not use (the suite runs on the default).
const OTHER_THREADS = DEFAULT_SQLITE_THREADS === 0 ? 2 : 0;
describe.runIf(TEST_ENGINE === "sqlite")(`the API with PARLEY_SQLITE_THREADS=${OTHER_THREADS}`, () => {
  const server = new TestServer();
  beforeAll(async () => {
    await server.start({}, { PARLEY_SQLITE_THREADS: String(OTHER_THREADS) });
  });
  afterAll(() => server.stop());

  it("sends a message that a registered queue receives and a fetch returns, and refuses a channel name twice", async () => {
    expect(server.config.database).toMatchObject({ kind: "sqlite", threads: OTHER_THREADS });
    const queue = expectSuccess(await server.post("othello", "/api/v1/register", { event_types: ["message"] }));
    const sends = await Promise.all(
      ["one", "two", "three"].map((content) => server.post("hamlet", "/api/v1/messages", { type: "stream", to: "Verona", topic: "threads", content })),
    );
    const ids = sends.map((sent) => expectSuccess(sent).id as number).sort((a, b) => a - b);
    const fetched = expectSuccess(
      await server.get("hamlet", "/api/v1/messages", {
        anchor: ids[0],
        num_before: 0,
        num_after: 2,
        narrow: JSON.stringify([{ operator: "topic", operand: "threads" }]),
        apply_markdown: false,
      }),
    );
    expect(fetched.messages.map((m: { content: string }) => m.content).sort()).toEqual(["one", "three", "two"]);
    const { events } = expectSuccess(await server.get("othello", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true }));
    expect(events.filter((e: { type: string }) => e.type === "message").map((e: { message: { id: number } }) => e.message.id)).toEqual(ids);
    // Two creations of one name at once: one wins, the other is told the name is taken or subscribes to it.
    const created = await Promise.all(
      ["hamlet", "iago"].map((who) => server.post(who, "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Threaded" }]) })),
    );
    expect(created.map((res) => res.status)).toEqual([200, 200]);
    const channels = expectSuccess(await server.get("iago", "/api/v1/streams")).streams.filter((s: { name: string }) => s.name === "Threaded");
    expect(channels).toHaveLength(1);
  });
});
