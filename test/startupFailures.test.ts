import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { openDb } from "../src/db/connect.js";
import { runMigrations } from "../src/db/migrate.js";
import { freePort, runParley } from "./support/process.js";
import { freshDatabase } from "./support/testDb.js";

/**
 * What an operator sees when the start cannot work: one message naming the setting at fault and
 * exit code 1, never a hang, a stack trace, or a silent default.
 */
const cleanups: Array<() => Promise<unknown> | void> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-fail-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function expectCleanFailure(result: { code: number; stdout: string; stderr: string }, message: string | RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe("a start that cannot work stops with a message", () => {
  it("times out on a database that accepts connections but never answers, naming PARLEY_DATABASE_URL", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      silent.close();
    });
    const port = (silent.address() as net.AddressInfo).port;
    const started = Date.now();
    const result = await runParley(["serve"], {
      PARLEY_DATA_DIR: tempDir(),
      PARLEY_DATABASE_URL: `postgres://parley:secret@127.0.0.1:${port}/parley`,
      PARLEY_DATABASE_TIMEOUT_SECONDS: "1",
    });
    expectCleanFailure(result, `Cannot use the database at PARLEY_DATABASE_URL (postgres://parley:***@127.0.0.1:${port}/parley): no answer within 1 seconds`);
    expect(result.stderr).not.toContain("secret");
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(sockets.length).toBeGreaterThan(0);
  }, 90_000);

  it("reports a refused connection as such", async () => {
    const port = await freePort();
    const result = await runParley(["serve"], { PARLEY_DATA_DIR: tempDir(), PARLEY_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/parley` });
    expectCleanFailure(result, `Cannot use the database at PARLEY_DATABASE_URL (postgres://postgres@127.0.0.1:${port}/parley): connection refused`);
    expect(result.stderr).not.toContain("Migration");
  }, 90_000);

  it("names a data directory it cannot write to", async () => {
    const file = path.join(tempDir(), "a-file");
    fs.writeFileSync(file, "");
    const dataDir = path.join(file, "data");
    const result = await runParley(["serve"], { PARLEY_DATA_DIR: dataDir });
    expectCleanFailure(result, `PARLEY_DATA_DIR: cannot write to ${dataDir}`);
  }, 90_000);

  it("names the port settings when the port is in use", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => void taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    const result = await runParley(["serve"], { PARLEY_DATA_DIR: tempDir(), PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port) });
    expectCleanFailure(result, `PARLEY_HOST/PARLEY_PORT: 127.0.0.1:${port} is in use by another process`);
    const metrics = await runParley(["serve"], {
      PARLEY_DATA_DIR: tempDir(),
      PARLEY_HOST: "127.0.0.1",
      PARLEY_PORT: String(await freePort()),
      PARLEY_METRICS_PORT: String(port),
    });
    expectCleanFailure(metrics, `PARLEY_METRICS_HOST/PARLEY_METRICS_PORT: 127.0.0.1:${port} is in use by another process`);
  }, 90_000);

  it("refuses an empty variable instead of using its default", async () => {
    const result = await runParley(["serve"], { PARLEY_DATA_DIR: tempDir(), PARLEY_PORT: "" });
    expectCleanFailure(result, "PARLEY_PORT: is set but empty (unset it to use the default)");
  }, 90_000);

  it("refuses partial push settings and a missing key file", async () => {
    const bouncer = await runParley(["serve"], { PARLEY_DATA_DIR: tempDir(), PARLEY_PUSH_BOUNCER_URL: "https://push.zulipchat.com" });
    expectCleanFailure(bouncer, "PARLEY_PUSH_BOUNCER_URL is set, so PARLEY_PUSH_ORG_ID, PARLEY_PUSH_ORG_KEY must be set too");
    const fcm = await runParley(["serve"], { PARLEY_DATA_DIR: tempDir(), PARLEY_FCM_CREDENTIALS_FILE: "/nonexistent/fcm.json" });
    expectCleanFailure(fcm, "PARLEY_FCM_CREDENTIALS_FILE: cannot read /nonexistent/fcm.json");
  }, 90_000);
});

describe("migrations", () => {
  it("refuses a database migrated by a newer version of Parley", async () => {
    const fresh = await freshDatabase();
    cleanups.push(fresh.drop);
    expect((await runParley(["migrate"], fresh.env)).code).toBe(0);
    const db = openDb(loadConfig(fresh.env).database);
    await db.kysely
      .insertInto("parley_migrations" as any)
      .values({ name: "2099-01-01T0000-from-the-future", timestamp: new Date().toISOString() })
      .execute();
    await db.close();
    for (const command of ["serve", "migrate"]) {
      const result = await runParley([command], fresh.env);
      expectCleanFailure(
        result,
        /This database was upgraded by a newer version of Parley: it has migrations this version does not know \(2099-01-01T0000-from-the-future\)/,
      );
    }
  }, 180_000);

  it("applies pending migrations in one transaction: a failure leaves the database as it was", async () => {
    const fresh = await freshDatabase();
    cleanups.push(fresh.drop);
    const db = openDb(fresh.database);
    cleanups.push(() => db.close());
    const tables = async () => (await db.kysely.introspection.getTables()).map((t) => t.name).filter((n) => n.startsWith("probe_"));
    await expect(
      runMigrations(db.kysely, db.dialect, {
        "2000-01-01T0000-first": { up: async (k) => void (await k.schema.createTable("probe_first").addColumn("id", "integer").execute()) },
        "2000-01-01T0001-second": {
          up: async (k) => {
            await k.schema.createTable("probe_second").addColumn("id", "integer").execute();
            await sql`select * from no_such_table`.execute(k);
          },
        },
      }),
    ).rejects.toThrow(/Migration 2000-01-01T0001-second failed/);
    expect(await tables()).toEqual([]);
    const applied = await db.kysely
      .selectFrom("parley_migrations" as any)
      .select("name")
      .execute();
    expect(applied).toEqual([]);
  }, 90_000);
});
