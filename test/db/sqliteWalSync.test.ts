import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { type Db, openDb } from "../../src/db/connect.js";
import { dialectFor } from "../../src/db/dialect.js";
import { GroupCommitLanes } from "../../src/db/groupCommit.js";
import { openSqliteConnection } from "../../src/db/sqliteConnection.js";
import { WalSync, withWalSync } from "../../src/db/sqliteWalSync.js";

/** A sync that finishes when the test says so. */
class ManualSync {
  started = 0;
  private finishers: Array<(error?: Error) => void> = [];
  readonly datasync = () =>
    new Promise<void>((resolve, reject) => {
      this.started += 1;
      this.finishers.push((error) => (error ? reject(error) : resolve()));
    });
  finish(error?: Error): void {
    const finisher = this.finishers.shift();
    if (!finisher) throw new Error("no sync runs");
    finisher(error);
  }
}

/** Creates table t on `db`, whose WAL `manual` syncs, and lets that sync finish. */
async function createTable(db: Kysely<any>, manual: ManualSync): Promise<void> {
  const create = sql`CREATE TABLE t (x INTEGER)`.execute(db);
  await settle();
  manual.finish();
  await create;
}

/** Resolves after the promises that are ready have settled. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has resolved by now. */
async function isDone(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await settle();
  return done;
}

describe("WalSync", () => {
  it("runs one sync at a time; the requests made while it runs share the next", async () => {
    const manual = new ManualSync();
    const sync = new WalSync("unused", manual.datasync);
    const first = sync.request();
    const second = sync.request();
    const third = sync.request();
    expect(manual.started).toBe(1);
    manual.finish();
    await first;
    // The second sync starts only once the first is over: it covers what was written before it.
    await settle();
    expect(manual.started).toBe(2);
    expect(await isDone(second)).toBe(false);
    manual.finish();
    await Promise.all([second, third]);
    expect(manual.started).toBe(2);
  });

  it("fails the requests of a failed sync, and the next request syncs again", async () => {
    const manual = new ManualSync();
    const sync = new WalSync("unused", manual.datasync);
    const failing = sync.request();
    manual.finish(new Error("EIO"));
    await expect(failing).rejects.toThrow("EIO");
    const again = sync.request();
    expect(manual.started).toBe(2);
    manual.finish();
    await again;
  });

  it("syncs a real file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-walsync-"));
    const file = path.join(dir, "wal");
    fs.writeFileSync(file, "frames");
    const sync = new WalSync(file);
    try {
      await sync.request();
      await sync.request();
    } finally {
      await sync.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Through Kysely on a real SQLite file, as connect.ts opens it: whoever wrote waits for the sync,
// readers do not, and the connection serves others while a writer waits.
describe("SQLite with the WAL synced after COMMIT", () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function open(manual: ManualSync): Kysely<any> {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-walsync-db-"));
    const sqlite = openSqliteConnection({ file: path.join(dir, "db.sqlite3"), synchronous: "NORMAL" });
    return new Kysely<any>({ dialect: withWalSync(new SqliteDialect({ database: sqlite }), sqlite, new WalSync("unused", manual.datasync)) });
  }

  it("answers a write once the WAL is synced, a read at once, and reads while a write waits", async () => {
    const manual = new ManualSync();
    const db = open(manual);
    try {
      await createTable(db, manual);

      const insert = db.insertInto("t").values({ x: 1 }).execute();
      await settle();
      expect(manual.started).toBe(2);
      expect(await isDone(insert)).toBe(false);
      // The write is committed and the connection free: a read sees it, without a sync.
      expect(await db.selectFrom("t").selectAll().execute()).toEqual([{ x: 1 }]);
      expect(manual.started).toBe(2);
      manual.finish();
      await insert;
    } finally {
      await db.destroy();
    }
  });

  it("syncs a transaction once, at its COMMIT, and a read-only one not at all", async () => {
    const manual = new ManualSync();
    const db = open(manual);
    try {
      await createTable(db, manual);

      const committed = db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ x: 1 }).execute();
        await trx.insertInto("t").values({ x: 2 }).execute();
        expect(manual.started).toBe(1);
      });
      await settle();
      expect(manual.started).toBe(2);
      expect(await isDone(committed)).toBe(false);
      manual.finish();
      await committed;

      const reads = db.transaction().execute((trx) => trx.selectFrom("t").selectAll().execute());
      expect(await reads).toHaveLength(2);
      expect(manual.started).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});

// connect.ts: an SQLite file asked for FULL is opened with NORMAL and synced after COMMIT; one asked
// for NORMAL, and an in-memory database, are not.
describe("openDb's SQLite durability", () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("syncs the WAL after COMMIT for a file asked for FULL only", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-walsync-open-"));
    const full = openDb({ kind: "sqlite", file: path.join(dir, "full.sqlite3"), synchronous: "FULL" });
    const normal = openDb({ kind: "sqlite", file: path.join(dir, "normal.sqlite3"), synchronous: "NORMAL" });
    const memory = openDb({ kind: "sqlite", file: ":memory:", synchronous: "FULL" });
    try {
      const level = async (db: typeof full) => (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db.kysely)).rows[0]!.synchronous;
      // 1 is NORMAL, 2 FULL: for a file asked for FULL, SQLite does not sync inside COMMIT; sqliteWalSync.ts does, after it.
      expect([await level(full), await level(normal), await level(memory)]).toEqual([1, 1, 2]);
      await sql`CREATE TABLE t (x INTEGER)`.execute(full.kysely);
      await full.kysely
        .insertInto("t" as never)
        .values({ x: 1 } as never)
        .execute();
    } finally {
      await Promise.all([full.close(), normal.close(), memory.close()]);
    }
  });
});

// db/groupCommit.ts on such a database: a batch's after-commit hooks (its events) run at COMMIT,
// its units are answered once the WAL is synced, and the batch after it waits for that sync.
describe("group commit with the WAL synced after COMMIT", () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("releases a batch's events at COMMIT and answers its units once synced", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-walsync-group-"));
    const manual = new ManualSync();
    const walSync = new WalSync("unused", manual.datasync);
    const sqlite = openSqliteConnection({ file: path.join(dir, "db.sqlite3"), synchronous: "NORMAL" });
    const kysely = new Kysely<any>({ dialect: withWalSync(new SqliteDialect({ database: sqlite }), sqlite, walSync) });
    const db = { kysely, dialect: dialectFor("sqlite"), walSync } as unknown as Db;
    const lanes = new GroupCommitLanes({ db, events: {} as never, wakeJobs: () => {} }, 1);
    try {
      await createTable(kysely, manual);

      const released: number[] = [];
      const insert = (x: number) =>
        lanes.run(async (trx, pending) => {
          await sql`INSERT INTO t (x) VALUES (${x})`.execute(trx);
          pending.hooks.push(() => released.push(x));
          return x;
        });
      const first = insert(1);
      await settle();
      // Committed and released, one sync requested (by group commit, not twice), not answered.
      expect(released).toEqual([1]);
      expect(manual.started).toBe(2);
      expect(await isDone(first)).toBe(false);
      // The next batch waits for that sync.
      const second = insert(2);
      await settle();
      expect(released).toEqual([1]);
      manual.finish();
      expect(await first).toBe(1);
      await settle();
      expect(released).toEqual([1, 2]);
      expect(await isDone(second)).toBe(false);
      manual.finish();
      expect(await second).toBe(2);
      expect(manual.started).toBe(3);
    } finally {
      await kysely.destroy();
    }
  });
});
