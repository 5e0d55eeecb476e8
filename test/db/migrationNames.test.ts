import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/connect.js";
import { appliedMigrations, FORMER_MIGRATION_NAMES, MIGRATIONS, migrateToLatest, runMigrations } from "../../src/db/migrate.js";
import { freshDatabase } from "../support/testDb.js";

/**
 * Twelve migrations landed under names carrying working tags ("-perf18-", "-i32-") and were
 * renamed (src/db/migrate.ts, FORMER_MIGRATION_NAMES). Databases record migrations by name: one
 * that an older version migrated under the former names must go on working, and keep them.
 */
const WORKING_TAG = /^\d{4}-\d\d-\d\dT\d{4}-[a-z]+\d+-/;
const formerNameOf = new Map(Object.entries(FORMER_MIGRATION_NAMES).map(([former, name]) => [name, former]));
/** The migrations as the older version listed them: the same modules under the former names. */
const FORMER = Object.fromEntries(Object.entries(MIGRATIONS).map(([name, migration]) => [formerNameOf.get(name) ?? name, migration]));
const names = Object.keys(MIGRATIONS);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emptyDatabase(): Promise<Db> {
  const fresh = await freshDatabase();
  cleanups.push(fresh.drop);
  const db = openDb(fresh.database);
  cleanups.push(() => db.close());
  return db;
}

/** The first `count` migrations, as the older version applied them. */
const olderVersion = (count: number) => Object.fromEntries(Object.entries(FORMER).slice(0, count));

describe("migration names", () => {
  it("carry no working tag, in MIGRATIONS and as files", () => {
    expect(names.filter((name) => WORKING_TAG.test(name))).toEqual([]);
    const files = fs
      .readdirSync(path.resolve(import.meta.dirname, "../../src/db/migrations"))
      .filter((file) => file.endsWith(".ts"))
      .map((file) => file.slice(0, -3))
      .sort();
    expect(files).toEqual([...names].sort());
    // Each former name is a tagged one, of a migration that exists, at the same place in the order.
    for (const [former, name] of Object.entries(FORMER_MIGRATION_NAMES)) {
      expect(former).toMatch(WORKING_TAG);
      expect(names).toContain(name);
      expect(former.slice(0, "2026-11-28T2200".length)).toBe(name.slice(0, "2026-11-28T2200".length));
    }
    expect(Object.keys(FORMER_MIGRATION_NAMES)).toHaveLength(12);
  });

  it("a database migrated by the older version under the former names has nothing pending and keeps its names", async () => {
    const db = await emptyDatabase();
    await runMigrations(db.kysely, db.dialect, olderVersion(names.length));
    const recorded = await appliedMigrations(db.kysely);
    expect(recorded.filter((name) => WORKING_TAG.test(name))).toHaveLength(12);
    expect(await migrateToLatest(db.kysely, db.dialect)).toEqual([]);
    expect(await appliedMigrations(db.kysely)).toEqual(recorded);
    // And the older version still opens it: the names it knows are all there.
    expect(await runMigrations(db.kysely, db.dialect, olderVersion(names.length))).toEqual([]);
  }, 60_000);

  it("a database the older version left half-way gets the rest under the new names", async () => {
    const db = await emptyDatabase();
    const done = names.indexOf("2026-11-27T0700-create-import-runs") + 1;
    await runMigrations(db.kysely, db.dialect, olderVersion(done));
    const before = await appliedMigrations(db.kysely);
    expect(before).toContain("2026-11-27T0700-import21-create-import-runs");
    const applied = await migrateToLatest(db.kysely, db.dialect);
    expect(applied).toEqual(names.slice(done));
    expect(applied).toContain("2026-11-28T0300-shard-channel-daily-messages");
    expect(await appliedMigrations(db.kysely)).toEqual([...before, ...names.slice(done)]);
    expect(await migrateToLatest(db.kysely, db.dialect)).toEqual([]);
  }, 60_000);

  it("a new database records the new names", async () => {
    const db = await emptyDatabase();
    expect(await migrateToLatest(db.kysely, db.dialect)).toEqual(names);
    expect(await appliedMigrations(db.kysely)).toEqual(names);
  }, 60_000);
});
