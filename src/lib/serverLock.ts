import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { type Config, ConfigError } from "../config.js";
import { serverLockFile } from "../db/connect.js";
import { errorText } from "../db/health.js";

/**
 * One server process per database file (the embedded engine): a second server on the same file
 * refuses to start (its events would not reach the first one's clients, and SQLite serves one
 * writer). `parley serve` holds `<database file>.server-lock`, a small SQLite database of its own,
 * from start to stop: a write transaction (`BEGIN IMMEDIATE`) kept open on a connection of its own.
 * That is SQLite's lock, an fcntl lock on the open file, which the operating system drops when the
 * process ends however it ends (`kill -9`, a crash, a reboot): a restart never finds a stale lock
 * nor needs a person to delete a file. The file also names the holder's process id, read for the
 * message only (a process id outlives its process as a zombie, and another process can reuse it).
 *
 * The file stays when the server stops: deleting a lock file races with a process opening it.
 * Nothing else in the server process may open it (closing any descriptor of a file drops the
 * process's fcntl locks on it). CLI commands (`parley users`, `parley backup` and the like) do not
 * take it and keep working beside a running server.
 */
export function acquireServerLock(database: Config["database"]): () => void {
  const lockFile = serverLockFile(database);
  if (lockFile === null) return () => {};
  const databaseFile = lockFile.slice(0, -".server-lock".length);
  let lock: SqliteDatabase.Database;
  try {
    lock = holdLock(lockFile);
  } catch (error) {
    if (!(error instanceof HeldElsewhere)) throw new ConfigError(`Cannot take the server lock ${lockFile}: ${errorText(error)}`);
    throw new ConfigError(
      `Another Parley server${error.holder ? ` (process ${error.holder})` : ""} is already serving ${databaseFile}. A database file serves one process: ` +
        `stop that one first, or run several processes on a database server with PARLEY_BUS_URL (docs/deployment.md).`,
    );
  }
  return () => {
    if (lock.open) lock.close();
  };
}

class HeldElsewhere extends Error {
  constructor(readonly holder: number | null) {
    super("held by another process");
  }
}

/** Takes the lock and returns the connection that holds it, or throws HeldElsewhere. */
function holdLock(lockFile: string): SqliteDatabase.Database {
  for (let attempt = 0; ; attempt++) {
    fs.mkdirSync(path.dirname(lockFile), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(lockFile, fs.constants.O_CREAT | fs.constants.O_WRONLY, 0o600));
    // No busy timeout: a lock held elsewhere is reported at once.
    const lock = new SqliteDatabase(lockFile, { timeout: 0 });
    try {
      lock.exec("begin immediate");
      // Readers of the process id hold a shared lock for a moment: the commit waits for them.
      lock.pragma("busy_timeout = 2000");
      lock.exec("create table if not exists holder (pid integer not null)");
      lock.exec("delete from holder");
      lock.prepare("insert into holder (pid) values (?)").run(process.pid);
      lock.exec("commit");
      // Held from here on. Another start that took the lock between the commit and this one wins.
      lock.pragma("busy_timeout = 0");
      lock.exec("begin immediate");
      return lock;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "SQLITE_BUSY") {
        const holder = holderOf(lock);
        lock.close();
        throw new HeldElsewhere(holder);
      }
      lock.close();
      // Not an SQLite database: an earlier version's lock file (a process id as text), or a file
      // damaged by a power loss. Nobody can hold an SQLite lock on it: it is emptied and taken.
      if ((code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") && attempt === 0) {
        fs.truncateSync(lockFile);
        continue;
      }
      throw error;
    }
  }
}

/** The process id the holder wrote, when it can be read (the holder may be writing it right now). */
function holderOf(lock: SqliteDatabase.Database): number | null {
  try {
    if (lock.inTransaction) lock.exec("rollback");
    lock.pragma("busy_timeout = 500");
    const row = lock.prepare("select pid from holder").get() as { pid: number } | undefined;
    return row?.pid ?? null;
  } catch {
    return null;
  }
}
