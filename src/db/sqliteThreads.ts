import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { SqliteConnectionOptions } from "./sqliteConnection.js";
import { type Answer, Op, Reply, type Request } from "./sqliteProtocol.js";

/**
 * SQLite off the event loop: a Kysely dialect whose connections live in worker threads
 * (sqliteWorker.ts), so that HTTP, long-polls and Markdown keep the main thread while SQLite works
 * on another core. One thread holds the writer connection: every transaction (group commit's
 * batches, migrations, POST /register's snapshot), one at a time as on the single in-process
 * connection, and every statement outside a transaction that can write. With `threads` ≥ 2 the
 * others hold reader connections (`query_only`), which run the statements outside a transaction
 * that cannot write while the writer writes (WAL: a reader sees the last COMMIT before its
 * statement began). Whether a text can write is SQLite's answer (better-sqlite3's
 * `statement.readonly`), asked once per text by the reader that first gets it.
 */
export class SqliteThreadsDialect implements Dialect {
  constructor(private readonly options: SqliteConnectionOptions & { threads: number }) {}

  createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
  createDriver(): Driver {
    return new SqliteThreadsDriver(this.options);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/**
 * SQLite's DDL is transactional, but Kysely's SQLite adapter says otherwise, so its migrator would
 * apply migrations outside a transaction: a process killed mid-migration would leave it half done.
 * With this, pending migrations are applied in one transaction on SQLite as on PostgreSQL.
 */
export class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** An error SQLite reported in a worker thread, with its code (SQLITE_CONSTRAINT_UNIQUE, …: db/errors.ts). */
class SqliteError extends Error {
  override name = "SqliteError";
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * The worker's entry point: the bundle's dist/sqliteWorker.js beside dist/cli.js, or, when src/
 * runs through tsx (tests, `npm run dev`), the TypeScript source, loaded after registering tsx in
 * the thread (a worker does not inherit the main thread's module hooks).
 */
function workerEntry(): URL {
  if (!import.meta.url.endsWith(".ts")) return new URL("./sqliteWorker.js", import.meta.url);
  const tsxPackage = createRequire(import.meta.url).resolve("tsx/package.json");
  const tsx = pathToFileURL(path.join(path.dirname(tsxPackage), "dist/esm/api/index.mjs")).href;
  const source = new URL("./sqliteWorker.ts", import.meta.url).href;
  return new URL(
    `data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(source)});`)}`,
  );
}

/** One worker thread and its connection: requests are answered in the order they were posted. */
class SqliteThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | null = null;
  readonly ready: Promise<void>;

  constructor(options: SqliteConnectionOptions) {
    // Referenced until it is ready; then only while requests wait (below): an idle thread does not
    // keep the process alive, so a CLI command that forgot close() still ends.
    this.worker = new Worker(workerEntry(), { workerData: options });
    this.ready = new Promise((resolve, reject) => {
      this.waiting.set(0, {
        resolve: (answer) => (answer[1] === Reply.READY ? resolve() : reject(new SqliteError(answer[2] as string, answer[3] as string | undefined))),
        reject,
      });
    });
    this.worker.on("message", (answer: Answer) => {
      const waiter = this.waiting.get(answer[0]);
      this.waiting.delete(answer[0]);
      if (this.waiting.size === 0) this.worker.unref();
      waiter?.resolve(answer);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the SQLite worker thread ended (exit code ${code})`)));
  }

  /** Requests waiting for their answer. */
  get load(): number {
    return this.waiting.size;
  }

  request(op: typeof Op.RUN | typeof Op.READ_ONLY, sql: string, parameters: readonly unknown[]): Promise<Answer> {
    return this.post((id) => [id, op, sql, parameters]);
  }

  async close(): Promise<void> {
    if (this.failure) return;
    await this.post((id) => [id, Op.CLOSE]).catch(() => {});
    await this.worker.terminate();
  }

  private post(request: (id: number) => Request): Promise<Answer> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage(request(id));
    });
  }
}

