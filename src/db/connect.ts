import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { Config } from "../config.js";
import { type Dialect, dialectFor } from "./dialect.js";
import type { Database } from "./schema.js";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** Number of SQL statements executed so far (tests count queries per request with it). */
  queryCount(): number;
  close(): Promise<void>;
}

/** The files of an embedded database, main file first; none for a database server. */
export function localDatabaseFiles(database: Config["database"]): string[] {
  if (database.kind !== "sqlite" || database.file === ":memory:") return [];
  return [database.file, `${database.file}-wal`, `${database.file}-shm`];
}

/** Opens the configured database. Does not migrate (see migrate.ts). */
export function openDb(database: Config["database"]): Db {
  let count = 0;
  const log = () => {
    count += 1;
  };
  if (database.kind === "sqlite") {
    if (database.file !== ":memory:") fs.mkdirSync(path.dirname(database.file), { recursive: true });
    const sqlite = new SqliteDatabase(database.file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma(`synchronous = ${database.synchronous}`);
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    // 32 MiB of page cache (SQLite's default is 2 MiB): a message to 1,000 users dirties ~2,000
    // index pages, and a group commit of several such messages spilled the default cache to disk
    // mid-transaction (ten 1,000-recipient messages per commit: 24 -> 19 ms per message).
    sqlite.pragma("cache_size = -32768");
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), log });
    return { kysely, dialect: dialectFor("sqlite"), queryCount: () => count, close: () => kysely.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: database.url,
    max: 10,
    types: {
      // 64-bit integers (ids, times, counts) come back as JS numbers: our values stay below 2^53.
      getTypeParser: (oid: number, format?: any) =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format),
    },
  });
  // An idle connection can die (server restart, database dropped): pg reports it on the pool, and
  // the next query opens a new connection. Without a listener the process would crash.
  pool.on("error", (error) => process.emitWarning(`PostgreSQL idle connection lost: ${error.message}`));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  return { kysely, dialect: dialectFor("postgres"), queryCount: () => count, close: () => kysely.destroy() };
}

/**
 * Kysely prepares a statement for every query; preparing costs more than running most of ours.
 * Reuse prepared statements by SQL text (better-sqlite3 statements are reusable, and Kysely runs
 * one query at a time on its single connection). Bounded: the least recently added goes first.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, max = 1000): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== "prepare") return Reflect.get(target, property, receiver);
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          statement = prepare(source);
          if (cache.size >= max) cache.delete(cache.keys().next().value!);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}
