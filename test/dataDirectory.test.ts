import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess } from "./support/process.js";

/** Issue 17: the data directory holds API keys, password hashes and messages. */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe.skipIf(process.env.PARLEY_TEST_DATABASE === "postgres")("data directory permissions (SQLite)", () => {
  it("creates the data directory 0700 and the database 0600, and warns at start about files others can read", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "parley-perms-"));
    dirs.push(parent);
    const dataDir = path.join(parent, "data");
    const env = { PARLEY_DATA_DIR: dataDir, PARLEY_INSECURE_FAST_HASHING: "1" };
    const first = await startServerProcess(env);
    expect(await first.stop()).toBe(0);
    const database = path.join(dataDir, "parley.sqlite3");
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(database)).toBe(0o600);
    for (const suffix of ["-wal", "-shm"]) {
      if (fs.existsSync(database + suffix)) expect(modeOf(database + suffix)).toBe(0o600);
    }
    expect(first.output()).not.toContain("Other users of this machine");

    // As an older Parley (or a careless copy) left them: readable by everyone.
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(database, 0o644);
    const second = await startServerProcess(env);
    await second.stop();
    const warnings = second
      .output()
      .split("\n")
      .filter((line) => line.includes("Other users of this machine"))
      .map((line) => JSON.parse(line));
    expect(warnings.map((w) => [w.path, w.mode, w.level])).toEqual(
      expect.arrayContaining([
        [dataDir, "0755", 40],
        [database, "0644", 40],
      ]),
    );
  }, 60_000);
});