/** A queue for the writer: one holder at a time, in the order they asked. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async lock(): Promise<() => void> {
    let unlock!: () => void;
    const previous = this.tail;
    this.tail = new Promise((resolve) => (unlock = resolve));
    await previous;
    return unlock;
  }
}

/**
 * A text a reader may be asked to run: a query. Others (PRAGMAs, which set the connection they
 * run on; transaction control; VACUUM INTO) go to the writer even when SQLite calls them read-only.
 */
const QUERY = /^\s*(select|with)\b/i;

class SqliteThreadsDriver implements Driver {
  private writer!: SqliteThread;
  private readers: SqliteThread[] = [];
  private readonly writerLock = new Mutex();
  /** SQL texts a reader found could write: they go to the writer at once next time. */
  private readonly writes = new Set<string>();

  constructor(private readonly options: SqliteConnectionOptions & { threads: number }) {}

  async init(): Promise<void> {
    const { threads, ...connection } = this.options;
    // The writer opens first: it makes the file a WAL database, which the readers then open as one.
    this.writer = new SqliteThread(connection);
    await this.writer.ready;
    this.readers = Array.from({ length: Math.max(0, threads - 1) }, () => new SqliteThread({ ...connection, readOnly: true }));
    await Promise.all(this.readers.map((reader) => reader.ready));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ThreadConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as ThreadConnection;
    c.unlockWriter = await this.writerLock.lock();
    try {
      await c.executeQuery({ sql: "begin", parameters: [] } as unknown as CompiledQuery);
    } catch (error) {
      c.release();
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: "commit", parameters: [] } as unknown as CompiledQuery);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: "rollback", parameters: [] } as unknown as CompiledQuery);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as ThreadConnection).release();
  }

  async destroy(): Promise<void> {
    await Promise.all([...this.readers, this.writer].filter(Boolean).map((thread) => thread.close()));
  }

  /** A statement outside a transaction: on a reader if it cannot write, else on the writer between transactions. */
  async runAlone(sql: string, parameters: readonly unknown[]): Promise<Answer> {
    if (this.readers.length > 0 && QUERY.test(sql) && !this.writes.has(sql)) {
      const answer = await this.leastBusyReader().request(Op.READ_ONLY, sql, parameters);
      if (answer[1] !== Reply.NOT_READ_ONLY) return answer;
      this.writes.add(sql);
    }
    const unlock = await this.writerLock.lock();
    try {
      return await this.writer.request(Op.RUN, sql, parameters);
    } finally {
      unlock();
    }
  }

  runOnWriter(sql: string, parameters: readonly unknown[]): Promise<Answer> {
    return this.writer.request(Op.RUN, sql, parameters);
  }

  private leastBusyReader(): SqliteThread {
    // Called only when there are readers (reduce throws on none).
    return this.readers.reduce((chosen, reader) => (reader.load < chosen.load ? reader : chosen));
  }
}

/**
 * What Kysely calls a connection: a transaction's hold on the writer (from beginTransaction to
 * releaseConnection), or, outside a transaction, a way to send single statements.
 */
class ThreadConnection implements DatabaseConnection {
  unlockWriter: (() => void) | null = null;

  constructor(private readonly driver: SqliteThreadsDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const answer = this.unlockWriter ? await this.driver.runOnWriter(query.sql, query.parameters) : await this.driver.runAlone(query.sql, query.parameters);
    return queryResult<R>(answer);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // Nothing of Parley's streams; whole results keep the protocol simple.
    const result = await this.executeQuery<R>(query);
    for (const row of result.rows) yield { rows: [row] };
  }

  release(): void {
    const unlock = this.unlockWriter;
    this.unlockWriter = null;
    unlock?.();
  }
}

function queryResult<R>(answer: Answer): QueryResult<R> {
  switch (answer[1]) {
    case Reply.ROWS:
      if (answer[3]) for (const row of answer[2]) for (const key in row) if (row[key] instanceof Uint8Array) row[key] = Buffer.from(row[key] as Uint8Array);
      return { rows: answer[2] as R[] };
    case Reply.CHANGES:
      return { numAffectedRows: BigInt(answer[2]), insertId: BigInt(answer[3]), rows: [] };
    case Reply.ERROR:
      throw new SqliteError(answer[2], answer[3]);
    default:
      throw new Error(`unexpected answer from the SQLite worker thread: ${answer[1]}`);
  }
}
