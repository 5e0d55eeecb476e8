#!/usr/bin/env node
// `npm run bench`: starts Parley as a separate process on each database engine (SQLite always;
// PostgreSQL when PARLEY_TEST_POSTGRES_URL is set), loads it over real HTTP from another process
// (autocannon), and writes docs/benchmarks.md. Each figure is also given as a ratio to limits
// measured in the same run: the server's cheapest authenticated endpoint, and a raw one-row
// insert transaction with the same durability settings.
//
// Then it builds a large organization (scripts/bench-org.ts: 1,000 users, 100 channels,
// --messages N messages, default 1,000,000) and measures sending and fetching on it.
//
// Options: --seconds N (per scenario, default 5), --connections N (default 20), --messages N,
// --no-write.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { measureEvents } from "./bench-events.mjs";

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    messages: { type: "string", default: "1000000" },
    connections: { type: "string", default: "20" },
    "no-write": { type: "boolean", default: false },
  },
});
const SECONDS = Number(opts.seconds);
const CONNECTIONS = Number(opts.connections);
const ROOT = path.resolve(import.meta.dirname, "..");

function progress(text) {
  process.stderr.write(`\r\x1b[K${text}`);
}

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function rssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

async function startServer(env) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port), PARLEY_LOG_LEVEL: "error", PARLEY_RATE_LIMITS: "0", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error("server exited during start");
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, base, startMs: performance.now() - started };
}

