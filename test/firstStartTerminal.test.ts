import { spawn, spawnSync } from "node:child_process";
import { defined } from "../src/util/defined.js";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PARLEY_CLI, REPO_ROOT, freePort, useServerProcesses } from "./support/process.js";

/**
 * On a terminal the first start shows the generated password itself (and writes no file); the
 * other case, standard output not a terminal, is in firstStart.test.ts. The terminal is a
 * pseudo-terminal from util-linux's `script`.
 */
const servers = useServerProcesses();
const hasScript = spawnSync("sh", ["-c", "command -v script"]).status === 0;

describe.skipIf(!hasScript)("first start on a terminal", () => {
  it("shows the generated password and writes no password file", async () => {
    const env = await servers.freshEnv();
    const port = await freePort();
    const command = `${process.execPath} ${PARLEY_CLI.join(" ")} serve`;
    const child = spawn("script", ["-qefc", command, "/dev/null"], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port), PARLEY_LOG_LEVEL: "warn" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    servers.onCleanup(async () => {
      if (child.exitCode === null) {
        process.kill(-child.pid!, "SIGTERM");
        await exited;
      }
    });
    const deadline = Date.now() + 30_000;
    while (!out.includes("API key:")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no credentials shown:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(out).toMatch(/password: \S{12,}\r?\n/);
    expect(out).toMatch(/API key: +[A-Za-z0-9]{32}\r?\n/);
    expect(out).not.toContain("written to");
    expect(fs.existsSync(path.join(defined(env.PARLEY_DATA_DIR, "PARLEY_DATA_DIR"), "first-start-password"))).toBe(false);
  }, 60_000);
});
