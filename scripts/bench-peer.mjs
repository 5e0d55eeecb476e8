#!/usr/bin/env node
// Issue 34's side-by-side benchmark: Parley against a dedicated chat server, Prosody 0.12
// (scripts/bench-xmpp.mjs), on the same job on the same machine, and the other targets
// measured in the same run. Run by `npm run bench` (scripts/bench.mjs) or alone:
//   npm run bench -- --only peer [--seconds 5] [--warmup 2] [--min-messages 50] [--rounds 3] [--sizes 50,500] [--idle-seconds 30] [--no-write]
//   node scripts/bench-peer.mjs   (same options, plus --no-build)
//
// The job, identical for both: one room (a Parley channel, a Prosody multi-user chat room) with N
// members who all receive every message; one sender, itself a member, keeps 10 messages in flight;
// a run is complete when every member has every message. Parley's members long-poll over keep-alive
// connections (the Zulip API, scripts/bench-poller.mjs), 10 in flight = 10 POST /messages
// outstanding; Prosody's members hold raw XMPP sockets (scripts/bench-xmpp-member.mjs), and the
// sender sends the next message when the room reflects one of its own back. Members run in as many
// child processes for both (1 for N ≤ 100, else 2). For each N both servers are started once (and
// Prosody's room joined once: its joins cost O(N²)); then runs alternate Parley, Prosody, Parley, …
// for --rounds rounds, after one unmeasured --warmup run of each; figures are medians.
//
// Targets (issue 34), each as a ratio measured in this run:
//   N = 50: msg/s ≥ 1.0× Prosody's, p50 send → last receipt ≤ 1.0× Prosody's; N = 500: msg/s ≥ 4×;
//   an answered poll's server CPU ≤ 1.3× the bare Node HTTP server's for the same bytes
//   (scripts/bench-multi.mjs poll-cost); idle RSS ≤ 70 MiB (30 s after start, the benchmark
//   organization loaded) and peak RSS under the N = 50 job ≤ 1.3× that; PostgreSQL within 2× of
//   SQLite on every fan-out scenario (when PARLEY_TEST_POSTGRES_URL is set).
// With PostgreSQL and NATS it also runs fan-out (a)/(b) with 1 and 2 processes (issue 34 item 4).
// Prosody, its members and every Parley server are stopped on error, SIGINT and SIGTERM.
import { execFileSync, fork, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { measureFanout, oneSenderSends } from "./bench-fanout.mjs";
import { MULTI_END } from "./bench-multi-report.mjs";
import {
  channelMemberUsers,
  Client,
  cpuMs,
  devClient,
  machineBusyMs,
  nowMs,
  percentile,
  progress,
  ROOT,
  rssMiB,
  sleep,
  startServer,
  stopServer,
} from "./bench-lib.mjs";
import { MUC_DOMAIN, startProsody, XmppConnection } from "./bench-xmpp.mjs";

export const PEER_START = "<!-- bench-peer: start -->";
export const PEER_END = "<!-- bench-peer: end -->";
const IN_FLIGHT = 10;
/** Issue 34's throughput targets: Parley's msg/s ÷ Prosody's, at least, per room size N. */
const RATE_TARGETS = { 50: 1, 500: 4 };
const ROOM = `bench@${MUC_DOMAIN}`;

// ---- What to stop on the way out, whatever the way. ----
const live = new Set();
function track(stop) {
  const entry = { stop };
  live.add(entry);
  const untrack = () => {
    live.delete(entry);
    return stop();
  };
  // Drops the entry without running its stop (the thing stopped by itself).
  untrack.forget = () => live.delete(entry);
  return untrack;
}
async function stopAll() {
  for (const entry of [...live].reverse()) {
    live.delete(entry);
    await Promise.resolve(entry.stop()).catch(() => undefined);
  }
}
let signalsHandled = false;
function handleSignals() {
  if (signalsHandled) return;
  signalsHandled = true;
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, async () => {
      progress("");
      console.error(`\n${signal}: stopping Prosody, the members and the servers…`);
      await stopAll();
      process.exit(130);
    });
  }
}

