import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openSqliteConnection, PAGE_CACHE_RELEASE_MS, WAL_CHECKPOINT_PAGES, WAL_SIZE_LIMIT } from "../../src/db/sqliteConnection.js";

// The page cache's bounds (src/db/sqliteConnection.ts): 8 MiB of clean pages, and spilling to disk
// mid-transaction only past 32 MiB. cache_spill reads its number as a boolean too (its low byte):
// a page count that is a multiple of 256 would have turned spilling off, which reads back as 0.
describe("an SQLite connection's page cache", () => {
  it("keeps 8 MiB of clean pages and spills a transaction's dirty pages past 32 MiB", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-sqlite-cache-"));
    const sqlite = openSqliteConnection({ file: path.join(dir, "db.sqlite3"), synchronous: "NORMAL" });
    try {
      expect(sqlite.pragma("cache_size", { simple: true })).toBe(-8192);
      const pageSize = sqlite.pragma("page_size", { simple: true }) as number;
      const spillPages = sqlite.pragma("cache_spill", { simple: true }) as number;
      // SQLite counts a page with its header: a little under 32 MiB ÷ the page size.
      expect(spillPages).toBeGreaterThan((0.9 * 32 * 1024 * 1024) / pageSize);
      expect(spillPages).toBeLessThanOrEqual((32 * 1024 * 1024) / pageSize);
    } finally {
      sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A COMMIT checkpoints the WAL only once it holds WAL_CHECKPOINT_PAGES pages, not at SQLite's
// default of 1,000 (src/db/sqliteConnection.ts): a fan-out message writes ~2 pages per receiver.
// `wal_checkpoint(PASSIVE)` answers how many pages the WAL holds since it last started over.
describe("an SQLite connection's checkpoints", () => {
  it("leave the WAL alone up to WAL_CHECKPOINT_PAGES pages, then start it over", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-sqlite-wal-"));
    const sqlite = openSqliteConnection({ file: path.join(dir, "db.sqlite3"), synchronous: "NORMAL" });
    // ~1,000 pages per commit: a row of 3,000 random bytes fills most of a 4 KiB page.
    const commitPages = () =>
      sqlite.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO t SELECT randomblob(3000) FROM n");
    const walPages = () => (sqlite.pragma("wal_checkpoint(PASSIVE)") as { log: number }[])[0]!.log;
    try {
      expect(sqlite.pragma("journal_size_limit", { simple: true })).toBe(WAL_SIZE_LIMIT);
      sqlite.exec("CREATE TABLE t (x BLOB)");
      sqlite.pragma("wal_checkpoint(TRUNCATE)");
      for (let i = 0; i < 3; i++) commitPages();
      // SQLite's default would have checkpointed at the second commit and started over at the third.
      const threeCommits = walPages();
      expect(threeCommits).toBeGreaterThan(2700);
      // That checkpoint copied them all: the next commit starts the WAL over.
      const perCommit = threeCommits / 3;
      commitPages();
      expect(walPages()).toBeLessThan(1.5 * perCommit);
      // Enough commits to cross the threshold: the one that crossed it checkpointed, and the one
      // after it started over.
      const commits = Math.ceil(WAL_CHECKPOINT_PAGES / perCommit) + 1;
      for (let i = 0; i < commits; i++) commitPages();
      expect(walPages()).toBeLessThan(1.5 * perCommit);
    } finally {
      sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Every second a connection hands its page cache's unused pages back (PRAGMA shrink_memory), never
// in the middle of a transaction, and not once it is closed: a closed connection leaves no timer.
describe("an SQLite connection's page cache, released", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("every second outside a transaction, and no more after close()", () => {
    vi.useFakeTimers();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-sqlite-release-"));
    const sqlite = openSqliteConnection({ file: path.join(dir, "db.sqlite3"), synchronous: "NORMAL" });
    const shrinks: boolean[] = [];
    const pragma = sqlite.pragma.bind(sqlite);
    sqlite.pragma = ((source: string, options?: object) => {
      if (source === "shrink_memory") shrinks.push(sqlite.inTransaction);
      return pragma(source, options);
    }) as typeof sqlite.pragma;
    try {
      sqlite.exec("CREATE TABLE t (x INTEGER)");
      vi.advanceTimersByTime(PAGE_CACHE_RELEASE_MS);
      expect(shrinks).toEqual([false]);
      sqlite.exec("BEGIN");
      vi.advanceTimersByTime(3 * PAGE_CACHE_RELEASE_MS);
      expect(shrinks).toEqual([false]);
      sqlite.exec("COMMIT");
      vi.advanceTimersByTime(PAGE_CACHE_RELEASE_MS);
      expect(shrinks).toEqual([false, false]);
      const timers = vi.getTimerCount();
      sqlite.close();
      expect(vi.getTimerCount()).toBe(timers - 1);
      vi.advanceTimersByTime(3 * PAGE_CACHE_RELEASE_MS);
      expect(shrinks).toHaveLength(2);
    } finally {
      if (sqlite.open) sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
