import fs from "node:fs";
import { type Config, ConfigError } from "../config.js";
import { serverLockFile } from "../db/connect.js";

/**
 * One server process per database file (the embedded engine): `parley serve` holds `<database file>.server-lock`, which
 * names its process id, from start to stop. A second server on the same file refuses to start
 * (its events would not reach the first one's clients, and SQLite serves one writer). A lock
 * whose process is gone (killed, machine restarted) is taken over. CLI commands (`parley users`
 * and the like) do not take it and keep working beside a running server.
 */
export function acquireServerLock(database: Config["database"]): () => void {
  const lockFile = serverLockFile(database);
  if (lockFile === null) return () => {};
  const databaseFile = lockFile.slice(0, -".server-lock".length);
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A directory that cannot hold the lock cannot hold the database either: opening it reports that.
      if (code !== "EEXIST") return () => {};
      if (attempt > 0) throw error;
      const holder = Number(fs.readFileSync(lockFile, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new ConfigError(
          `Another Parley server (process ${holder}) is already serving ${databaseFile}. A database file serves one process: ` +
            `stop that one first, or run several processes on a database server with PARLEY_BUS_URL (docs/deployment.md). ` +
            `If no such server runs, delete ${lockFile}.`,
        );
      }
      fs.rmSync(lockFile, { force: true });
    }
  }
  return () => {
    try {
      if (fs.readFileSync(lockFile, "utf8").trim() === String(process.pid)) fs.rmSync(lockFile, { force: true });
    } catch {
      // already gone
    }
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
