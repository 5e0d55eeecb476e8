import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openSqliteConnection, PAGE_CACHE_RELEASE_MS } from "../../src/db/sqliteConnection.js";

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
