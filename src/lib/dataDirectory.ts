import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.js";
import { localDatabaseFiles } from "../db/connect.js";

/**
 * The data directory holds the embedded database (API keys, password hashes, messages), the server
 * secret, uploads and the email outbox: only the server's own account may read it. Parley creates
 * the directory 0700 and the database 0600 (SQLite gives its -wal and -shm files the database
 * file's mode), and warns at start about whatever others can read.
 */
export function prepareDataDirectory(config: Config): void {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const [file] = localDatabaseFiles(config.database);
  if (file) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Created empty with owner-only rights before the engine opens it; an existing file is left as is.
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_WRONLY, 0o600));
  }
}

/** The data directory and database files that users other than the owner can read or write. */
export function exposedDataFiles(config: Config): Array<{ path: string; mode: string }> {
  const files = localDatabaseFiles(config.database);
  const candidates = [config.dataDir, path.join(config.dataDir, "server-secret"), ...files.slice(0, 1).map((f) => path.dirname(f)), ...files];
  const exposed: Array<{ path: string; mode: string }> = [];
  for (const file of new Set(candidates)) {
    let mode: number;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) exposed.push({ path: file, mode: mode.toString(8).padStart(4, "0") });
  }
  return exposed;
}
