#!/usr/bin/env node
// `npm run bench`: the scenarios of issue 7 on SQLite, and on PostgreSQL when
// PARLEY_TEST_POSTGRES_URL is set. Parley runs as a separate process; load comes from other
// processes over real HTTP (autocannon, scripts/bench-fanout.mjs and its pollers). Writes
// docs/benchmarks.md and docs/benchmarks/targets.svg.
//
// Per engine:
//   limits   a raw one-row insert transaction (same durability settings), and the server's cheapest
//            authenticated endpoint (GET /users/me) — every figure is also given as a ratio to both;
//   (f)      start-up time and idle RSS of an empty server;
//   small    the benchmark organization without messages (1,000 users, 100 channels):
//            (g) memory per idle queue over 10,000 queues, (a) sending to a 50-member channel
//            while its 50 members long-poll, (b) the same with 1,000 members and queues, (c) direct
//            messages between random pairs while all 1,000 users long-poll;
//   large    the same organization with --messages N (default 1,000,000): (f) start-up and idle
//            RSS, (d) GET /messages newest 100 for channel+topic, search, is:unread, is:mentioned,
//            (e) POST /register for a user with 100 subscriptions; the web app's budgets in Chromium
//            (scripts/bench-web.mjs: initial JavaScript, time to the first message list, and on the
//            first engine the JS heap after --web-minutes in a busy channel).
//
// Options: --seconds N (per scenario, default 5), --connections N (autocannon throughput
// connections, default 20), --messages N, --web-minutes N (default 10; 0 skips the heap run,
// e.g. 1 for a quick run), --import-messages N (issue 21's import of a Zulip-layout export with N
// messages on SQLite, scripts/bench-import.mjs; default 1,000,000, 0 skips it), --no-write.
//
// Issue 34's side-by-side run against Prosody and its targets (scripts/bench-peer.mjs) closes the
// whole bench; `npm run bench -- --only peer` runs that part alone (a few minutes) and replaces
// only its section of docs/benchmarks.md. Its options: --rounds N (alternating rounds, default 3),
// --sizes 50,500 (room sizes), --warmup N (unmeasured seconds before each run, default 2),
// --min-messages N (a run goes on past --seconds until N messages are sent, default 50),
// --idle-seconds N (wait before Parley's idle RSS, default 30), and --seconds as above.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { targetChart } from "./bench-chart.mjs";
import { measureFanout, measureIdleQueues, roundRobinSends } from "./bench-fanout.mjs";
import { multiSection } from "./bench-multi-report.mjs";
import { PEER_OPTIONS, peerSection, runPeer, runPeerCli } from "./bench-peer.mjs";
import { measureWebApp, webBenchAvailable, webSection, WEB_END, WEB_START } from "./bench-web.mjs";
import {
  autocannonFigures,
  devClient,
  percentile,
  postgresTransport,
  progress,
  ROOT,
  rssMiB,
  sequentialLatency,
  sleep,
  startServer,
  stopServer,
} from "./bench-lib.mjs";

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    messages: { type: "string", default: "1000000" },
    connections: { type: "string", default: "20" },
    "web-minutes": { type: "string", default: "10" },
    "import-messages": { type: "string", default: "1000000" },
    "no-write": { type: "boolean", default: false },
    // "peer": only issue 34's side-by-side part (scripts/bench-peer.mjs).
    only: { type: "string" },
    ...Object.fromEntries(Object.entries(PEER_OPTIONS).filter(([name]) => name !== "seconds")),
  },
});
if (opts.only !== undefined && opts.only !== "peer") throw new Error(`--only ${opts.only}: the only part that runs alone is "peer"`);
const SECONDS = Number(opts.seconds);
const CONNECTIONS = Number(opts.connections);
const IDLE_QUEUES = 10_000;
// Sending loops in the fan-out scenarios (each waits for its answer before sending again).
const SENDERS = 8;

