import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PARLEY_CLI, REPO_ROOT, freePort, startServerProcess, useServerProcesses } from "./support/process.js";

/**
 * One `parley serve` per SQLite file, with a lock the operating system drops when the process
 * dies (src/lib/serverLock.ts): a second server on the file refuses to start while the first
 * runs, also on a first start in a new data directory; a killed server's lock never stops the next
 * start, whatever became of its process id (a zombie its parent has not reaped, or another live
 * process that has the same id after a reboot or in a container).
 */
const servers = useServerProcesses();

/** The environment of a server on SQLite in `dataDir` (also when the run's engine is PostgreSQL). */
function sqliteEnv(dataDir: string): Record<string, string> {
  return { PARLEY_DATA_DIR: dataDir, PARLEY_INSECURE_FAST_HASHING: "1" };
}

function newDataDir(): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "parley-lock-"));
  servers.onCleanup(async () => fs.rmSync(parent, { recursive: true, force: true }));
  return path.join(parent, "data");
}

const REFUSAL = /Another Parley server( \(process \d+\))? is already serving \S*parley\.sqlite3\. A database file serves one process/;

/** Starts a server expected to refuse; its error output. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  return startServerProcess(env).then(
    async (server) => {
      await server.stop();
      return "started";
    },
    (error: Error) => error.message,
  );
}

/**
 * `parley serve` under a parent that never reaps its children, as in a container whose first
 * process is a shell: once killed, the server stays a zombie, its process id still in use.
 */
async function startUnderNonReapingParent(env: Record<string, string>): Promise<{ serverPid: number; kill: () => void }> {
  const port = await freePort();
  const command = `${process.execPath} ${PARLEY_CLI.join(" ")} serve & echo "server $!"; exec sleep 600`;
  const parent = spawn("sh", ["-c", command], {
    cwd: REPO_ROOT,
    env: { ...process.env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port), PARLEY_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.onCleanup(async () => void parent.kill("SIGKILL"));
  let out = "";
  parent.stdout!.on("data", (d) => (out += d));
  parent.stderr!.on("data", (d) => (out += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || parent.exitCode !== null) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const serverPid = Number(/server (\d+)/.exec(out)![1]);
  const kill = () => {
    try {
      process.kill(serverPid, "SIGKILL");
    } catch {
      // gone already
    }
  };
  servers.onCleanup(async () => kill());
  return { serverPid, kill };
}

describe("one server per SQLite file", () => {
  it("refuses a second server on the same file while the first runs, naming its process, and starts once it stopped", async () => {
    const env = sqliteEnv(newDataDir());
    const first = await servers.start(env);
    const second = await refusedStart(env);
    expect(second).toMatch(REFUSAL);
    expect(second).toContain(`(process ${first.child.pid})`);
    expect(second).not.toContain("delete");
    expect(await first.stop()).toBe(0);
    const third = await servers.start(env);
    expect((await fetch(`${third.baseUrl}/health`)).status).toBe(200);
  }, 90_000);

  it("holds the lock from a first start in a data directory that does not exist yet", async () => {
    const env = sqliteEnv(newDataDir());
    const first = await servers.start(env);
    expect(first.output()).toContain("Created the organization");
    expect(await refusedStart(env)).toMatch(REFUSAL);

    // Two first starts at once in another new directory: one serves, the other refuses.
    const bothEnv = sqliteEnv(newDataDir());
    const both = await Promise.allSettled([startServerProcess(bothEnv), startServerProcess(bothEnv)]);
    for (const result of both) if (result.status === "fulfilled") servers.onCleanup(() => result.value.stop());
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((both.find((r) => r.status === "rejected") as PromiseRejectedResult).reason.message).toMatch(REFUSAL);
  }, 120_000);

  it("starts although the lock file names a live process (an earlier server's id, now another process's)", async () => {
    const dataDir = newDataDir();
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, "parley.sqlite3.server-lock"), `${process.pid}\n`);
    const server = await servers.start(sqliteEnv(dataDir));
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    expect(await refusedStart(sqliteEnv(dataDir))).toContain(`(process ${server.child.pid})`);
  }, 90_000);

  it("starts at once after kill -9, also while the killed server is an unreaped zombie", async () => {
    const env = sqliteEnv(newDataDir());
    let running = await startUnderNonReapingParent(env);
    for (let round = 0; round < 3; round++) {
      running.kill();
      running = await startUnderNonReapingParent(env);
    }
    running.kill();
    // And a server started the ordinary way, killed, and started again at once.
    const plain = await startServerProcess(env);
    plain.child.kill("SIGKILL");
    const next = await servers.start(env);
    expect((await fetch(`${next.baseUrl}/health`)).status).toBe(200);
    await plain.stop();
  }, 180_000);
});
