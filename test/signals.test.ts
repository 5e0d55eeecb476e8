import { spawn } from "node:child_process";
import { defined } from "../src/util/defined.js";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, apiCaller, firstStartCredentials, freePort, useServerProcesses } from "./support/process.js";

/**
 * `npm start` is npm running a shell running node. SIGTERM to npm (what a service manager or
 * `kill` sends) must stop the server gracefully, saving its event queues, and leave no process
 * behind still answering on the port.
 */
const servers = useServerProcesses();

/** Every process below `pid`, from /proc (Linux). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Still one of this test's processes (not a reused process id): running in this repository. */
function ours(pid: number): boolean {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`) === REPO_ROOT;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("npm start and signals", () => {
  it("SIGTERM to npm stops the server gracefully (queues saved) and leaves no process behind", async () => {
    const env = await servers.freshEnv();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    let out = "";
    const npm = spawn("npm", ["start"], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port), PARLEY_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    npm.stdout!.on("data", (d) => (out += d));
    npm.stderr!.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
    // Whatever happens, no process of this test outlives it (an orphan is reparented away from npm).
    const seen = new Set<number>();
    servers.onCleanup(async () => {
      for (const pid of [...seen, ...descendants(npm.pid!)]) if (alive(pid) && ours(pid)) process.kill(pid, "SIGKILL");
      if (npm.exitCode === null) npm.kill("SIGKILL");
    });
    await waitFor(
      "the server",
      async () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
        return fetch(`${baseUrl}/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      60_000,
    );
    const api = apiCaller(() => baseUrl, await firstStartCredentials({ baseUrl, output: () => out, dataDir: defined(env.PARLEY_DATA_DIR, "PARLEY_DATA_DIR") }));
    expect((await api("POST", "/register", { event_types: JSON.stringify(["message"]) })).body.result).toBe("success");

    const processes = descendants(npm.pid!);
    for (const pid of processes) seen.add(pid);
    expect(processes.length).toBeGreaterThan(0);
    npm.kill("SIGTERM");
    await exited;
    await waitFor("every process of npm start to exit", () => processes.every((pid) => !alive(pid)));
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
    const stopped = out.split("\n").find((line) => line.includes('"Parley stopped"'));
    expect(stopped, out).toBeDefined();
    expect(JSON.parse(stopped!).savedQueues).toBe(1);
  }, 90_000);
});
