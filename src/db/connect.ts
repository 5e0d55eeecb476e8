import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, SqliteAdapter, SqliteDialect, sql } from "kysely";
import type pg from "pg";
import type { Logger } from "pino";
import { type Config, ConfigError } from "../config.js";
import { AuthCache, registerAuthCache } from "./authCache.js";
import { type Dialect, dialectFor } from "./dialect.js";
import { foldCase } from "../util/foldCase.js";
import { lazyRequire } from "../util/lazy.js";
import { ParleyPostgresDialect } from "./pgDialect.js";
import { StatementNames, withPreparedStatements } from "./pgPreparedStatements.js";
import { DatabaseHealth, errorText } from "./health.js";
import type { Database } from "./schema.js";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** Who each credential authenticated as (db/authCache.ts); store writes invalidate it. */
  readonly authCache: AuthCache;
  /** Number of SQL statements executed so far (tests count queries per request with it). */
  queryCount(): number;
  /** Connection outages, logged once each (PostgreSQL). */
  readonly health: DatabaseHealth;
  /** PostgreSQL's connection pool, for metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/** PostgreSQL's client, loaded when a PostgreSQL database is opened (an SQLite server never holds it). */
const loadPg = lazyRequire<typeof pg>("pg");

const AUTH_TABLE_WRITE = /^\s*(update|delete from)\s+"?(users|realms|sessions)\b/i;

function withCache(kysely: Kysely<Database>, cache: AuthCache): AuthCache {
  registerAuthCache(kysely, cache);
  return cache;
}

/** The files of an embedded database, main file first; none for a database server. */
export function localDatabaseFiles(database: Config["database"]): string[] {
  if (database.kind !== "sqlite" || database.file === ":memory:") return [];
  return [database.file, `${database.file}-wal`, `${database.file}-shm`];
}

/**
 * The lock file `parley serve` holds so that one server process serves an embedded database
 * (lib/serverLock.ts); none for a database server, which several processes share.
 */
export function serverLockFile(database: Config["database"]): string | null {
  if (database.kind !== "sqlite" || database.file === ":memory:") return null;
  return `${database.file}.server-lock`;
}

export interface OpenDbOptions {
  /** Where connection outages are logged. */
  log?: Logger;
  /** How long connecting to PostgreSQL may take before it counts as failed. */
  connectTimeoutSeconds?: number;
  /** Told each statement's duration and whether it failed (metrics). */
  onStatement?: (seconds: number, failed: boolean) => void;
}

