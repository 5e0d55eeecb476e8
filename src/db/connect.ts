import fs from "node:fs";
import path from "node:path";
import type SqliteDatabase from "better-sqlite3";
import { Kysely, type SqliteAdapter, SqliteDialect, sql } from "kysely";
import type pg from "pg";
import type { Logger } from "pino";
import { type Config, ConfigError } from "../config.js";
import { AuthCache, registerAuthCache } from "./authCache.js";
import { type Dialect, dialectFor } from "./dialect.js";
import { lazyRequire } from "../util/lazy.js";
import { ParleyPostgresDialect } from "./pgDialect.js";
import { StatementNames, withPreparedStatements } from "./pgPreparedStatements.js";
import { DatabaseHealth, errorText } from "./health.js";
import { openSqliteConnection } from "./sqliteConnection.js";
import { WalSync, withWalSync } from "./sqliteWalSync.js";
import { observeStatements, type StatementObserver } from "./statementObserver.js";
import { SqliteThreadsDialect, TransactionalDdlSqliteAdapter } from "./sqliteThreads.js";
import type { Database } from "./schema.js";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** Who each credential authenticated as (db/authCache.ts); store writes invalidate it. */
  readonly authCache: AuthCache;
  /** SQLite in process with FULL: the WAL's sync after COMMIT (sqliteWalSync.ts), which group commit requests itself. */
  readonly walSync?: WalSync;
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

/**
 * SQLite worker threads when PARLEY_SQLITE_THREADS is not given (sqliteThreads.ts): none, SQLite
 * runs in process. Measured against the in-process driver (issue 34), the threads did not lower
 * the CPU per message and cost idle memory: each statement of a transaction waits for a
 * round trip through the main thread's event loop while the writer is held (docs/architecture.md).
 */
export const DEFAULT_SQLITE_THREADS = 0;

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
  const log: StatementObserver = (query, milliseconds, failed, error) => {
    count += 1;
    // A safety net for writes that bypass the store functions (which invalidate precisely and
    // after COMMIT, see noteAuthChange): whatever changed users, realms or sessions empties the cache.
    if (AUTH_TABLE_WRITE.test(query.sql)) authCache.apply({ all: true });
    options.onStatement?.(milliseconds / 1000, failed);
    if (!failed) health.succeeded();
    else health.failed(error);
  };
  if (database.kind === "sqlite") {
    const threads = database.file === ":memory:" ? 0 : (database.threads ?? DEFAULT_SQLITE_THREADS);
    // In process, FULL's sync of the WAL runs off the event loop, before whoever wrote is answered (sqliteWalSync.ts).
    const walSync = threads === 0 && database.file !== ":memory:" && database.synchronous === "FULL" ? new WalSync(`${database.file}-wal`) : null;
    let sqlite: SqliteDatabase.Database;
    try {
      if (database.file !== ":memory:") fs.mkdirSync(path.dirname(database.file), { recursive: true });
      sqlite = openSqliteConnection(walSync ? { ...database, synchronous: "NORMAL" } : database);
    } catch (error) {
      throw new ConfigError(`Cannot open the SQLite database ${database.file} (PARLEY_DATA_DIR or PARLEY_DATABASE_URL): ${errorText(error)}`);
    }
    // With worker threads, this connection only checked that the file opens (the errors above, at
    // once rather than at the first statement) and made it a WAL database.
    if (threads > 0) sqlite.close();
    const inProcess = () => {
      const dialect = new TransactionalDdlSqliteDialect({ database: sqlite });
      return walSync ? withWalSync(dialect, sqlite, walSync) : dialect;
    };
    const kysely = new Kysely<Database>({
      dialect: observeStatements(
        threads > 0 ? new SqliteThreadsDialect({ file: database.file, synchronous: database.synchronous, threads }) : inProcess(),
        log,
      ),
    });
    return {
      kysely,
      dialect: dialectFor("sqlite"),
      authCache: withCache(kysely, authCache),
      ...(walSync ? { walSync } : {}),
      queryCount: () => count,
      health,
      close: () => kysely.destroy(),
    };
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
    dialect: observeStatements(
      new ParleyPostgresDialect({ pool: database.preparedStatements === false ? pool : withPreparedStatements(pool, new StatementNames()) }),
      log,
    ),
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
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** SQLite in process (PARLEY_SQLITE_THREADS=0, and `:memory:` databases), with Parley's adapter (sqliteThreads.ts). */
class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
