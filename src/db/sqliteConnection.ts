import SqliteDatabase from "better-sqlite3";
import { BoundedCache } from "../util/boundedCache.js";
import { foldCase } from "../util/foldCase.js";

/** How an SQLite connection of Parley's is set up (connect.ts in process, sqliteWorker.ts in a worker thread). */
export interface SqliteConnectionOptions {
  file: string;
  synchronous: "FULL" | "NORMAL";
  /** A reader's connection (sqliteThreads.ts): `query_only`, so that a statement that would write fails instead. */
  readOnly?: boolean;
}

/**
 * Opens one connection the way every connection to a Parley database must be opened: Parley's
 * lower() first, then the pragmas, and statements prepared once per SQL text.
 */
export function openSqliteConnection(options: SqliteConnectionOptions): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(options.file);
  // Before any statement: indexes on lower(…) need Parley's lower() (registerCaseFolding).
  registerCaseFolding(sqlite);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma(`synchronous = ${options.synchronous}`);
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // The page cache keeps up to 8 MiB of clean pages (SQLite's default is 2 MiB), and a transaction
  // may hold up to 32 MiB of dirty pages before SQLite spills them to disk mid-transaction: a
  // message to 1,000 users dirties ~2,000 index pages, and a group commit of several such messages
  // spilled the default cache. 8 MiB holds a 1,000-member channel's working set from one send to
  // the next; the pages every send appends and never reads again are let go every second (below).
  // Both in KiB (negative): SQLite reads cache_spill's number as a boolean from its low byte, so a
  // page count such as 8192 would turn spilling off.
  sqlite.pragma("cache_size = -8192");
  sqlite.pragma("cache_spill = -32768");
  // A checkpoint copies the WAL's pages into the database file and syncs it, inside the COMMIT
  // that crossed the threshold, on the thread that committed (the event loop, in process). At
  // SQLite's default of 1,000 pages (4 MiB) a message to a 500-member channel, which writes ~1,000
  // index pages, checkpointed at nearly every commit. Each page is copied once however often the
  // WAL holds it, and consecutive messages to a channel touch the same pages: WAL_CHECKPOINT_PAGES
  // checkpoints far less in all, and the file is cut back to WAL_SIZE_LIMIT when it starts over.
  sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  if (options.readOnly) sqlite.pragma("query_only = ON");
  return withStatementCache(withPageCacheReleased(sqlite));
}

/** The WAL's size, in pages, past which a COMMIT checkpoints it (SQLite's default is 1,000). */
export const WAL_CHECKPOINT_PAGES = 10_000;

/** The size, in bytes, to which the WAL file is cut back when it starts over after a checkpoint. */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** How often a connection hands its page cache's unused pages back to malloc (withPageCacheReleased). */
export const PAGE_CACHE_RELEASE_MS = 1000;

/**
 * Under load the page cache fills to its 8 MiB with pages written once (each message and its
 * recipients' rows append to the tables' and indexes' last pages) and keeps them: the largest part
 * of the server's RSS growth under a steady small-room load (issue 34: +10 MiB of malloc'd memory
 * at the N = 50 peak). Every PAGE_CACHE_RELEASE_MS, outside a transaction, the connection lets go
 * of the pages no statement holds (`PRAGMA shrink_memory`); malloc reuses their memory for the
 * next second's pages, so the cache stays near one second's worth. What a large channel's next
 * send needs again is read back once a second from the operating system's file cache (a few ms
 * for a 1,000-member channel). The timer does not keep the process alive and stops at close().
 */
function withPageCacheReleased(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  const timer = setInterval(() => {
    if (sqlite.open && !sqlite.inTransaction) sqlite.pragma("shrink_memory");
  }, PAGE_CACHE_RELEASE_MS);
  timer.unref();
  const close = sqlite.close.bind(sqlite);
  sqlite.close = () => {
    clearInterval(timer);
    return close();
  };
  return sqlite;
}

/**
 * Kysely prepares a statement for every query; preparing costs more than running most of ours.
 * Reuse prepared statements by SQL text (better-sqlite3 statements are reusable, and one query at
 * a time runs on a connection). Bounded: the least recently added goes first.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, max = 1000): SqliteDatabase.Database {
  const cache = new BoundedCache<string, SqliteDatabase.Statement>(max);
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== "prepare") return Reflect.get(target, property, receiver);
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          statement = prepare(source);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

/**
 * Replaces SQLite's lower(), which folds the 26 ASCII letters only, with foldCase(), so that every
 * case-insensitive comparison (`lower(column) = lower(?)`: channel names, emails, topics, alert
 * words) and every index on lower(…) — unique ones included — fold alike on both engines.
 *
 * Every connection to a Parley database must register it before touching those tables: a
 * connection that does not would compute index keys with the ASCII-only lower() (openSqliteConnection
 * is the one place Parley opens its SQLite database, in process or in a worker thread; migrations,
 * backup's VACUUM INTO and the test template all use it). Migration 2026-11-28T2100 rebuilt the
 * indexes made with the old lower().
 */
function registerCaseFolding(sqlite: SqliteDatabase.Database): void {
  sqlite.function("lower", { deterministic: true }, (value: unknown) => {
    if (value === null || value === undefined) return null;
    return foldCase(typeof value === "string" ? value : Buffer.isBuffer(value) ? value.toString("utf8") : String(value));
  });
}