/** RSS of a process that may be exiting (a signal's clean-up runs while the sampler does). */
const rssOrZero = (pid) => {
  try {
    return rssMiB(pid);
  } catch {
    return 0;
  }
};
const membersProcesses = (size) => (size <= 100 ? 1 : 2);
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---- Prosody's run of the job. ----
function startMember() {
  const child = fork(path.join(ROOT, "scripts/bench-xmpp-member.mjs"), [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const member = { child, delivered: 0, waiters: [] };
  child.on("message", (m) => {
    if ("delivered" in m) member.delivered = m.delivered;
    else member.waiters.shift()?.(m);
  });
  member.ask = (msg) =>
    new Promise((resolve, reject) => {
      member.waiters.push(resolve);
      child.send(msg);
      child.once("exit", () => reject(new Error("an XMPP member process exited")));
    });
  member.untrack = track(() => child.exitCode === null && child.kill("SIGKILL"));
  return member;
}

/** One sending phase of the Prosody job on joined `members` (the sender keeps IN_FLIGHT outstanding). */
async function prosodySends({ size, seconds, minMessages, say, pid, sender, members }) {
  say(`sending for ${seconds}s, ${IN_FLIGHT} in flight…`);
  const sentAt = new Map();
  const echoAt = new Map();
  const deliveredBefore = members.reduce((n, m) => n + m.delivered, 0);
  const rss = { max: 0 };
  const sampler = setInterval(() => (rss.max = Math.max(rss.max, rssOrZero(pid))), 200);
  const cpuBefore = cpuMs(pid);
  const memberCpu = () => members.reduce((n, m) => n + cpuMs(m.child.pid), 0);
  const memberCpuBefore = memberCpu();
  const machineBefore = machineBusyMs();
  const t0Wall = nowMs();
  const until = performance.now() + seconds * 1000;
  // Sequence numbers go on from the previous run (a warm-up's late deliveries are never this run's).
  let seq = prosodySends.lastSeq ?? 0;
  let allEchoed;
  const echoed = new Promise((resolve) => (allEchoed = resolve));
  const sendNext = () => {
    seq += 1;
    sentAt.set(seq, nowMs());
    sender.sendGroupchat(ROOM, `m${seq}`, String(seq));
  };
  sender.receiveBodies((body) => {
    const s = Number(body);
    if (!sentAt.has(s)) return;
    echoAt.set(s, nowMs());
    if (performance.now() < until || sentAt.size < minMessages) sendNext();
    else if (echoAt.size === sentAt.size) allEchoed();
  });
  for (let i = 0; i < IN_FLIGHT; i++) sendNext();
  await Promise.race([echoed, sleep(seconds * 1000 + 60_000)]);
  prosodySends.lastSeq = seq;
  const sendSeconds = (nowMs() - t0Wall) / 1000;
  const expected = deliveredBefore + sentAt.size * (size - 1);
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline && members.reduce((n, m) => n + m.delivered, 0) < expected) await sleep(20);
  const serverCpuMs = cpuMs(pid) - cpuBefore;
  const memberCpuMs = memberCpu() - memberCpuBefore;
  const machineMs = machineBusyMs() - machineBefore;
  clearInterval(sampler);
  const merged = new Map();
  return {
    /** Adds one member process's deliveries ([seq, count, lastAt]) of this phase. */
    complete(deliveries) {
      for (const [s, count, at] of deliveries) {
        if (!sentAt.has(s)) continue;
        const d = merged.get(s);
        if (d) {
          d.count += count;
          d.at = Math.max(d.at, at);
        } else merged.set(s, { count, at });
      }
    },
    figures() {
      const latencies = [];
      let missing = 0;
      let lastDelivery = t0Wall;
      for (const [s, started] of sentAt) {
        const d = merged.get(s) ?? { count: 0, at: 0 };
        const echo = echoAt.get(s);
        const count = d.count + (echo ? 1 : 0);
        const at = Math.max(d.at, echo ?? 0);
        missing += size - count;
        if (count >= size) latencies.push(at - started);
        if (count > 0) lastDelivery = Math.max(lastDelivery, at);
      }
      latencies.sort((a, b) => a - b);
      const completedSeconds = (lastDelivery - t0Wall) / 1000;
      return {
        queues: size,
        messages: sentAt.size,
        completedPerSecond: sentAt.size / Math.max(sendSeconds, completedSeconds),
        completedSeconds,
        deliveryP50: percentile(latencies, 50),
        deliveryP99: percentile(latencies, 99),
        missing,
        errors: 0,
        serverCpuMsPerMessage: serverCpuMs / Math.max(1, sentAt.size),
        machineCpuMsPerMessage: machineMs / Math.max(1, sentAt.size),
        // The receiving members' CPU per delivered message (the sender's, in this process, is not counted).
        clientCpuMicrosPerDelivery: (memberCpuMs * 1000) / Math.max(1, sentAt.size * size - missing),
        maxRssMiB: rss.max,
      };
    },
  };
}

/**
 * Prosody with the job's room: started, its idle RSS read, then the sender and `size` − 1 members
 * joined (Prosody's joins cost O(N²): minutes at N = 500 on a busy machine, so the room is set up
 * once per N and every round runs on it, as Parley's server is started once per N).
 */
async function openProsodyRoom({ size, minMessages, say }) {
  const prosody = await startProsody();
  const members = [];
  let sender;
  const close = track(async () => {
    sender?.close();
    for (const m of members) await m.untrack();
    await prosody.stop();
  });
  try {
    const pid = prosody.child.pid;
    await sleep(1000);
    const idleRss = rssMiB(pid);
    say(`joining ${size} members…`);
    // The sender is a member too: it creates the room, the others join it.
    sender = new XmppConnection(prosody.port);
    await sender.connect();
    await sender.join(ROOM, "sender");
    const processes = membersProcesses(size);
    for (let k = 0; k < processes; k++) members.push(startMember());
    const nicks = Array.from({ length: size - 1 }, (_, i) => `m${i}`);
    const answers = await Promise.all(
      members.map((m, k) => m.ask({ cmd: "register", port: prosody.port, room: ROOM, nicks: nicks.filter((_, i) => i % processes === k) })),
    );
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(`XMPP members could not join: ${failed.error}`);
    for (const m of members) m.child.send({ cmd: "poll" });
    await sleep(1500);
    return {
      pid,
      idleRss,
      close,
      /** One measured run of the job on the joined room. */
      async run(seconds, runSay, atLeast = minMessages) {
        const phase = await prosodySends({ size, seconds, minMessages: atLeast, say: runSay, pid, sender, members });
        let errors = sender.error ? 1 : 0;
        for (const m of members) {
          const report = await m.ask({ cmd: "report" });
          errors += report.pollErrors;
          phase.complete(report.deliveries);
        }
        const figures = phase.figures();
        return { ...figures, errors: errors + figures.errors, idleRss };
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---- Parley's run of the job (the benchmark organization, built once, on SQLite). ----
function buildOrganization(env) {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", "0", "--with-bench-500"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function startParley(env) {
  const server = await startServer({ ...env, PARLEY_DEV: "1" });
  return { server, untrack: track(() => stopServer(server)) };
}

/** The API keys of `channel`'s members (kept between runs: the database is the same). */
async function channelMembers(server, channel, keys) {
  if (!keys.has(channel)) {
    const users = await channelMemberUsers(server.base, channel);
    const list = [];
    for (const u of users) list.push({ email: u.email, apiKey: (await devClient(server.base, u.email)).apiKey });
    keys.set(channel, list);
  }
  return keys.get(channel).map((k) => new Client(server.base, k.email, k.apiKey));
}

/**
 * Parley started on the organization, `channel`'s members' API keys fetched, its idle RSS read
 * (after `idleSeconds` when given: V8 gives back start-up's young generation only once idle).
 */
async function openParleyChannel({ size, env, keys, idleSeconds = 0, minMessages, say }) {
  const { server, untrack } = await startParley(env);
  try {
    const channel = `bench-${size}`;
    const members = await channelMembers(server, channel, keys);
    if (members.length !== size) throw new Error(`${channel} has ${members.length} members, not ${size}`);
    if (idleSeconds > 0) say(`Parley idle RSS: ${idleSeconds} s after start…`);
    await sleep(Math.max(1, idleSeconds) * 1000);
    const idleRss = rssMiB(server.child.pid);
    return {
      idleRss,
      settledIdleRss: idleSeconds > 0 ? idleRss : NaN,
      close: untrack,
      /** One measured run of the job: every member registers a queue and long-polls. */
      async run(seconds, runSay, atLeast = minMessages) {
        const r = await measureFanout(server, {
          members,
          processes: membersProcesses(size),
          seconds,
          concurrency: IN_FLIGHT,
          minMessages: atLeast,
          progress: runSay,
          next: oneSenderSends(channel, members[0], members.length),
        });
        return { ...r, idleRss };
      },
    };
  } catch (error) {
    await untrack();
    throw error;
  }
}

// ---- Issue 18's scripts for the rest of the targets. ----
async function benchMulti(args, say) {
  say(`scripts/bench-multi.mjs ${args.join(" ")}…`);
  // Asynchronous, so that SIGINT reaches this process's handler; in a process group of its own, so
  // that stopping it stops its servers and pollers too (bench-multi.mjs has no clean-up of its own).
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/bench-multi.mjs"), "--no-build", "--no-write", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is gone already
    }
  };
  const untrack = track(async () => {
    killGroup("SIGTERM");
    await sleep(3000);
    killGroup("SIGKILL");
  });
  const timer = setTimeout(() => killGroup("SIGKILL"), 20 * 60_000);
  const chunks = [];
  child.stdout.on("data", (c) => chunks.push(c));
  const code = await new Promise((resolve) => child.once("exit", (c, signal) => resolve(c ?? signal)));
  clearTimeout(timer);
  // Its servers are stopped by then; anything left in its group is not wanted.
  killGroup("SIGKILL");
  untrack.forget();
  if (code !== 0) throw new Error(`scripts/bench-multi.mjs ${args.join(" ")} failed (${code})`);
  return JSON.parse(Buffer.concat(chunks).toString());
}

/**
 * The side-by-side job and the targets. `multi` (bench-multi.mjs's results per engine) and
 * `fanoutByEngine` ({ SQLite: {a, b, c}, PostgreSQL: … } from bench.mjs) are reused when given.
 */
export async function runPeer({ seconds = 5, warmup = 2, minMessages = 50, rounds = 3, sizes = [50, 500], idleSeconds = 30, multi, fanoutByEngine } = {}) {
  handleSignals();
  const say = (t) => progress(`peer: ${t}`);
  const loadBefore = os.loadavg();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-peer-"));
  const removeData = track(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { PARLEY_DATA_DIR: dataDir };
  try {
    say("building the benchmark organization (with bench-500)…");
    buildOrganization(env);
    const keys = new Map();
    const runs = {};
    let settledIdleRss = NaN;
    for (const size of sizes) {
      runs[size] = { parley: [], prosody: [] };
      const sayN = (t) => say(`N=${size}: ${t}`);
      // Both servers stay up for all of N's rounds (neither does anything between its runs).
      const peers = {};
      try {
        peers.parley = await openParleyChannel({ size, env, keys, idleSeconds: size === 50 ? idleSeconds : 0, minMessages, say: sayN });
        if (size === 50) settledIdleRss = peers.parley.settledIdleRss;
        peers.prosody = await openProsodyRoom({ size, minMessages, say: (t) => sayN(`prosody: ${t}`) });
        for (let round = 0; round < rounds; round++) {
          for (const peer of ["parley", "prosody"]) {
            const sayRun = (t) => say(`N=${size} round ${round + 1}/${rounds} ${peer}: ${t}`);
            // Unmeasured first, for both: V8 optimizes Parley's code only once it has run a while.
            if (round === 0 && warmup > 0) await peers[peer].run(warmup, (t) => sayRun(`warm-up: ${t}`), 0);
            const r = await peers[peer].run(seconds, sayRun);
            runs[size][peer].push(r);
            progress("");
            console.error(
              `N=${size} round ${round + 1} ${peer}: ${r.completedPerSecond.toFixed(1)} msg/s, p50 ${r.deliveryP50.toFixed(1)} ms, p99 ${r.deliveryP99.toFixed(1)} ms, ` +
                `RSS ${r.idleRss.toFixed(1)} → ${r.maxRssMiB.toFixed(1)} MiB, ${r.serverCpuMsPerMessage.toFixed(2)} CPU ms/msg, ` +
                `clients ${r.clientCpuMicrosPerDelivery.toFixed(0)} CPU µs/delivery, missing ${r.missing}, errors ${r.errors}`,
            );
          }
        }
      } finally {
        await peers.prosody?.close();
        await peers.parley?.close();
      }
    }

    // The rest of the targets, from bench-multi.mjs (reused from the whole bench when it ran them).
    const sqliteMulti =
      multi?.find((r) => r.engine === "sqlite") ?? (await benchMulti(["--engine", "sqlite", "--scenario", "poll-cost", "--seconds", String(seconds)], say));
    const postgres = Boolean(process.env.PARLEY_TEST_POSTGRES_URL);
    let fanouts = fanoutByEngine;
    let multiProcess = multi?.find((r) => r.engine === "postgres")?.fanout;
    if (!fanouts && postgres) {
      const sq = await benchMulti(["--engine", "sqlite", "--scenario", "fanout", "--processes", "1", "--seconds", String(seconds)], say);
      const pg = await benchMulti(["--engine", "postgres", "--scenario", "fanout", "--processes", "1,2", "--seconds", String(seconds)], say);
      fanouts = { SQLite: { a: sq.fanout[0].a, b: sq.fanout[0].b }, PostgreSQL: { a: pg.fanout[0].a, b: pg.fanout[0].b } };
      multiProcess = pg.fanout;
    }
    progress("");
    return {
      date: new Date().toISOString(),
      cores: os.cpus().length,
      loadBefore,
      loadAfter: os.loadavg(),
      seconds,
      warmup,
      minMessages,
      rounds,
      sizes,
      idleSeconds,
      runs,
      settledIdleRss,
      pollCost: sqliteMulti.pollCost,
      fanouts: postgres ? fanouts : undefined,
      multiProcess: postgres ? multiProcess : undefined,
    };
  } finally {
    await removeData();
    await stopAll();
  }
}

// ---- The report. ----
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "–");
const load = (l) => l.map((x) => x.toFixed(1)).join(" ");

/** Medians per peer and N: { msgPerSecond, p50, p99, idleRss, peakRss, cpuMsPerMessage, machineCpuMsPerMessage, failures }. */
function summary(list) {
  return {
    msgPerSecond: median(list.map((r) => r.completedPerSecond)),
    p50: median(list.map((r) => r.deliveryP50)),
    p99: median(list.map((r) => r.deliveryP99)),
    idleRss: median(list.map((r) => r.idleRss)),
    peakRss: median(list.map((r) => r.maxRssMiB)),
    cpuMsPerMessage: median(list.map((r) => r.serverCpuMsPerMessage)),
    machineCpuMsPerMessage: median(list.map((r) => r.machineCpuMsPerMessage)),
    clientMicrosPerDelivery: median(list.map((r) => r.clientCpuMicrosPerDelivery)),
    failures: list.reduce((n, r) => n + r.missing + r.errors, 0),
  };
}

/** The target rows: { label, ratio, target, up (higher is better), met, note }. */
export function peerTargets(result) {
  const rows = [];
  const row = (label, value, target, up, note = "", failures = 0) =>
    rows.push({ label, value, target, up, note, met: failures === 0 && Number.isFinite(value) && (up ? value >= target : value <= target) });
  const side = (size) => result.runs[size] && { parley: summary(result.runs[size].parley), prosody: summary(result.runs[size].prosody) };
  const s50 = side(50);
  if (s50) {
    const failures = s50.parley.failures + s50.prosody.failures;
    row(
      "N = 50: msg/s, Parley ÷ Prosody",
      s50.parley.msgPerSecond / s50.prosody.msgPerSecond,
      RATE_TARGETS[50],
      true,
      `${fmt(s50.parley.msgPerSecond, 1)} vs ${fmt(s50.prosody.msgPerSecond, 1)}`,
      failures,
    );
    row(
      "N = 50: p50 send → last receipt, Parley ÷ Prosody",
      s50.parley.p50 / s50.prosody.p50,
      1,
      false,
      `${fmt(s50.parley.p50, 1)} vs ${fmt(s50.prosody.p50, 1)} ms`,
      failures,
    );
  }
  const s500 = side(500);
  if (s500) {
    row(
      "N = 500: msg/s, Parley ÷ Prosody",
      s500.parley.msgPerSecond / s500.prosody.msgPerSecond,
      RATE_TARGETS[500],
      true,
      `${fmt(s500.parley.msgPerSecond, 1)} vs ${fmt(s500.prosody.msgPerSecond, 1)}`,
      s500.parley.failures + s500.prosody.failures,
    );
  }
  const pc = result.pollCost;
  if (pc) {
    row(
      "answered poll's server CPU ÷ bare Node HTTP server's, same bytes",
      pc.cpuMicrosPerPoll / pc.rawCpuMicrosPerPoll,
      1.3,
      false,
      `${fmt(pc.cpuMicrosPerPoll, 1)} vs ${fmt(pc.rawCpuMicrosPerPoll, 1)} µs`,
    );
  }
  if (Number.isFinite(result.settledIdleRss)) {
    row(`Parley idle RSS (MiB, ${result.idleSeconds} s after start, organization loaded)`, result.settledIdleRss, 70, false, "");
    if (s50)
      row("Parley peak RSS under the N = 50 job ÷ idle RSS", s50.parley.peakRss / result.settledIdleRss, 1.3, false, `${fmt(s50.parley.peakRss, 1)} MiB`);
  }
  if (result.fanouts?.SQLite && result.fanouts?.PostgreSQL) {
    for (const [key, label] of [
      ["a", "fan-out (a) 50 members"],
      ["b", "fan-out (b) 1,000 members"],
      ["c", "fan-out (c) direct messages"],
    ]) {
      const sq = result.fanouts.SQLite[key];
      const pg = result.fanouts.PostgreSQL[key];
      if (!sq || !pg) continue;
      row(
        `PostgreSQL ÷ SQLite time per message, ${label}`,
        sq.messagesPerSecond / pg.messagesPerSecond,
        2,
        false,
        `${fmt(sq.messagesPerSecond, 1)} vs ${fmt(pg.messagesPerSecond, 1)} msg/s`,
        sq.errors + sq.missing + pg.errors + pg.missing,
      );
    }
  }
  return rows;
}

export function peerSection(result) {
  const lines = [PEER_START, "## Side by side with Prosody (issue 34: scripts/bench-peer.mjs)", ""];
  lines.push(
    `${result.date.slice(0, 16).replace("T", " ")} UTC, ${result.cores} cores, load ${load(result.loadBefore)} → ${load(result.loadAfter)} (1, 5, 15 minutes).`,
    `The job, identical for both: one room with N members who all receive every message; one sender (a member) keeps ${IN_FLIGHT} messages in flight;`,
    "a run is complete when every member has every message. Parley (SQLite) members long-poll GET /events over keep-alive connections, 10 POST",
    "/messages outstanding; Prosody 0.12 (Debian's, multi-user chat, in-memory storage, no TLS, anonymous login) members hold raw XMPP sockets",
    "(ltx's parser) and the sender sends again when the room reflects one of its messages. Members run in 1 child process for N = 50, 2 for N = 500,",
    `for both. Each server is started once per N; after one unmeasured ${result.warmup} s run of each, ${result.rounds} alternating round(s) of ${result.seconds} s`,
    `(and at least ${result.minMessages ?? 0} messages) each, Parley, Prosody, Parley, …; medians. msg/s = messages ÷ time from the first send to the last member's receipt of the last message;`,
    "latency = send → the last member's receipt; RSS idle = after start, before any member connects (1 s; Parley at N = 50:",
    `${result.idleSeconds} s, the idle figure of the RSS targets); server CPU = the server process's user + system time until the last receipt,`,
    "per message; members' CPU = the receiving member processes' time per message received (they share the cores with the server);",
    "machine CPU = the busy time of all the machine's cores (/proc/stat) during the run, per message: the job's every process, members and sender included.",
    "",
    "`npm run bench -- --only peer [--seconds 5] [--warmup 2] [--min-messages 50] [--rounds 3] [--sizes 50,500] [--idle-seconds 30] [--no-write]` runs this section alone.",
    "",
  );
  const loadNow = result.loadBefore[0];
  if (loadNow > result.cores) {
    lines.push(
      `**Measured on a busy machine** (1-minute load ${loadNow.toFixed(1)} on ${result.cores} cores): absolute figures are lower bounds, and the ratios`,
      "depend on how the other load fell on each peer's runs. Re-run on a quiet machine before reading them as the servers'.",
      "",
    );
  }
  lines.push(
    "| N | Parley msg/s | Prosody msg/s | ratio | p50 send → receive ms | p99 ms | RSS idle → peak MiB | server CPU ms/msg | machine CPU ms/msg | members' CPU µs/delivery | missing / errors |",
    "|---:|---:|---:|---:|---|---|---|---|---|---|---|",
  );
  for (const size of result.sizes) {
    const p = summary(result.runs[size].parley);
    const x = summary(result.runs[size].prosody);
    lines.push(
      `| ${size} | ${fmt(p.msgPerSecond, 1)} | ${fmt(x.msgPerSecond, 1)} | **${fmt(p.msgPerSecond / x.msgPerSecond, 2)}×** | ${fmt(p.p50, 1)} vs ${fmt(x.p50, 1)} (${fmt(p.p50 / x.p50, 2)}×) | ${fmt(p.p99, 1)} vs ${fmt(x.p99, 1)} | ${fmt(p.idleRss, 1)} → ${fmt(p.peakRss, 1)} vs ${fmt(x.idleRss, 1)} → ${fmt(x.peakRss, 1)} | ${fmt(p.cpuMsPerMessage, 2)} vs ${fmt(x.cpuMsPerMessage, 2)} (${fmt(p.cpuMsPerMessage / x.cpuMsPerMessage, 2)}×) | ${fmt(p.machineCpuMsPerMessage, 2)} vs ${fmt(x.machineCpuMsPerMessage, 2)} | ${fmt(p.clientMicrosPerDelivery)} vs ${fmt(x.clientMicrosPerDelivery)} | ${p.failures} vs ${x.failures} |`,
    );
  }
  lines.push("", "Each run (msg/s, p50 ms, server CPU ms/msg):", "");
  for (const size of result.sizes) {
    const each = (list) => list.map((r) => `${fmt(r.completedPerSecond, 1)} / ${fmt(r.deliveryP50, 1)} / ${fmt(r.serverCpuMsPerMessage, 2)}`).join("; ");
    lines.push(`- N = ${size}: Parley ${each(result.runs[size].parley)}; Prosody ${each(result.runs[size].prosody)}.`);
  }
  lines.push("", "### Issue 34's targets, measured in this run", "", "| target | figures | ratio or value | target | met |", "|---|---|---:|---:|:---:|");
  for (const r of peerTargets(result)) {
    lines.push(
      `| ${r.label} | ${r.note} | ${fmt(r.value, 2)}${r.label.includes("MiB") ? "" : "×"} | ${r.up ? "≥" : "≤"} ${fmt(r.target, r.target % 1 ? 1 : 0)} | ${r.met ? "yes" : "**no**"} |`,
    );
  }
  if (!result.fanouts) lines.push("", "PostgreSQL ÷ SQLite: not measured (`PARLEY_TEST_POSTGRES_URL` is not set).");
  lines.push(...ceilingLines(result));
  const mp = result.multiProcess;
  if (mp?.length >= 2) {
    const [one, two] = [mp.find((f) => f.processes === 1), mp.find((f) => f.processes === 2)];
    if (one && two) {
      lines.push(
        "",
        "### Several processes on one machine (PostgreSQL + NATS, fan-out (a) and (b), 8 senders)",
        "",
        "| processes | (a) msg/s | (a) Parley CPU ms/msg | (b) msg/s | (b) Parley CPU ms/msg |",
        "|---:|---:|---:|---:|---:|",
      );
      for (const f of [one, two]) {
        lines.push(
          `| ${f.processes} | ${fmt(f.a.messagesPerSecond, 1)} | ${fmt(f.a.serverCpuMsPerMessage, 2)} | ${fmt(f.b.messagesPerSecond, 1)} | ${fmt(f.b.serverCpuMsPerMessage, 2)} |`,
        );
      }
      // Expected on a larger machine: with P processes, one per core, each message costs
      // c(P) ≈ c(1) + (P − 1) × (c(2) − c(1)) ms of Parley CPU in all (each further process decodes
      // and delivers every event once more), so P cores carry about 1000 × P ÷ c(P) msg/s — if
      // PostgreSQL and NATS have cores of their own and keep up (their CPU is not in c).
      const c = (f) => f.serverCpuMsPerMessage;
      const estimate = (key, p) => {
        const extra = Math.max(0, c(two[key]) - c(one[key]));
        const cost = c(one[key]) + (p - 1) * extra;
        return `${p} processes: c ≈ ${fmt(cost, 2)} ms → ≈ ${fmt((1000 * p) / cost)} msg/s`;
      };
      lines.push(
        "",
        "Expected on a larger machine, from the CPU per message (not from this machine's throughput): with P processes on P cores, each message",
        "costs c(P) ≈ c(1) + (P − 1) × (c(2) − c(1)) ms of Parley CPU summed over the processes (each further process decodes and delivers every",
        "event once more), so they carry about 1000 × P ÷ c(P) msg/s, provided PostgreSQL and NATS have cores of their own and keep up (their",
        "CPU, the pollers' and the senders' are not in c).",
        `(a): c(1) = ${fmt(c(one.a), 2)}, c(2) = ${fmt(c(two.a), 2)} ms; ${estimate("a", 4)}; ${estimate("a", 8)}.`,
        `(b): c(1) = ${fmt(c(one.b), 2)}, c(2) = ${fmt(c(two.b), 2)} ms; ${estimate("b", 4)}; ${estimate("b", 8)}.`,
      );
    }
  }
  lines.push(PEER_END);
  return lines.join("\n");
}

/**
 * What the machine allows: the rate Parley's job would reach with every core busy on it at this
 * run's machine CPU per message (members and sender included: they run on the same cores), against
 * Prosody's measured rate and the throughput target. A target above this ceiling cannot be met on
 * this machine by spreading the same work over more threads or processes, only by less work per
 * message or more cores.
 */
function ceilingLines(result) {
  const rows = [];
  for (const size of result.sizes) {
    const p = summary(result.runs[size].parley);
    const x = summary(result.runs[size].prosody);
    if (!Number.isFinite(p.machineCpuMsPerMessage) || RATE_TARGETS[size] === undefined) continue;
    const ceiling = (result.cores * 1000) / p.machineCpuMsPerMessage;
    const ratio = ceiling / x.msgPerSecond;
    rows.push(
      `| ${size} | ${fmt(p.machineCpuMsPerMessage, 2)} | ${fmt(ceiling, 1)} | ${fmt(x.msgPerSecond, 1)} | ${fmt(ratio, 2)}× | ≥ ${RATE_TARGETS[size]} | ${ratio >= RATE_TARGETS[size] ? "yes" : "**no**"} |`,
    );
  }
  if (rows.length === 0) return [];
  return [
    "",
    `### What ${result.cores} cores allow at this CPU per message`,
    "",
    `Parley's ceiling = ${result.cores} cores × 1,000 ÷ its machine CPU per message: the rate with every core busy on the job, however the work`,
    "were spread over threads or processes. A throughput target beyond it needs less CPU per message (server, members or sender) or more cores.",
    "",
    "| N | Parley machine CPU ms/msg | Parley ceiling msg/s | Prosody msg/s | ceiling ÷ Prosody | target | reachable here |",
    "|---:|---:|---:|---:|---:|---:|:---:|",
    ...rows,
  ];
}

/** Replaces (or appends) the section in docs/benchmarks.md. */
export function writePeerSection(file, section) {
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const start = text.indexOf(PEER_START);
  const end = text.indexOf(PEER_END);
  // No section yet: after issue 18's, where `npm run bench` puts it, or at the end.
  const multiEnd = text.indexOf(MULTI_END);
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + section + text.slice(end + PEER_END.length)
      : multiEnd >= 0
        ? `${text.slice(0, multiEnd + MULTI_END.length)}\n\n${section}${text.slice(multiEnd + MULTI_END.length)}`
        : `${text.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(file, next);
}

export const PEER_OPTIONS = {
  seconds: { type: "string", default: "5" },
  warmup: { type: "string", default: "2" },
  // At N = 500 a message takes seconds to reach everyone on a busy machine: a run of a few seconds
  // would measure its first 10 messages only.
  "min-messages": { type: "string", default: "50" },
  rounds: { type: "string", default: "3" },
  sizes: { type: "string", default: "50,500" },
  "idle-seconds": { type: "string", default: "30" },
};

/** `--only peer` / running this file: the side-by-side section alone, written unless --no-write. */
export async function runPeerCli(opts) {
  // A whole run, even on a slow machine, takes far less: a hang somewhere must not leave processes behind.
  const watchdog = setTimeout(async () => {
    console.error("\nbench-peer: no result after 60 minutes, stopping everything");
    await stopAll();
    process.exit(1);
  }, 60 * 60_000);
  watchdog.unref();
  try {
    const result = await runPeer({
      seconds: Number(opts.seconds),
      warmup: Number(opts.warmup),
      minMessages: Number(opts["min-messages"]),
      rounds: Number(opts.rounds),
      sizes: opts.sizes.split(",").map(Number),
      idleSeconds: Number(opts["idle-seconds"]),
    });
    const section = peerSection(result);
    if (!opts["no-write"]) {
      writePeerSection(path.join(ROOT, "docs/benchmarks.md"), section);
      // Every run's figures, to read or re-render (peerSection) without running again.
      fs.writeFileSync(path.join(ROOT, "docs/benchmarks/peer.json"), JSON.stringify(result, null, 2) + "\n");
    }
    console.log(section);
    return result;
  } finally {
    clearTimeout(watchdog);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { ...PEER_OPTIONS, "no-write": { type: "boolean", default: false }, "no-build": { type: "boolean", default: false } },
  });
  if (!values["no-build"]) execFileSync(process.execPath, [path.join(ROOT, "scripts/build.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  try {
    await runPeerCli(values);
  } catch (error) {
    await stopAll();
    console.error(error);
    process.exit(1);
  }
}