function autocannon(args) {
  const out = execFileSync(process.execPath, [path.join(ROOT, "node_modules/autocannon/autocannon.js"), "--json", "-c", String(CONNECTIONS), "-d", String(SECONDS), ...args], {
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const r = JSON.parse(out.toString());
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

/** One-row insert transactions per second from a separate process, same durability settings. */
function rawInsertLimit(engine) {
  const script = engine.kind === "sqlite"
    ? `
      const Database = require("better-sqlite3");
      const db = new Database(${JSON.stringify(engine.scratchFile)});
      db.pragma("journal_mode = WAL"); db.pragma("synchronous = FULL");
      db.exec("create table if not exists t (id integer primary key autoincrement, body text not null, at integer not null)");
      const insert = db.prepare("insert into t (body, at) values (?, ?)");
      const end = Date.now() + ${SECONDS * 1000}; let n = 0;
      while (Date.now() < end) { insert.run("hello", Date.now()); n++; }
      console.log(n / ${SECONDS});`
    : `
      const pg = require("pg");
      (async () => {
        const c = new pg.Client({ connectionString: ${JSON.stringify(engine.url)} }); await c.connect();
        await c.query("create table if not exists t (id bigserial primary key, body text not null, at bigint not null)");
        const end = Date.now() + ${SECONDS * 1000}; let n = 0;
        while (Date.now() < end) { await c.query("insert into t (body, at) values ($1, $2)", ["hello", Date.now()]); n++; }
        console.log(n / ${SECONDS}); await c.end();
      })();`;
  return Number(execFileSync(process.execPath, ["-e", script], { cwd: ROOT }).toString().trim());
}

/** Builds the large organization into a fresh database of `engine`, then loads it. */
async function measureLargeOrganization(engine) {
  const fresh = await engine.freshDatabase();
  try {
    progress(`${engine.name}: building the organization (${Number(opts.messages).toLocaleString()} messages)…`);
    const built = performance.now();
    const out = execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", opts.messages], {
      cwd: ROOT,
      env: { ...process.env, ...fresh.env },
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 16 * 1024 * 1024,
    });
    const org = { ...JSON.parse(out.toString().trim().split("\n").pop()), buildSeconds: (performance.now() - built) / 1000 };
    const server = await startServer({ ...fresh.env, PARLEY_DEV: "1" });
    await new Promise((r) => setTimeout(r, 1000));
    const idleRss = rssMiB(server.child.pid);
    const login = await (await fetch(`${server.base}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "hamlet@zulip.com" }) })).json();
    const auth = `Authorization=Basic ${Buffer.from(`${login.email}:${login.api_key}`).toString("base64")}`;
    const form = "Content-Type=application/x-www-form-urlencoded";
    const get = (narrow) =>
      `${server.base}/api/v1/messages?${new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow: JSON.stringify(narrow) })}`;
    const scenarios = [
      ["GET /users/me (cheapest authenticated, same server)", ["-H", auth, `${server.base}/api/v1/users/me`]],
      ["POST /messages to a 100-member channel", ["-H", auth, "-H", form, "-m", "POST", "-b", "type=stream&to=bench-100&topic=load&content=hello%20world", `${server.base}/api/v1/messages`]],
      ["POST /messages to a 1,000-member channel", ["-H", auth, "-H", form, "-m", "POST", "-b", "type=stream&to=bench-all&topic=load&content=hello%20world", `${server.base}/api/v1/messages`]],
      ["GET /messages newest 100, channel + topic", ["-H", auth, get([{ operator: "channel", operand: "bench-100" }, { operator: "topic", operand: "topic 3" }])]],
      ["GET /messages newest 100, search", ["-H", auth, get([{ operator: "search", operand: "castle ghost" }])]],
      ["GET /messages newest 100, is:unread", ["-H", auth, get([{ operator: "is", operand: "unread" }])]],
      ["GET /messages newest 100, is:mentioned", ["-H", auth, get([{ operator: "is", operand: "mentioned" }])]],
    ];
    const measured = [];
    for (const [label, args] of scenarios) {
      progress(`${engine.name} (large): ${label} for ${SECONDS}s…`);
      measured.push({ label, ...autocannon(args) });
    }
    const events = await measureEvents(server, { seconds: SECONDS, progress: (text) => progress(`${engine.name} (large): ${text}`) });
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
    return { org, startMs: server.startMs, idleRss, measured, events };
  } finally {
    await fresh.cleanup();
  }
}

async function engines() {
  const list = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-"));
  list.push({
    name: "SQLite", kind: "sqlite", env: { PARLEY_DATA_DIR: dir }, scratchFile: path.join(dir, "scratch.sqlite3"),
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    freshDatabase: async () => {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-org-"));
      return { env: { PARLEY_DATA_DIR: d }, cleanup: async () => fs.rmSync(d, { recursive: true, force: true }) };
    },
  });
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
  if (adminUrl) {
    const name = `parley_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-pg-"));
    const freshDatabase = async () => {
      const orgName = `${name}_org`;
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${orgName}`);
      await c.query(`create database ${orgName}`);
      await c.end();
      const orgUrl = new URL(adminUrl);
      orgUrl.pathname = `/${orgName}`;
      const d = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-pg-org-"));
      return {
        env: { PARLEY_DATA_DIR: d, PARLEY_DATABASE_URL: orgUrl.toString() },
        cleanup: async () => {
          const c2 = new pg.Client({ connectionString: adminUrl });
          await c2.connect();
          await c2.query(`drop database if exists ${orgName} with (force)`);
          await c2.end();
          fs.rmSync(d, { recursive: true, force: true });
        },
      };
    };
    list.push({
      name: "PostgreSQL", kind: "postgres", url: url.toString(), freshDatabase,
      env: { PARLEY_DATA_DIR: pgDir, PARLEY_DATABASE_URL: url.toString() },
      cleanup: async () => {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
        fs.rmSync(pgDir, { recursive: true, force: true });
      },
    });
  } else {
    console.error("PARLEY_TEST_POSTGRES_URL is not set: PostgreSQL is not measured.");
  }
  return list;
}

const results = [];
for (const engine of await engines()) {
  try {
    progress(`${engine.name}: starting server (development organization)…`);
    const server = await startServer({ ...engine.env, PARLEY_DEV: "1" });
    await new Promise((r) => setTimeout(r, 1000));
    const idleRss = rssMiB(server.child.pid);
    const login = await (await fetch(`${server.base}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "hamlet@zulip.com" }) })).json();
    const auth = `Authorization=Basic ${Buffer.from(`${login.email}:${login.api_key}`).toString("base64")}`;
    const scenarios = [
      ["GET /api/v1/users/me (cheapest authenticated)", ["-H", auth, `${server.base}/api/v1/users/me`]],
      ["GET /api/v1/users (15 users)", ["-H", auth, `${server.base}/api/v1/users`]],
      ["GET /api/v1/server_settings (no auth)", [`${server.base}/api/v1/server_settings`]],
      ["POST /api/v1/users/me/status (one write transaction)", ["-H", auth, "-m", "POST", "-H", "Content-Type=application/x-www-form-urlencoded", "-b", "status_text=busy", `${server.base}/api/v1/users/me/status`]],
    ];
    const measured = [];
    for (const [label, args] of scenarios) {
      progress(`${engine.name}: ${label} for ${SECONDS}s…`);
      measured.push({ label, ...autocannon(args) });
    }
    const loadedRss = rssMiB(server.child.pid);
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
    progress(`${engine.name}: raw insert limit for ${SECONDS}s…`);
    const insertLimit = rawInsertLimit(engine);
    const large = await measureLargeOrganization(engine);
    results.push({ engine: engine.name, startMs: server.startMs, idleRss, loadedRss, measured, insertLimit, large });
  } finally {
    await engine.cleanup();
  }
}
progress("");

