#!/usr/bin/env node
// Issue 18's benchmarks (several processes, delivery cost), run by scripts/bench.mjs or alone:
//   node scripts/bench-multi.mjs [--engine sqlite|postgres] [--scenario NAME]... [--seconds N] [--processes 1,2,3]
//                                [--fanout a,b] [--no-write]
// Scenarios (each runnable alone with --scenario; default all):
//   poll-cost   server CPU per answered poll: GET /events?dont_block with nothing to answer, from
//               20 keep-alive connections (HTTP, authentication, write: the floor of a delivery),
//               alternately with a bare Node HTTP server answering the same requests with the
//               same bytes (the raw limit; ratio = raw CPU per poll / Parley's);
//   one-sender  one sender keeping 10 messages in flight to the 50-member channel whose members all
//               long-poll over keep-alive connections: messages/s, p50 send → receipt, server RSS,
//               and the server CPU per answered poll (the run's CPU minus the same sends' CPU
//               without pollers, per answered poll);
//   raw         the raw limit of the same job: a bare Node HTTP server (scripts/bench-raw.mjs)
//               answering 50 parked long-polls with the same bytes; Parley's deliveries/s as a ratio;
//   fanout      (a) 50-member and (b) 1,000-member channels, 8 senders, with 1, 2 and 3 processes
//               (more than one: PostgreSQL + NATS, PARLEY_TEST_NATS_URL; clients round-robin over
//               the processes client-side).
// PostgreSQL needs PARLEY_TEST_POSTGRES_URL. Unless --no-write, keeps the figures per engine in
// docs/benchmarks/multi.json and writes them as a section of docs/benchmarks.md (between markers);
// prints them as JSON on stdout.
import { execFileSync, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { measureFanout, oneSenderSends, roundRobinSends } from "./bench-fanout.mjs";
import { writeMultiSection } from "./bench-multi-report.mjs";
import { Client, cpuMs, devClient, nowMs, percentile, postgresTransport, progress, ROOT, rssMiB, sleep, startServer, stopServer } from "./bench-lib.mjs";

const { values: opts } = parseArgs({
  options: {
    engine: { type: "string", default: "sqlite" },
    scenario: { type: "string", multiple: true, default: ["poll-cost", "one-sender", "raw", "fanout"] },
    seconds: { type: "string", default: "5" },
    processes: { type: "string", default: "1,2,3" },
    // Which fan-out channels to measure: a (50 members), b (1,000 members) or both.
    fanout: { type: "string", default: "a,b" },
    "no-build": { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
  },
});
const SECONDS = Number(opts.seconds);
const PROCESS_COUNTS = opts.processes.split(",").map(Number);
const NATS_URL = process.env.PARLEY_TEST_NATS_URL ?? "nats://127.0.0.1:4222";
const say = (t) => progress(`${opts.engine}: ${t}`);

async function freshDatabase() {
  if (opts.engine === "sqlite") {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench18-"));
    return { env: { PARLEY_DATA_DIR: d }, cleanup: async () => fs.rmSync(d, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
  if (!adminUrl) throw new Error("--engine postgres needs PARLEY_TEST_POSTGRES_URL");
  const name = `parley_bench18_${process.pid}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench18-pg-"));
  return {
    env: { PARLEY_DATA_DIR: d, PARLEY_DATABASE_URL: url.toString() },
    cleanup: async () => {
      await admin(`drop database if exists ${name} with (force)`);
      fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/** `count` server processes on one database (several: with the bus), as one object for measureFanout. */
async function startServers(env, count) {
  const list = [];
  const extraDirs = [];
  for (let i = 0; i < count; i++) {
    // The other processes get a copy of the first one's data directory (its server secret), as a deployment shares it.
    const dataDir = i === 0 ? env.PARLEY_DATA_DIR : fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench18-dir-"));
    if (i > 0) {
      fs.cpSync(env.PARLEY_DATA_DIR, dataDir, { recursive: true });
      extraDirs.push(dataDir);
    }
    list.push(await startServer({ ...env, PARLEY_DATA_DIR: dataDir, PARLEY_DEV: "1", ...(count > 1 ? { PARLEY_BUS_URL: NATS_URL } : {}) }));
  }
  return { list, extraDirs, base: list[0].base, child: list[0].child, pids: list.map((s) => s.child.pid) };
}

async function clientsFor(servers) {
  const hamlet = await devClient(servers.base, "hamlet@zulip.com");
  const users = (await hamlet.call("GET", "/users")).members.filter((u) => u.is_active && !u.is_bot);
  const clients = new Map();
  let i = 0;
  for (const u of users) clients.set(u.user_id, await devClient(servers.list[i++ % servers.list.length].base, u.email));
  const streams = (await hamlet.call("GET", "/streams")).streams;
  const membersOf = async (name) => {
    const id = streams.find((s) => s.name === name).stream_id;
    return (await hamlet.call("GET", `/streams/${id}/members`)).subscribers.map((userId) => clients.get(userId)).filter(Boolean);
  };
  return { hamlet, clients, membersOf };
}

/** CPU per answered GET /events with nothing to answer (dont_block), over 20 keep-alive connections. */
async function pollCost(servers, members) {
  const queues = await Promise.all(
    members.slice(0, 20).map(async (client) => ({
      client,
      queueId: (await client.call("POST", "/register", { event_types: JSON.stringify(["message"]) })).queue_id,
    })),
  );
  const pollFor = async (seconds, clientOf) => {
    let polls = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      queues.map(async (q) => {
        const client = clientOf(q.client);
        while (performance.now() < until) {
          await client.call("GET", "/events", { queue_id: q.queueId, last_event_id: "-1", dont_block: "true" });
          polls += 1;
        }
      }),
    );
    return polls;
  };
  const measure = async (pid, clientOf) => {
    // Unmeasured first: the server's code is optimized by the JIT only once it has run a while.
    await pollFor(Math.min(3, SECONDS), clientOf);
    const before = cpuMs(pid);
    const polls = await pollFor(SECONDS, clientOf);
    return { polls, cpuMicrosPerPoll: ((cpuMs(pid) - before) * 1000) / polls };
  };
  // The raw limit, measured alternately with Parley (the machine is shared): the same requests to
  // a bare Node HTTP server answering them at once with Parley's bytes (scripts/bench-raw.mjs).
  const raw = fork(path.join(ROOT, "scripts/bench-raw.mjs"), ["900"], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const { port } = await new Promise((r) => raw.once("message", r));
  const rawClients = new Map();
  const toRaw = (client) => rawClients.get(client) ?? rawClients.set(client, new Client(`http://127.0.0.1:${port}`, client.email, client.apiKey)).get(client);
  const rounds = [];
  for (let round = 0; round < 2; round++) {
    rounds.push({ parley: await measure(servers.child.pid, (client) => client), raw: await measure(raw.pid, toRaw) });
  }
  raw.send("stop");
  for (const q of queues) await q.client.call("DELETE", "/events", { queue_id: q.queueId });
  const sum = (pick) => rounds.reduce((total, r) => total + pick(r), 0);
  const cpuMicrosPerPoll = sum((r) => r.parley.cpuMicrosPerPoll * r.parley.polls) / sum((r) => r.parley.polls);
  const rawCpuMicrosPerPoll = sum((r) => r.raw.cpuMicrosPerPoll * r.raw.polls) / sum((r) => r.raw.polls);
  return {
    polls: sum((r) => r.parley.polls),
    pollsPerSecond: sum((r) => r.parley.polls) / (SECONDS * rounds.length),
    cpuMicrosPerPoll,
    rawCpuMicrosPerPoll,
    // Parley's polls per CPU second as a ratio to the raw server's (1: as cheap as the bare server).
    rawRatio: rawCpuMicrosPerPoll / cpuMicrosPerPoll,
    rounds,
  };
}

/** The one-sender job: 10 messages in flight from one member to the channel's members (all polling). */
async function oneSender(servers, members) {
  const job = (pollers) =>
    measureFanout(servers, {
      members: pollers,
      processes: 1,
      seconds: SECONDS,
      concurrency: 10,
      progress: (t) => say(`one sender: ${t}`),
      next: oneSenderSends("bench-50", members[0], pollers.length),
    });
  const sendOnly = await job([]);
  await sleep(1000);
  const idleRss = rssMiB(servers.child.pid);
  const run = await job(members);
  const sendCpu = sendOnly.serverCpuMsPerMessage * run.messages;
  return {
    ...run,
    idleRss,
    sendOnlyCpuMsPerMessage: sendOnly.serverCpuMsPerMessage,
    cpuMicrosPerAnsweredPoll: ((run.serverCpuMs - sendCpu) * 1000) / run.polls,
  };
}

/** The raw limit of the one-sender job's deliveries: scripts/bench-raw.mjs with as many pollers and senders. */
async function rawLimit(pollers, bytes) {
  const server = fork(path.join(ROOT, "scripts/bench-raw.mjs"), [String(bytes)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const { port } = await new Promise((r) => server.once("message", r));
  const base = `http://127.0.0.1:${port}`;
  const poller = fork(path.join(ROOT, "scripts/bench-raw.mjs"), ["poll", base, String(pollers)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  await new Promise((r) => poller.once("message", r));
  await sleep(500);
  const { request } = await import("./bench-lib.mjs");
  const latencies = [];
  let sent = 0;
  const before = cpuMs(server.pid);
  const until = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < until) {
        const t = nowMs();
        await request("POST", `${base}/send`, {}, "x");
        latencies.push(nowMs() - t);
        sent += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuMs(server.pid) - before;
  poller.send("stop");
  const { answered } = await new Promise((r) => poller.once("message", r));
  server.send("stop");
  latencies.sort((a, b) => a - b);
  return {
    deliveriesPerSecond: answered / seconds,
    sendsPerSecond: sent / seconds,
    cpuMicrosPerDelivery: (cpu * 1000) / answered,
    sendP50: percentile(latencies, 50),
  };
}

/** (a) and (b) with each count of processes, on one organization (built once). */
async function fanout(counts) {
  const fresh = await freshDatabase();
  try {
    say("fan-out: building the organization…");
    execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", "0"], {
      cwd: ROOT,
      env: { ...process.env, ...fresh.env },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const out = [];
    for (const processes of counts) {
      const servers = await startServers(fresh.env, processes);
      try {
        const { membersOf } = await clientsFor(servers);
        const scenario = async (name, pollerProcesses) => {
          const members = await membersOf(name);
          return measureFanout(servers, {
            members,
            processes: pollerProcesses,
            seconds: SECONDS,
            concurrency: 8,
            progress: (t) => say(`${processes} process(es), ${name}: ${t}`),
            next: roundRobinSends(name, members),
          });
        };
        const which = new Set(opts.fanout.split(","));
        out.push({
          processes,
          ...(which.has("a") ? { a: await scenario("bench-50", 1) } : {}),
          ...(which.has("b") ? { b: await scenario("bench-all", 2) } : {}),
        });
      } finally {
        for (const s of servers.list) await stopServer(s);
        for (const dir of servers.extraDirs) fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    return out;
  } finally {
    await fresh.cleanup();
  }
}

async function singleProcessScenarios(wanted) {
  const fresh = await freshDatabase();
  try {
    say("building the organization…");
    execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", "0"], {
      cwd: ROOT,
      env: { ...process.env, ...fresh.env },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const servers = await startServers(fresh.env, 1);
    const out = {};
    try {
      const { membersOf } = await clientsFor(servers);
      const members = await membersOf("bench-50");
      if (wanted.has("poll-cost")) {
        say("poll cost…");
        out.pollCost = await pollCost(servers, members);
      }
      if (wanted.has("one-sender") || wanted.has("raw")) out.oneSender = await oneSender(servers, members);
    } finally {
      await stopServer(servers.list[0]);
    }
    if (wanted.has("raw")) {
      say("raw limit…");
      out.raw = await rawLimit(50, 900);
      out.rawRatio = out.oneSender.deliveriesPerSecond / out.raw.deliveriesPerSecond;
    }
    return out;
  } finally {
    await fresh.cleanup();
  }
}

if (!opts["no-build"]) execFileSync(process.execPath, [path.join(ROOT, "scripts/build.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
const wanted = new Set(opts.scenario);
const result = {
  engine: opts.engine,
  ...(opts.engine === "postgres" ? { transport: postgresTransport(process.env.PARLEY_TEST_POSTGRES_URL ?? "") } : {}),
  date: new Date().toISOString(),
  loadAverage: os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" "),
};
if (wanted.has("poll-cost") || wanted.has("one-sender") || wanted.has("raw")) Object.assign(result, await singleProcessScenarios(wanted));
if (wanted.has("fanout")) {
  // Several processes need PostgreSQL (SQLite is one process by design).
  result.fanout = await fanout(PROCESS_COUNTS.filter((k) => k === 1 || opts.engine === "postgres"));
}
result.loadAverageAfter = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ");
progress("");
console.log(JSON.stringify(result, null, 2));
// Alone: this engine's figures replace its part of the section (the other engine's are kept).
// A partial fan-out run (--fanout a) is printed only: the report's table needs both channels.
if (!opts["no-write"] && !(result.fanout ?? []).some((f) => !f.a || !f.b)) {
  const store = path.join(ROOT, "docs/benchmarks/multi.json");
  const all = fs.existsSync(store) ? JSON.parse(fs.readFileSync(store, "utf8")).filter((r) => r.engine !== result.engine) : [];
  all.push(result);
  all.sort((x, y) => x.engine.localeCompare(y.engine)).reverse();
  fs.writeFileSync(store, JSON.stringify(all, null, 2) + "\n");
  writeMultiSection(path.join(ROOT, "docs/benchmarks.md"), all);
}