/** Opens the configured database. Does not migrate (see migrate.ts) nor connect yet (see checkReachable). */
export function openDb(database: Config["database"], options: OpenDbOptions = {}): Db {
  let count = 0;
  const health = new DatabaseHealth(options.log);
  const authCache = new AuthCache();
  const log = (event: { level: "query" | "error"; error?: unknown; queryDurationMillis: number; query: { sql: string } }) => {
    count += 1;
    // A safety net for writes that bypass the store functions (which invalidate precisely and
    // after COMMIT, see noteAuthChange): whatever changed users, realms or sessions empties the cache.
    if (AUTH_TABLE_WRITE.test(event.query.sql)) authCache.apply({ all: true });
    options.onStatement?.(event.queryDurationMillis / 1000, event.level === "error");
    if (event.level === "query") health.succeeded();
    else health.failed(event.error);
  };
  if (database.kind === "sqlite") {
    let sqlite: SqliteDatabase.Database;
    try {
      if (database.file !== ":memory:") fs.mkdirSync(path.dirname(database.file), { recursive: true });
      sqlite = new SqliteDatabase(database.file);
    } catch (error) {
      throw new ConfigError(`Cannot open the SQLite database ${database.file} (PARLEY_DATA_DIR or PARLEY_DATABASE_URL): ${errorText(error)}`);
    }
    // Before any statement: indexes on lower(…) need Parley's lower() (registerCaseFolding).
    registerCaseFolding(sqlite);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma(`synchronous = ${database.synchronous}`);
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    // 32 MiB of page cache (SQLite's default is 2 MiB): a message to 1,000 users dirties ~2,000
    // index pages, and a group commit of several such messages spilled the default cache to disk
    // mid-transaction (ten 1,000-recipient messages per commit: 24 -> 19 ms per message).
    sqlite.pragma("cache_size = -32768");
    const kysely = new Kysely<Database>({ dialect: new TransactionalDdlSqliteDialect({ database: withStatementCache(sqlite) }), log });
    return { kysely, dialect: dialectFor("sqlite"), authCache: withCache(kysely, authCache), queryCount: () => count, health, close: () => kysely.destroy() };
  }
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: database.url,
    max: 10,
    connectionTimeoutMillis: (options.connectTimeoutSeconds ?? 10) * 1000,
    types: {
      // 64-bit integers (ids, times, counts) come back as JS numbers: our values stay below 2^53.
      getTypeParser: (oid: number, format?: any) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)),
    },
  });
  // An idle connection can die (server restart, database dropped): pg reports it on the pool, and
  // the next query opens a new connection. Without a listener the process would crash.
  const lost = (error: Error) => {
    if (!health.failed(error)) options.log?.warn({ err: error.message }, "PostgreSQL connection lost");
  };
  pool.on("error", lost);
  // A connection can also die while checked out (a transaction in progress): its query fails, and
  // pg emits an 'error' on the client too, which would crash the process without a listener.
  pool.on("connect", (client) => client.on("error", lost));
  const kysely = new Kysely<Database>({
    dialect: new ParleyPostgresDialect({ pool: database.preparedStatements === false ? pool : withPreparedStatements(pool, new StatementNames()) }),
    log,
  });
  const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return {
    kysely,
    dialect: dialectFor("postgres"),
    authCache: withCache(kysely, authCache),
    queryCount: () => count,
    health,
    poolStats,
    close: () => kysely.destroy(),
  };
}

/**
 * Runs one statement, so that a database that cannot be reached stops the start with a message
 * naming PARLEY_DATABASE_URL: refused, unknown host, wrong password, or no answer in time.
 */
export async function checkReachable(db: Db, database: Config["database"], timeoutSeconds: number): Promise<void> {
  if (database.kind === "sqlite") return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutSeconds} seconds`)), timeoutSeconds * 1000);
  });
  try {
    await Promise.race([sql`select 1`.execute(db.kysely), timeout]);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === "ECONNREFUSED"
        ? "connection refused (is PostgreSQL running and listening there?)"
        : /timeout/i.test(errorText(error))
          ? `no answer within ${timeoutSeconds} seconds`
          : errorText(error);
    throw new ConfigError(`Cannot use the database at PARLEY_DATABASE_URL (${redactedUrl(database.url)}): ${reason}`);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/**
 * SQLite's DDL is transactional, but Kysely's SQLite adapter says otherwise, so its migrator would
 * apply migrations outside a transaction: a process killed mid-migration would leave it half done.
 * With this, pending migrations are applied in one transaction on SQLite as on PostgreSQL.
 */
class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }
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

/**
 * Replaces SQLite's lower(), which folds the 26 ASCII letters only, with foldCase(), so that every
 * case-insensitive comparison (`lower(column) = lower(?)`: channel names, emails, topics, alert
 * words) and every index on lower(…) — unique ones included — fold alike on both engines.
 *
 * Every connection to a Parley database must register it before touching those tables: a
 * connection that does not would compute index keys with the ASCII-only lower() (openDb is the
 * one place Parley opens SQLite; migrations, backup's VACUUM INTO and the test template all use
 * it). Migration 2026-11-28T2100 rebuilt the indexes made with the old lower().
 */
function registerCaseFolding(sqlite: SqliteDatabase.Database): void {
  sqlite.function("lower", { deterministic: true }, (value: unknown) => {
    if (value === null || value === undefined) return null;
    return foldCase(typeof value === "string" ? value : Buffer.isBuffer(value) ? value.toString("utf8") : String(value));
  });
}
