import { type ChildProcess, execFile, spawn } from "node:child_process";
import { defined } from "../../src/util/defined.js";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll } from "vitest";
import { freshDatabase } from "./testDb.js";
import { basicAuth } from "./auth.js";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * `node` arguments that run the `parley` command: the bundle the suite's global setup built from
 * src/ (test/support/globalSetup.ts), which starts in a fraction of the time tsx takes.
 */
export const PARLEY_CLI = ["dist/cli.js"];

/** A free TCP port on 127.0.0.1 (bound and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  /** Its PARLEY_DATA_DIR. */
  dataDir: string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Starts `parley serve` as a separate process and waits until /health answers, or with `args`
 * another entry point (e.g. what `npm start` runs: scripts/start.mjs serve).
 */
export async function startServerProcess(env: Record<string, string>, args = [...PARLEY_CLI, "serve"]): Promise<ServerProcess> {
  // PARLEY_PORT in `env` keeps a port across restarts (browser tests); otherwise a free one.
  const port = env.PARLEY_PORT ? Number(env.PARLEY_PORT) : await freePort();
  let out = "";
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port), PARLEY_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  // Generous: a server starts slowly on a loaded machine (or one shared by several runs).
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/health`);
      if (res.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    baseUrl,
    dataDir: defined(env.PARLEY_DATA_DIR, "PARLEY_DATA_DIR"),
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The owner account a first start made: the email it printed, and the API key for the password it
 * wrote to the data directory (standard output is not a terminal here, so the output shows
 * neither secret), as a client gets it: `POST /api/v1/fetch_api_key`.
 */
export async function firstStartCredentials(server: {
  baseUrl: string;
  output: () => string;
  dataDir: string;
}): Promise<{ email: string; apiKey: string; password: string }> {
  const email = /email:\s+(\S+)/.exec(server.output())?.[1];
  if (!email) throw new Error(`no first start in the output:\n${server.output()}`);
  const password = fs.readFileSync(path.join(server.dataDir, "first-start-password"), "utf8").trim();
  const res = await fetch(`${server.baseUrl}/api/v1/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email, password }) });
  const body = await res.json();
  if (body.result !== "success") throw new Error(`fetch_api_key for ${email}: ${JSON.stringify(body)}`);
  return { email, apiKey: body.api_key, password };
}

/**
 * Calls the API of a server process as the given account: form-encoded bodies, query strings for
 * GET. `baseUrl` is read at each call, so the caller keeps working across a restart.
 */
export function apiCaller(baseUrl: () => string, credentials: { email: string; apiKey: string }) {
  const authorization = basicAuth(credentials.email, credentials.apiKey);
  return async (method: string, path: string, params: Record<string, string> = {}): Promise<{ status: number; body: any }> => {
    const query = method === "GET" ? "?" + new URLSearchParams(params).toString() : "";
    const res = await fetch(`${baseUrl()}/api/v1${path}${query}`, {
      method,
      headers: { Authorization: authorization },
      body: method === "GET" ? undefined : new URLSearchParams(params),
    });
    return { status: res.status, body: await res.json() };
  };
}

/**
 * Server processes for one test file: `freshEnv` makes a database and gives the environment a
 * server needs for it, `start` runs a server. After the file every server is stopped and every
 * database dropped, newest first (also what `onCleanup` adds).
 */
export function useServerProcesses() {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  return {
    async freshEnv(): Promise<Record<string, string>> {
      const db = await freshDatabase();
      cleanups.push(db.drop);
      return db.env;
    },
    async start(env: Record<string, string>): Promise<ServerProcess> {
      const server = await startServerProcess(env);
      cleanups.push(() => server.stop());
      return server;
    },
    onCleanup(fn: () => Promise<unknown>): void {
      cleanups.push(fn);
    },
  };
}

/** Runs `parley <args>` to its end with only `env`'s PARLEY_* settings. */
export function runParley(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
  return new Promise((resolve) => {
    execFile(process.execPath, [...PARLEY_CLI, ...args], { cwd: REPO_ROOT, env: { ...base, ...env }, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
