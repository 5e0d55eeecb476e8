// Shared pieces of the benchmark scripts (scripts/bench*.mjs): starting a Parley process, a small
// keep-alive HTTP client, and the figures' arithmetic.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");

/** Wall-clock milliseconds with sub-millisecond precision, comparable between processes. */
export const nowMs = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How a PostgreSQL URL reaches its server, for the reports: "its Unix socket (…)" or "TCP (host:port)". */
export function postgresTransport(url) {
  const parsed = new URL(url);
  const host = parsed.searchParams.get("host") ?? decodeURIComponent(parsed.hostname);
  return host.startsWith("/") ? `its Unix socket (${host})` : `TCP (${host}:${parsed.port || 5432})`;
}

export function progress(text) {
  process.stderr.write(`\r\x1b[K${text}`);
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
}

/** CPU time (user + system) the process has used so far, in ms (Linux, 100 ticks/s). */
export function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time the whole machine has been busy so far, all cores summed, in ms (Linux /proc/stat: user,
 * nice, system, irq and softirq; 100 ticks/s): a job's every process (server, members, sender,
 * database) and whatever else runs beside it. Not steal: time a virtual machine's host gave away.
 */
export function machineBusyMs() {
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq] = fields;
  return (user + nice + system + irq + softirq) * 10;
}

/**
 * CPU time of the process's main thread (its event loop) so far, in ms: without its worker threads
 * (SQLite's, src/db/sqliteThreads.ts), the thread pool and V8's helpers.
 */
export function mainThreadCpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * How `npm start` launches the server in the checkout `root`: the environment defaults and node
 * options of package.json's "start" script (`NAME=${NAME:-value} … exec node <options> scripts/start.mjs`).
 * Read from the checkout being run, so that a baseline build is measured as it launches itself.
 */
export function serverLaunch(root) {
  const script = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
  const env = {};
  for (const [, name, value] of script.matchAll(/\b([A-Z_]+)=\$\{\1:-([^}]*)\}/g)) env[name] = value;
  const options = /\bexec node((?: --?[\w-]+(?:=\S+)?)*) scripts\/start\.mjs\b/.exec(script);
  if (!options) throw new Error(`package.json's start script is not "… exec node [options] scripts/start.mjs …": ${script}`);
  return { env, nodeArgs: options[1].split(" ").filter(Boolean) };
}

/**
 * Spawns `parley serve` (as `npm start` does: its environment defaults and node options, see
 * serverLaunch) with `env`; resolves once /health answers, with the time that took.
 * PARLEY_BENCH_NODE_ARGS adds node options to the server (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
 * PARLEY_BENCH_SERVER runs another build instead (a copy of dist/cli.js, to compare two builds
 * alternately: scripts/start.mjs would rebuild dist/ from the working tree); it is launched as its
 * own checkout's package.json says.
 */
export async function startServer(env) {
  const port = await freePort();
  const started = performance.now();
  // What `npm start` runs: the precompiled bundle (scripts/start.mjs; bench.mjs builds it first).
  const entry = process.env.PARLEY_BENCH_SERVER ?? "scripts/start.mjs";
  const launch = serverLaunch(process.env.PARLEY_BENCH_SERVER ? path.resolve(path.dirname(entry), "..") : ROOT);
  const nodeArgs = [...launch.nodeArgs, ...(process.env.PARLEY_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, entry, "serve"], {
    cwd: ROOT,
    env: {
      ...launch.env,
      ...process.env,
      PARLEY_HOST: "127.0.0.1",
      PARLEY_PORT: String(port),
      PARLEY_LOG_LEVEL: "error",
      PARLEY_RATE_LIMITS: "0",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(child, base);
  return { child, base, startMs: performance.now() - started };
}

/** Resolves once `base`/health answers; throws if `child` exits first. */
export async function waitForHealth(child, base) {
  for (;;) {
    if (child.exitCode !== null) throw new Error("server exited during start");
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
}

export async function stopServer(server) {
  if (server.child.exitCode !== null) return;
  server.child.kill("SIGTERM");
  await new Promise((r) => server.child.once("exit", r));
}

// One keep-alive connection per concurrent request (each waiting poll holds one).
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

export function request(method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { ...headers, "Content-Length": Buffer.byteLength(body) } : headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString()));
        } catch (error) {
          reject(error);
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A Zulip API client for one user (HTTP basic auth with the API key). */
export class Client {
  constructor(base, email, apiKey) {
    this.base = base;
    this.email = email;
    this.apiKey = apiKey;
    this.auth = "Basic " + Buffer.from(`${email}:${apiKey}`).toString("base64");
  }
  async call(method, urlPath, params = {}) {
    const body = new URLSearchParams(params);
    const url = method === "GET" ? `${this.base}/api/v1${urlPath}?${body}` : `${this.base}/api/v1${urlPath}`;
    const headers = { Authorization: this.auth, ...(method === "GET" ? {} : { "Content-Type": "application/x-www-form-urlencoded" }) };
    const json = await request(method, url, headers, method === "GET" ? undefined : body.toString());
    if (json.result !== "success") throw new Error(`${method} ${urlPath}: ${json.msg}`);
    return json;
  }
}

/** The active human members of the channel named `channel` (user objects of GET /users), as hamlet sees them. */
export async function channelMemberUsers(base, channel) {
  const hamlet = await devClient(base, "hamlet@zulip.com");
  const id = (await hamlet.call("GET", "/streams")).streams.find((s) => s.name === channel).stream_id;
  const ids = new Set((await hamlet.call("GET", `/streams/${id}/members`)).subscribers);
  return (await hamlet.call("GET", "/users")).members.filter((u) => ids.has(u.user_id) && u.is_active && !u.is_bot);
}

/** Development-mode login (PARLEY_DEV=1): the API key of `email`. */
export async function devClient(base, email) {
  const json = await request(
    "POST",
    `${base}/api/v1/dev_fetch_api_key`,
    { "Content-Type": "application/x-www-form-urlencoded" },
    new URLSearchParams({ username: email }).toString(),
  );
  if (json.result !== "success") throw new Error(`dev_fetch_api_key ${email}: ${json.msg}`);
  return new Client(base, email, json.api_key);
}

/**
 * GET `url` one request at a time for `seconds`: successful requests/s and their latency
 * percentiles (ms, sub-ms precision). A failed request is counted in `errors`, never a sample.
 */
export async function sequentialLatency(client, urlPath, seconds) {
  const times = [];
  const until = performance.now() + seconds * 1000;
  let errors = 0;
  while (performance.now() < until) {
    const started = performance.now();
    try {
      await client.call("GET", urlPath.split("?")[0], Object.fromEntries(new URLSearchParams(urlPath.split("?")[1] ?? "")));
    } catch {
      errors += 1;
      continue;
    }
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { rps: times.length / seconds, p50: percentile(times, 50), p99: percentile(times, 99), errors };
}

/**
 * Throughput counts successful (2xx) responses only. autocannon's latency figures include every
 * response, so a run with errors is marked wherever it is shown (errors > 0).
 */
export function autocannonFigures(r) {
  return { rps: r["2xx"] / r.duration, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}