const fmt = (n, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const lines = [
  "# Benchmarks",
  "",
  "Produced by `npm run bench` (scripts/bench.mjs); PostgreSQL is measured when `PARLEY_TEST_POSTGRES_URL` is set.",
  `Load: autocannon in a separate process over HTTP on loopback, ${CONNECTIONS} connections, ${SECONDS} s per scenario.`,
  "Server: one Parley process, development organization, rate limits off. Machine: " + `${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  "",
  "The ratio columns compare each figure with limits measured in the same run: the server's cheapest authenticated endpoint (`GET /users/me`), and a raw one-row insert transaction from a separate process with the same durability settings (SQLite WAL + synchronous=FULL; PostgreSQL defaults).",
  "",
];
for (const r of results) {
  const cheapest = r.measured[0].rps;
  lines.push(`## ${r.engine}`, "");
  lines.push(`Start-up to first /health answer: ${fmt(r.startMs)} ms. RSS idle: ${fmt(r.idleRss, 1)} MiB; after the load: ${fmt(r.loadedRss, 1)} MiB. Raw insert limit: ${fmt(r.insertLimit)} transactions/s.`, "");
  lines.push("| scenario | requests/s | p50 ms | p99 ms | errors | × cheapest endpoint | × raw insert |", "|---|---:|---:|---:|---:|---:|---:|");
  for (const m of r.measured) {
    lines.push(`| ${m.label} | ${fmt(m.rps)} | ${fmt(m.p50, 1)} | ${fmt(m.p99, 1)} | ${m.errors} | ${fmt(m.rps / cheapest, 2)} | ${fmt(m.rps / r.insertLimit, 2)} |`);
  }
  lines.push("");
  const L = r.large;
  const base = L.measured[0];
  lines.push(`### ${r.engine}: large organization`, "");
  lines.push(`${fmt(L.org.messages)} messages, ${fmt(L.org.userMessageRows)} per-user message rows, 1,000 users, 100 channels; built in ${fmt(L.org.buildSeconds)} s. Start-up: ${fmt(L.startMs)} ms; idle RSS ${fmt(L.idleRss, 1)} MiB. The reader is hamlet (in bench-all, bench-100 and 10 small channels).`, "");
  lines.push("| scenario | requests/s | p50 ms | p99 ms | errors | × GET /users/me requests/s | p50 ÷ GET /users/me p50 |", "|---|---:|---:|---:|---:|---:|---:|");
  for (const m of L.measured) {
    lines.push(`| ${m.label} | ${fmt(m.rps)} | ${fmt(m.p50, 1)} | ${fmt(m.p99, 1)} | ${m.errors} | ${fmt(m.rps / base.rps, 2)} | ${fmt(m.p50 / Math.max(base.p50, 0.1), 1)} |`);
  }
  lines.push("");
  const E = L.events;
  lines.push(`#### ${r.engine}: event queues (scripts/bench-events.mjs)`, "");
  lines.push(`${fmt(E.queues)} users each register a queue and long-poll it over its own HTTP connection (one client process); hamlet sends to bench-all (every user).`, "");
  lines.push("| figure | value |", "|---|---:|");
  lines.push(`| delivery latency, POST /messages returning → recipient's GET /events returning, p50 | ${fmt(E.latencyP50, 1)} ms |`);
  lines.push(`| same, p99 (${fmt(E.deliveries)} deliveries) | ${fmt(E.latencyP99, 1)} ms |`);
  lines.push(`| messages/s sustained while delivering each to ${fmt(E.queues)} queues (4 senders) | ${fmt(E.messagesPerSecond, 1)} |`);
  lines.push(`| event deliveries/s (until every queue had every message) | ${fmt(E.deliveriesPerSecond)} |`);
  lines.push(`| memory per idle queue (server RSS delta, ${fmt(E.idleQueues)} queues) | ${fmt(E.kibPerQueue, 1)} KiB |`);
  lines.push(`| memory per waiting poll (server RSS delta, ${fmt(E.queues)} polls) | ${fmt(E.kibPerPoll, 1)} KiB |`);
  lines.push(`| POST /register, every section, user with ${E.registerSubscriptions} subscriptions, p50 of 10 | ${fmt(E.registerP50, 1)} ms |`);
  lines.push(`| same, slowest of 10 | ${fmt(E.registerMax, 1)} ms |`);
  lines.push(`| deliveries missing / poll errors | ${E.missing} / ${E.pollErrors} |`);
  lines.push("");
}
lines.push("Latencies are under load (all connections busy), so they include queueing.", "");
const text = lines.join("\n");
if (!opts["no-write"]) fs.writeFileSync(path.join(ROOT, "docs/benchmarks.md"), text);
console.log(text);
