import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { createContext } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { seedTestRealm } from "./seed.js";
import { TEST_ENGINE } from "./testDb.js";

/**
 * The database every TestServer starts from: migrated and seeded with the test realm once per run
 * (vitest's global setup), then copied for each test file — a file copy on SQLite, `CREATE DATABASE
 * … TEMPLATE` on PostgreSQL — instead of running every migration and the seed again per file.
 * Built afresh each run, so the seed's timestamps are minutes old, never days.
 */
export async function buildTemplateDatabase(): Promise<{ template: string; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-template-"));
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
  const name = `parley_template_${process.pid}_${Date.now() % 100000}`;
  let database;
  if (TEST_ENGINE === "sqlite") {
    database = { kind: "sqlite" as const, file: path.join(dataDir, "template.sqlite3"), synchronous: "NORMAL" as const };
  } else {
    if (!adminUrl) throw new Error("PARLEY_TEST_DATABASE=postgres needs PARLEY_TEST_POSTGRES_URL");
    await adminQuery(adminUrl, `create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    database = { kind: "postgres" as const, url: url.toString() };
  }
  const config = { ...loadConfig({ PARLEY_INSECURE_FAST_HASHING: "1", PARLEY_LOG_LEVEL: "silent" }), database, dataDir, externalUrl: "http://localhost:9991" };
  const ctx = await createContext(config, pino({ level: "silent" }));
  await seedTestRealm(ctx);
  ctx.eventQueues.detach();
  await ctx.db.close();
  if (TEST_ENGINE === "sqlite") {
    return { template: database.file as string, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  return {
    template: name,
    drop: async () => {
      await adminQuery(adminUrl!, `drop database if exists ${name} with (force)`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