function autocannon(args) {
  const out = execFileSync(
    process.execPath,
    [path.join(ROOT, "node_modules/autocannon/autocannon.js"), "--json", "-c", String(CONNECTIONS), "-d", String(SECONDS), ...args],
    {
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  return autocannonFigures(JSON.parse(out.toString()));
}

/** One-row insert transactions per second from a separate process, same durability settings. */
function rawInsertLimit(engine) {
  const script =
    engine.kind === "sqlite"
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
        const c = new pg.Client({ connectionString: ${JSON.stringify(engine.scratchUrl)} }); await c.connect();
        await c.query("create table if not exists t (id bigserial primary key, body text not null, at bigint not null)");
        const end = Date.now() + ${SECONDS * 1000}; let n = 0;
        while (Date.now() < end) { await c.query("insert into t (body, at) values ($1, $2)", ["hello", Date.now()]); n++; }
        console.log(n / ${SECONDS}); await c.end();
      })();`;
  return Number(execFileSync(process.execPath, ["-e", script], { cwd: ROOT }).toString().trim());
}

function buildOrganization(env, messages) {
  const started = performance.now();
  const out = execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", String(messages)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * 1024 * 1024,
  });
  return { ...JSON.parse(out.toString().trim().split("\n").pop()), buildSeconds: (performance.now() - started) / 1000 };
}

const authHeader = (client) => `Authorization=${client.auth}`;

/** The cheapest authenticated endpoint on `server`: throughput at CONNECTIONS, latency at 1. */
async function cheapest(server, hamlet) {
  const loaded = autocannon(["-H", authHeader(hamlet), `${server.base}/api/v1/users/me`]);
  const single = await sequentialLatency(hamlet, "/users/me", SECONDS);
  return { rps: loaded.rps, p50: single.p50, errors: loaded.errors + single.errors };
}

/**
 * How long (f) leaves the empty server alone before it reads its idle RSS. V8's memory reducer
 * gives back start-up's young generation after ~8 s without allocation on a quiet machine, and
 * after 15–25 s on a busier one (stop 32: three second starts, 104 MiB at 15 s, 84–85 at 30 s).
 */
const IDLE_SECONDS = 30;

/** (f) for an empty server: a first start (creates the database) and a second one. */
async function measureEmptyServer(engine, say) {
  const fresh = await engine.freshDatabase();
  try {
    say("empty server: first start…");
    const first = await startServer(fresh.env);
    await stopServer(first);
    say("empty server: second start…");
    const second = await startServer(fresh.env);
    await sleep(1000);
    const startRss = rssMiB(second.child.pid);
    // Idle: once the process has allocated next to nothing for a while, V8's memory reducer
    // collects and gives back its young generation (up to 32 MiB that start-up filled).
    await sleep(IDLE_SECONDS * 1000 - 1000);
    const idleRss = rssMiB(second.child.pid);
    await stopServer(second);
    return { firstStartMs: first.startMs, startMs: second.startMs, startRss, idleRss };
  } finally {
    await fresh.cleanup();
  }
}

/** (g), (a), (b), (c) on the organization without messages. */
async function measureSmallOrganization(engine, say) {
  const fresh = await engine.freshDatabase();
  try {
    say("building the organization without messages…");
    buildOrganization(fresh.env, 0);
    const server = await startServer({ ...fresh.env, PARLEY_DEV: "1" });
    try {
      const hamlet = await devClient(server.base, "hamlet@zulip.com");
      say("cheapest endpoint…");
      const limit = await cheapest(server, hamlet);
      say("API keys for 1,000 users…");
      const users = (await hamlet.call("GET", "/users")).members.filter((u) => u.is_active && !u.is_bot);
      const clients = new Map();
      for (const u of users) clients.set(u.user_id, await devClient(server.base, u.email));
      const all = [...clients.values()];
      const idle = await measureIdleQueues(server, all, IDLE_QUEUES, say);

      const streams = (await hamlet.call("GET", "/streams")).streams;
      const membersOf = async (name) => {
        const id = streams.find((s) => s.name === name).stream_id;
        return (await hamlet.call("GET", `/streams/${id}/members`)).subscribers.map((userId) => clients.get(userId)).filter(Boolean);
      };
      const channelScenario = async (name, processes) => {
        const members = await membersOf(name);
        return measureFanout(server, {
          members,
          processes,
          seconds: SECONDS,
          concurrency: SENDERS,
          progress: (t) => say(`${name}: ${t}`),
          next: roundRobinSends(name, members),
        });
      };
      const fifty = await channelScenario("bench-50", 1);
      const thousand = await channelScenario("bench-all", 2);
      let seed = 7;
      const random = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
      const direct = await measureFanout(server, {
        members: all,
        processes: 2,
        seconds: SECONDS,
        concurrency: SENDERS,
        progress: (t) => say(`direct messages: ${t}`),
        next: () => {
          const from = all[random(all.length)];
          let to = all[random(all.length)];
          if (to === from) to = all[(all.indexOf(from) + 1) % all.length];
          return { client: from, params: { type: "direct", to: JSON.stringify([to.email]), content: "hello" }, expected: 2 };
        },
      });
      return { limit, idle, fifty, thousand, direct };
    } finally {
      await stopServer(server);
    }
  } finally {
    await fresh.cleanup();
  }
}

/** (f), (d), (e) on the organization with `--messages` messages. */
async function measureLargeOrganization(engine, say, { webMinutes }) {
  const fresh = await engine.freshDatabase();
  try {
    say(`building the organization (${Number(opts.messages).toLocaleString()} messages)…`);
    const org = buildOrganization(fresh.env, opts.messages);
    const server = await startServer({ ...fresh.env, PARLEY_DEV: "1" });
    try {
      await sleep(1000);
      const startRss = rssMiB(server.child.pid);
      const hamlet = await devClient(server.base, "hamlet@zulip.com");
      say("cheapest endpoint…");
      const limit = await cheapest(server, hamlet);
      const get = (narrow) => `/messages?${new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow: JSON.stringify(narrow) })}`;
      const fetches = [
        [
          "channel + topic",
          [
            { operator: "channel", operand: "bench-100" },
            { operator: "topic", operand: "topic 3" },
          ],
          5,
        ],
        ["search", [{ operator: "search", operand: "castle ghost" }], 50],
        ["is:unread", [{ operator: "is", operand: "unread" }], 10],
        ["is:mentioned", [{ operator: "is", operand: "mentioned" }], 10],
      ];
      const measured = [];
      for (const [label, narrow, target] of fetches) {
        say(`GET /messages ${label}…`);
        measured.push({ label, target, ...(await sequentialLatency(hamlet, get(narrow), SECONDS)) });
      }
      say("POST /register with 100 subscriptions…");
      const channels = (await hamlet.call("GET", "/streams")).streams.map((s) => ({ name: s.name })).slice(0, 100);
      await hamlet.call("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify(channels) });
      const subscriptions = (await hamlet.call("GET", "/users/me/subscriptions")).subscriptions.length;
      const registerMs = [];
      for (let i = 0; i < 21; i++) {
        const started = performance.now();
        const reg = await hamlet.call("POST", "/register", {});
        if (i > 0) registerMs.push(performance.now() - started);
        await hamlet.call("DELETE", "/events", { queue_id: reg.queue_id });
      }
      registerMs.sort((a, b) => a - b);
      let web = null;
      if (webBenchAvailable()) web = await measureWebApp(server, { minutes: webMinutes, say });
      else console.error("No Chromium: the web app's budgets are not measured (apt-get install chromium).");
      return {
        org,
        startMs: server.startMs,
        startRss,
        limit,
        measured,
        register: { subscriptions, p50: percentile(registerMs, 50), p99: percentile(registerMs, 99) },
        web,
      };
    } finally {
      await stopServer(server);
    }
  } finally {
    await fresh.cleanup();
  }
}

async function engines() {
  const list = [];
  const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-"));
  list.push({
    name: "SQLite",
    kind: "sqlite",
    scratchFile: path.join(scratchDir, "scratch.sqlite3"),
    cleanup: async () => fs.rmSync(scratchDir, { recursive: true, force: true }),
    freshDatabase: async () => {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-org-"));
      return { env: { PARLEY_DATA_DIR: d }, cleanup: async () => fs.rmSync(d, { recursive: true, force: true }) };
    },
  });
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
  if (!adminUrl) {
    console.error("PARLEY_TEST_POSTGRES_URL is not set: PostgreSQL is not measured.");
    return list;
  }
  const admin = async (statement) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  const urlOf = (name) => {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const scratch = `parley_bench_${process.pid}`;
  await admin(`drop database if exists ${scratch}`);
  await admin(`create database ${scratch}`);
  let n = 0;
  list.push({
    name: "PostgreSQL",
    kind: "postgres",
    scratchUrl: urlOf(scratch),
    cleanup: async () => admin(`drop database if exists ${scratch} with (force)`),
    freshDatabase: async () => {
      const name = `${scratch}_${++n}`;
      await admin(`drop database if exists ${name}`);
      await admin(`create database ${name}`);
      const d = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-pg-"));
      return {
        env: { PARLEY_DATA_DIR: d, PARLEY_DATABASE_URL: urlOf(name) },
        cleanup: async () => {
          await admin(`drop database if exists ${name} with (force)`);
          fs.rmSync(d, { recursive: true, force: true });
        },
      };
    },
  });
  return list;
}

// The server runs from the bundle `npm start` runs; build it now, not inside a measured start.
execFileSync(process.execPath, [path.join(ROOT, "scripts/build.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });

if (opts.only === "peer") {
  await runPeerCli(opts);
  process.exit(0);
}

const results = [];
let engineIndex = 0;
for (const engine of await engines()) {
  const say = (text) => progress(`${engine.name}: ${text}`);
  try {
    say(`raw insert limit for ${SECONDS}s…`);
    const insertLimit = rawInsertLimit(engine);
    const empty = await measureEmptyServer(engine, say);
    const small = await measureSmallOrganization(engine, say);
    // The heap is the browser's: measured once, on the first engine.
    const large = await measureLargeOrganization(engine, say, { webMinutes: engineIndex++ === 0 ? Number(opts["web-minutes"]) : 0 });
    const transport = engine.kind === "postgres" ? postgresTransport(process.env.PARLEY_TEST_POSTGRES_URL) : undefined;
    results.push({ engine: engine.name, transport, insertLimit, empty, small, large });
  } finally {
    await engine.cleanup();
  }
}
progress("");

// ---- The figures, as rows with targets and ratios. ----
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "–");

/** Rows of one engine's results: { id, label, value, unit, target, higherIsBetter, limit }. */
function rowsOf(r) {
  const S = r.small;
  const L = r.large;
  const insertMs = 1000 / r.insertLimit;
  const rate = (value) => ({ cheapest: value / S.limit.rps, insert: value / r.insertLimit });
  const small = (value) => ({ cheapest: value / S.limit.p50, insert: value / insertMs });
  const large = (value) => ({ cheapest: value / L.limit.p50, insert: value / insertMs });
  // Failures of a fan-out scenario: failed sends and polls, and deliveries that never came.
  const failed = (f) => f.errors + f.missing;
  const rows = [
    {
      id: "a",
      label: "(a) messages/s to a 50-member channel, 50 polling",
      value: S.fifty.messagesPerSecond,
      unit: "msg/s",
      target: 500,
      up: true,
      ratio: rate(S.fifty.messagesPerSecond),
      errors: failed(S.fifty),
    },
    {
      id: "a",
      label: "(a) p99 POST → last member's GET /events",
      value: S.fifty.deliveryP99,
      unit: "ms",
      target: 50,
      up: false,
      ratio: small(S.fifty.deliveryP99),
      errors: failed(S.fifty),
    },
    {
      id: "b",
      label: "(b) messages/s to a 1,000-member channel, 1,000 polling",
      value: S.thousand.messagesPerSecond,
      unit: "msg/s",
      target: 300,
      up: true,
      ratio: rate(S.thousand.messagesPerSecond),
      errors: failed(S.thousand),
    },
    {
      id: "b",
      label: "(b) p99 POST → last member's GET /events",
      value: S.thousand.deliveryP99,
      unit: "ms",
      up: false,
      ratio: small(S.thousand.deliveryP99),
      errors: failed(S.thousand),
    },
    {
      id: "c",
      label: "(c) direct messages/s, random pairs, 1,000 polling",
      value: S.direct.messagesPerSecond,
      unit: "msg/s",
      up: true,
      ratio: rate(S.direct.messagesPerSecond),
      errors: failed(S.direct),
    },
    {
      id: "c",
      label: "(c) p99 POST → recipient's GET /events",
      value: S.direct.deliveryP99,
      unit: "ms",
      up: false,
      ratio: small(S.direct.deliveryP99),
      errors: failed(S.direct),
    },
    ...L.measured.map((m) => ({
      id: "d",
      label: `(d) GET /messages newest 100, ${m.label}, p50`,
      value: m.p50,
      unit: "ms",
      target: m.target,
      up: false,
      ratio: large(m.p50),
      errors: m.errors,
    })),
    {
      id: "e",
      label: `(e) POST /register, ${L.register.subscriptions} subscriptions, p50`,
      value: L.register.p50,
      unit: "ms",
      target: 30,
      up: false,
      ratio: large(L.register.p50),
    },
    { id: "f", label: "(f) start-up, empty server (second start)", value: r.empty.startMs, unit: "ms", target: 1000, up: false },
    { id: "f", label: "(f) RSS 1 s after start, empty server", value: r.empty.startRss, unit: "MiB", up: false },
    { id: "f", label: `(f) idle RSS, empty server (${IDLE_SECONDS} s after start)`, value: r.empty.idleRss, unit: "MiB", target: 100, up: false },
    { id: "f", label: "(f) start-up, large organization", value: L.startMs, unit: "ms", up: false },
    { id: "f", label: "(f) RSS 1 s after start, large organization", value: L.startRss, unit: "MiB", up: false },
    { id: "g", label: `(g) memory per idle queue (${fmt(S.idle.queues)} queues)`, value: S.idle.kibPerQueue, unit: "KiB", target: 15, up: false, noisy: true },
  ];
  // A scenario with errors never meets its target: its figures describe a server that failed.
  return rows.map((row) => ({
    ...row,
    errors: row.errors ?? 0,
    met: row.target === undefined ? undefined : (row.errors ?? 0) === 0 && (row.up ? row.value >= row.target : row.value < row.target),
  }));
}

const lines = [
  "# Benchmarks",
  "",
  "Produced by `npm run bench` (scripts/bench.mjs); PostgreSQL is measured when `PARLEY_TEST_POSTGRES_URL` is set (a local server through",
  "its Unix socket, as docs/deployment.md advises: `postgres://postgres@localhost/postgres?host=/var/run/postgresql`).",
  `Machine: ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. One Parley process (development organization, rate limits off);`,
  `load from separate processes over HTTP on loopback, sharing the machine's cores: autocannon (${CONNECTIONS} connections) for throughput, one request at a time for latency, ${SENDERS} sending loops and long-polling`,
  `children for the fan-out scenarios, ${SECONDS} s per scenario.`,
  "",
  "Every figure is also given as a ratio to two limits measured in the same run: the same server's cheapest authenticated endpoint",
  "(`GET /users/me`: its requests/s under load for rates, its p50 latency at one connection for times), and a raw one-row insert",
  "transaction from a separate process with the same durability settings (SQLite WAL + synchronous=FULL, Parley's default; PostgreSQL",
  "defaults): its transactions/s for rates, its time per transaction for times.",
  "",
  "![Figures against their targets](benchmarks/targets.svg)",
  "",
];
const perEngine = results.map((r) => ({ r, rows: rowsOf(r) }));
for (const { r, rows } of perEngine) {
  const S = r.small;
  const L = r.large;
  lines.push(`## ${r.engine}`, "");
  if (r.transport) lines.push(`Reached over ${r.transport} (\`PARLEY_TEST_POSTGRES_URL\`).`, "");
  lines.push(
    `Limits: raw insert ${fmt(r.insertLimit)} transactions/s (${fmt(1000 / r.insertLimit, 2)} ms each); GET /users/me ${fmt(S.limit.rps)} requests/s, p50 ${fmt(S.limit.p50, 1)} ms at one connection${S.limit.errors + L.limit.errors > 0 ? ` (**${S.limit.errors + L.limit.errors} failed requests**)` : ""}`,
    `(organization of 1,000 users; ${fmt(L.limit.rps)} requests/s and ${fmt(L.limit.p50, 1)} ms on the large one). First start of an empty server (creates the database): ${fmt(r.empty.firstStartMs)} ms.`,
    `Large organization: ${fmt(L.org.messages)} messages, ${fmt(L.org.userMessageRows)} per-user message rows, 1,000 users, 100 channels, built in ${fmt(L.org.buildSeconds)} s; the reader is hamlet.`,
    "",
  );
  lines.push("| scenario | figure | target | met | errors | × cheapest endpoint | × raw insert |", "|---|---:|---:|:---:|---:|---:|---:|");
  for (const row of rows) {
    const target = row.target === undefined ? "" : `${row.up ? "≥" : "<"} ${fmt(row.target)} ${row.unit}`;
    const met = row.met === undefined ? "" : row.met ? "yes" : "**no**";
    const errors = row.errors > 0 ? `**${fmt(row.errors)}**` : "0";
    lines.push(
      `| ${row.label}${row.errors > 0 ? " ⚠" : ""} | ${fmt(row.value, row.unit === "msg/s" ? 0 : 1)} ${row.unit} | ${target} | ${met} | ${errors} | ${row.ratio ? fmt(row.ratio.cheapest, 2) : ""} | ${row.ratio ? fmt(row.ratio.insert, 2) : ""} |`,
    );
  }
  lines.push("");
  lines.push("| fan-out detail | (a) 50 members | (b) 1,000 members | (c) direct |", "|---|---:|---:|---:|");
  const cols = [S.fifty, S.thousand, S.direct];
  lines.push(`| queues polling | ${cols.map((c) => fmt(c.queues)).join(" | ")} |`);
  lines.push(`| messages sent | ${cols.map((c) => fmt(c.messages)).join(" | ")} |`);
  lines.push(`| POST /messages p50 / p99 ms | ${cols.map((c) => `${fmt(c.postP50, 1)} / ${fmt(c.postP99, 1)}`).join(" | ")} |`);
  lines.push(`| POST → last delivery p50 / p99 ms | ${cols.map((c) => `${fmt(c.deliveryP50, 1)} / ${fmt(c.deliveryP99, 1)}`).join(" | ")} |`);
  lines.push(`| deliveries missing / errors | ${cols.map((c) => `${c.missing} / ${c.errors}`).join(" | ")} |`);
  lines.push(`| answered polls per message | ${cols.map((c) => fmt(c.pollsPerMessage, 1)).join(" | ")} |`);
  lines.push(`| server CPU ms per message | ${cols.map((c) => fmt(c.serverCpuMsPerMessage, 2)).join(" | ")} |`);
  lines.push("");
}
if (perEngine.length === 2) {
  const [a, b] = perEngine;
  lines.push(`## ${b.r.engine} against ${a.r.engine}`, "", `Issue 7 asks that no scenario be more than 3× slower on ${b.r.engine}.`, "");
  lines.push(`| scenario | ${a.r.engine} | ${b.r.engine} | slower by | within 3× |`, "|---|---:|---:|---:|:---:|");
  a.rows.forEach((row, i) => {
    const other = b.rows[i];
    const slower = row.up ? row.value / other.value : other.value / row.value;
    // A figure within measurement noise of zero (RSS growth per idle queue) has no meaningful ratio.
    const verdict = row.noisy || !Number.isFinite(slower) ? "n/a" : slower <= 3 ? "yes" : "**no**";
    lines.push(
      `| ${row.label}${row.errors + other.errors > 0 ? " ⚠ (errors)" : ""} | ${fmt(row.value, 1)} ${row.unit} | ${fmt(other.value, 1)} ${row.unit} | ${verdict === "n/a" ? "–" : `${fmt(slower, 2)}×`} | ${verdict} |`,
    );
  });
  lines.push("");
}
const webResults = perEngine.filter(({ r }) => r.large.web).map(({ r }) => ({ engine: r.engine, web: r.large.web }));
if (webResults.length > 0) {
  const command = `npm run bench -- --messages ${opts.messages} --web-minutes ${opts["web-minutes"]}`;
  lines.push(WEB_START, webSection(webResults, { messages: Number(opts.messages), command }).trim(), WEB_END, "");
}
// Issue 18's scenarios (several processes, delivery cost): scripts/bench-multi.mjs per engine.
const multiResults = [];
for (const engine of results.map((r) => (r.engine === "SQLite" ? "sqlite" : "postgres"))) {
  progress(`${engine}: issue 18 scenarios…`);
  const out = execFileSync(
    process.execPath,
    [path.join(ROOT, "scripts/bench-multi.mjs"), "--engine", engine, "--no-build", "--no-write", "--seconds", String(SECONDS)],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  multiResults.push(JSON.parse(out.toString()));
}
progress("");
lines.push(multiSection(multiResults), "");
// Kept as bench-multi.mjs alone keeps them, so that a run of one engine later replaces only its own.
if (!opts["no-write"]) fs.writeFileSync(path.join(ROOT, "docs/benchmarks/multi.json"), JSON.stringify(multiResults, null, 2) + "\n");
// Issue 21's import (SQLite): bench-import.mjs writes its section of docs/benchmarks.md, kept below.
if (Number(opts["import-messages"]) > 0) {
  progress("sqlite: import of a Zulip-layout export…");
  const importArgs = ["--messages", opts["import-messages"], ...(opts["no-write"] ? [] : ["--write"])];
  execFileSync(process.execPath, [path.join(ROOT, "scripts/bench-import.mjs"), ...importArgs], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  progress("");
}
// Issue 34: Prosody side by side, and its targets from the figures above (scripts/bench-peer.mjs).
const fanoutByEngine = Object.fromEntries(results.map((r) => [r.engine, { a: r.small.fifty, b: r.small.thousand, c: r.small.direct }]));
const peer = await runPeer({
  seconds: SECONDS,
  warmup: Number(opts.warmup),
  minMessages: Number(opts["min-messages"]),
  rounds: Number(opts.rounds),
  sizes: opts.sizes.split(",").map(Number),
  idleSeconds: Number(opts["idle-seconds"]),
  multi: multiResults,
  fanoutByEngine: results.length === 2 ? fanoutByEngine : undefined,
});
lines.push(peerSection(peer), "");
if (!opts["no-write"]) fs.writeFileSync(path.join(ROOT, "docs/benchmarks/peer.json"), JSON.stringify(peer, null, 2) + "\n");
// The import's section (bench-import.mjs writes it between its markers) carries over from the
// file being replaced; the hand-written notes live in docs/benchmarks/notes.md.
const previous = fs.existsSync(path.join(ROOT, "docs/benchmarks.md")) ? fs.readFileSync(path.join(ROOT, "docs/benchmarks.md"), "utf8") : "";
const importSection = /<!-- bench-import:start -->[\s\S]*?<!-- bench-import:end -->/.exec(previous);
if (importSection) lines.push(importSection[0], "");
lines.push("## Notes", "", "How to read these figures, what each change gave and every earlier run: [benchmarks/notes.md](benchmarks/notes.md).", "");
const text = lines.join("\n");

// Failed requests, printed whatever else is written: a figure measured with errors is not one.
for (const { r, rows } of perEngine) {
  const failing = rows.filter((row) => row.errors > 0);
  const limitErrors = r.small.limit.errors + r.large.limit.errors;
  if (failing.length === 0 && limitErrors === 0) console.error(`${r.engine}: no failed requests`);
  if (limitErrors > 0) console.error(`${r.engine}: GET /users/me (cheapest endpoint): ${limitErrors} failed requests`);
  for (const row of failing) console.error(`${r.engine}: ${row.label}: ${row.errors} failed requests or missing deliveries (marked ⚠)`);
}

const chartRows = perEngine[0].rows
  .map((row, i) => ({ row, i }))
  .filter(({ row }) => row.target !== undefined)
  .map(({ row, i }) => ({
    label: row.label,
    // A size at or below zero (RSS noise) is as far below its limit as the chart shows.
    engines: Object.fromEntries(
      perEngine.map(({ r, rows }) => [r.engine, rows[i].up ? rows[i].value / rows[i].target : rows[i].target / Math.max(rows[i].value, 1e-9)]),
    ),
  }));
const svg = targetChart(
  chartRows,
  perEngine.map(({ r }) => r.engine),
);
if (!opts["no-write"]) {
  fs.writeFileSync(path.join(ROOT, "docs/benchmarks.md"), text);
  fs.writeFileSync(path.join(ROOT, "docs/benchmarks/targets.svg"), svg);
}
console.log(text);
