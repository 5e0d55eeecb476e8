import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { firstStartCredentials, type useServerProcesses } from "./process.js";

/** The NATS server and PostgreSQL of the multi-process tests (both needed; else they are skipped). */
export const NATS_URL = process.env.PARLEY_TEST_NATS_URL;
export const POSTGRES_URL = process.env.PARLEY_TEST_POSTGRES_URL;

/**
 * The environment of one multi-process cluster: a fresh PostgreSQL database (whatever engine
 * this run tests: these servers need PostgreSQL), a shared data directory and the NATS bus.
 * Both are removed after the file.
 */
export async function multiProcessEnv(servers: ReturnType<typeof useServerProcesses>): Promise<Record<string, string>> {
  const name = `parley_multi_${process.pid}_${Date.now() % 100000}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-multi-"));
  servers.onCleanup(async () => {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const url = new URL(POSTGRES_URL!);
  url.pathname = `/${name}`;
  return { PARLEY_DATA_DIR: dataDir, PARLEY_DATABASE_URL: url.toString(), PARLEY_BUS_URL: NATS_URL!, PARLEY_INSECURE_FAST_HASHING: "1" };
}

/**
 * Two server processes of one cluster (multiProcessEnv): A starts first and migrates the database,
 * then B joins; with the owner's credentials that A's first start printed.
 */
export async function twoProcesses(servers: ReturnType<typeof useServerProcesses>) {
  const env = await multiProcessEnv(servers);
  const a = await servers.start(env);
  const owner = await firstStartCredentials(a);
  const b = await servers.start(env);
  return { a, b, owner };
}

/**
 * `fn`'s value once `done` accepts it, or its last value after 3 s: the bus delivers a change after
 * the response that made it, so another process follows within moments (3 s on a loaded machine),
 * well before a cached copy would expire (30 s).
 */
export async function soon<T>(fn: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 3000;
  let last = await fn();
  while (!done(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    last = await fn();
  }
  return last;
}
