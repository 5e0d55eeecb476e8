import fs from "node:fs/promises";
import type SqliteDatabase from "better-sqlite3";
import type { DatabaseConnection, Dialect } from "kysely";

/**
 * synchronous=FULL's promise, kept without blocking the event loop: SQLite in process (connect.ts)
 * commits with synchronous=NORMAL, which writes the WAL but does not sync it, and whoever wrote is
 * answered only once the WAL is on disk, synced by libuv's thread pool (`fdatasync` of the -wal
 * file). With FULL, SQLite syncs inside COMMIT, on the event loop: ~4 ms each on this project's
 * machines, during which no long-poll was answered and no request read.
 *
 * A connection that wrote (a statement SQLite says can write: better-sqlite3's `readonly`) and is
 * no longer in a transaction waits for a sync when Kysely releases it: after the mutex that
 * serializes the connection's users is let go, so that others read and write meanwhile, and before
 * the caller gets its result. A transaction's COMMIT and an autocommitted statement are thus
 * acknowledged only once durable. Syncs do not overlap: requests made while one runs share the next.
 *
 * Group commit (db/groupCommit.ts) requests its batch's sync itself (deferToCaller): it releases
 * the batch's events at COMMIT, as reads see it then too, and answers its units once synced. Its
 * next batch waits for the sync, and the units queued meanwhile make it bigger; letting it run
 * during the sync made batches of one or two and a sync each (N = 50 job: 361–379 against ~500
 * messages/s).
 *
 * What this changes: other clients may see a commit (a read, an event) a few milliseconds before it
 * is on disk (with FULL, SQLite makes it visible after its sync). A power cut in between loses it,
 * as it loses anything not yet acknowledged, and the event queues too: clients register again and
 * see the state that survived. A killed process loses nothing (the OS has the pages).
 * SQLite's own guarantees for NORMAL stand: checkpoints sync the WAL before copying it and the
 * database file after, so the database is never corrupted.
 */
export function withWalSync<D extends Dialect>(dialect: D, sqlite: SqliteDatabase.Database, sync: WalSync): D {
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    let wrote = false;
    const watched = new WeakSet<DatabaseConnection>();
    const acquire = driver.acquireConnection.bind(driver);
    driver.acquireConnection = async () => {
      const connection = await acquire();
      if (!watched.has(connection)) {
        watched.add(connection);
        const executeQuery = connection.executeQuery.bind(connection);
        connection.executeQuery = (query) => {
          // Prepared statements are cached per text (sqliteConnection.ts): a lookup.
          if (!wrote && !sqlite.prepare(query.sql).readonly) wrote = true;
          return executeQuery(query);
        };
      }
      return connection;
    };
    const release = driver.releaseConnection.bind(driver);
    driver.releaseConnection = async (connection) => {
      await release(connection);
      if (sqlite.inTransaction) return;
      const deferred = sync.takeDeferral();
      if (wrote) {
        wrote = false;
        if (!deferred) await sync.request();
      }
    };
    const destroy = driver.destroy.bind(driver);
    driver.destroy = async () => {
      await sync.idle();
      await destroy();
      // After SQLite closed the database: nothing of ours stays open on its files meanwhile.
      await sync.close();
    };
    return driver;
  };
  return dialect;
}

/** Syncs one file, one sync at a time: a request made while a sync runs is answered by the next. */
export class WalSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private handle: Promise<fs.FileHandle> | undefined;
  private deferred = false;

  /** `datasync`: for tests; by default `fdatasync` of `file`, opened on first use. */
  constructor(
    private readonly file: string,
    private readonly datasync: () => Promise<void> = () => this.fdatasync(),
  ) {}

  /** Resolves once everything written to the file before this call is on disk. */
  request(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.request();
      });
    return this.next;
  }

  /**
   * Called inside a transaction, just before its COMMIT: its caller requests the sync itself
   * (db/groupCommit.ts releases the batch's events first, then answers its units once synced).
   */
  deferToCaller(): void {
    this.deferred = true;
  }

  /** Whether the transaction that just ended deferred its sync (and no longer). */
  takeDeferral(): boolean {
    const deferred = this.deferred;
    this.deferred = false;
    return deferred;
  }

  /** Resolves when no sync runs or waits. */
  async idle(): Promise<void> {
    while (this.running || this.next) await (this.next ?? this.running)?.catch(() => undefined);
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle.catch(() => null))?.close();
  }

  private start(): Promise<void> {
    const running: Promise<void> = this.datasync().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  private async fdatasync(): Promise<void> {
    // Read-only is enough to sync; the handle is never closed while SQLite has the file open.
    this.handle ??= fs.open(this.file, "r").catch((error: unknown) => {
      this.handle = undefined;
      throw error;
    });
    await (await this.handle).datasync();
  }
}
