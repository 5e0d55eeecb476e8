import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { Config } from "../../src/config.js";

/**
 * Which engine this test run uses: SQLite unless PARLEY_TEST_DATABASE=postgres, in which case
 * PARLEY_TEST_POSTGRES_URL points at a server where we may create databases. Every test file
 * gets its own fresh database (file or CREATE DATABASE), migrated by the app itself.
 */
export const TEST_ENGINE: "sqlite" | "postgres" = process.env.PARLEY_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

let counter = 0;

export interface FreshDatabase {
  database: Config["database"];
  dataDir: string;
  /** What a `parley` process (test/support/process.ts) needs in its environment to use it. */
  env: Record<string, string>;
  drop: () => Promise<void>;
}

/**
 * A new, empty database for one test file (or process), or with `template` a copy of that one: for
 * SQLite a database file copied, for PostgreSQL `CREATE DATABASE … TEMPLATE` (see templateDb.ts).
 */
export async function freshDatabase(template?: string): Promise<FreshDatabase> {
  counter += 1;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-test-"));
  if (TEST_ENGINE === "sqlite") {
    if (template) fs.copyFileSync(template, path.join(dataDir, "test.sqlite3"));
    return {
      database: { kind: "sqlite", file: path.join(dataDir, "test.sqlite3"), synchronous: "NORMAL" },
      dataDir,
      env: { PARLEY_DATA_DIR: dataDir },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
  if (!adminUrl) throw new Error("PARLEY_TEST_DATABASE=postgres needs PARLEY_TEST_POSTGRES_URL");
  const name = `parley_test_${process.pid}_${counter}_${Date.now() % 100000}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    database: { kind: "postgres", url: url.toString() },
    dataDir,
    env: { PARLEY_DATA_DIR: dataDir, PARLEY_DATABASE_URL: url.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
