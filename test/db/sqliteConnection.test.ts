import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteConnection } from "../../src/db/sqliteConnection.js";

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
