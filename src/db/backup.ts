import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import type { Config } from "../config.js";
import { type Db, checkReachable } from "./connect.js";

/**
 * The database half of `parley backup` / `parley restore` (src/cli/backup.ts does the archive and
 * the data directory). SQLite: `VACUUM INTO`, a consistent copy made in one read transaction
 * while the server goes on writing (WAL). PostgreSQL: pg_dump's custom format, restored by
 * pg_restore in one transaction. A backup is restored into the engine it was made from.
 */
const run = promisify(execFile);

/** The name of the database file inside a backup, per engine. */
function dumpName(database: Config["database"]): string {
  return database.kind === "sqlite" ? "database.sqlite3" : "database.pgdump";
}

/** Writes a consistent copy of the database into `dir`; returns the file name used. */
export async function dumpDatabase(database: Config["database"], db: Db, dir: string): Promise<string> {
  const name = dumpName(database);
  const target = path.join(dir, name);
  if (database.kind === "sqlite") {
    await sql`vacuum into ${sql.lit(target)}`.execute(db.kysely);
  } else {
    await runTool("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--file=${target}`, `--dbname=${database.url}`]);
  }
  return name;
}

/** Loads the copy in `dir` into the (empty) configured database. */
export async function loadDatabase(database: Config["database"], dir: string): Promise<void> {
  const source = path.join(dir, dumpName(database));
  if (!fs.existsSync(source)) {
    const other = database.kind === "sqlite" ? "PostgreSQL" : "SQLite";
    throw new Error(
      `this backup holds a ${other} database, but the configured database is ${database.kind === "sqlite" ? "SQLite" : "PostgreSQL"}: restore it into the same engine`,
    );
  }
  if (database.kind === "sqlite") {
    fs.mkdirSync(path.dirname(database.file), { recursive: true });
    fs.copyFileSync(source, database.file, fs.constants.COPYFILE_EXCL);
  } else {
    await runTool("pg_restore", ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", `--dbname=${database.url}`, source]);
  }
}

/** Whether the configured database holds nothing yet (no file, or no tables). */
export async function databaseIsEmpty(database: Config["database"], db: () => Db, timeoutSeconds: number): Promise<boolean> {
  if (database.kind === "sqlite") return !fs.existsSync(database.file) || fs.statSync(database.file).size === 0;
  const opened = db();
  try {
    await checkReachable(opened, database, timeoutSeconds);
    return (await opened.kysely.introspection.getTables({ withInternalKyselyTables: true })).length === 0;
  } finally {
    await opened.close();
  }
}

/** The files of the SQLite database in the data directory, which the data copy leaves out. */
export function databaseFiles(database: Config["database"]): string[] {
  // The running server's lock (lib/serverLock.ts, an SQLite file with its own journal) is no part of a backup.
  if (database.kind !== "sqlite") return [];
  const lock = `${database.file}.server-lock`;
  return [database.file, `${database.file}-wal`, `${database.file}-shm`, `${database.file}-journal`, lock, `${lock}-journal`];
}

async function runTool(tool: string, args: string[]): Promise<void> {
  try {
    await run(tool, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT")
      throw new Error(`${tool} is not installed (it comes with PostgreSQL's client tools); it is needed to back up and restore a PostgreSQL database`, {
        cause: error,
      });
    throw new Error(`${tool} failed: ${(e.stderr ?? e.message).trim()}`, { cause: error });
  }
}
