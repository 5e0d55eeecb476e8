#!/usr/bin/env node
// Server CPU per answered GET /events (dont_block, nothing to answer) of two or more Parley builds
// and of the bare Node server (scripts/bench-raw.mjs), all running at once and measured in short
// alternating windows, so that the shared machine's drift hits every build alike (issue 34):
//
//   node scripts/bench-poll-ab.mjs --server base=../base/dist/cli.js --server this=dist/cli.js \
//     [--rounds 7] [--seconds 2] [--connections 20]
//
// Each window polls one target from 20 keep-alive connections (20 queues of bench-50's members) and
// reads the target's CPU time from /proc. Prints each round's µs per poll and, per target, the
// median and the median of its ratio to the bare server's window of the same round.
import { execFileSync, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { channelMemberUsers, Client, cpuMs, devClient, progress, ROOT, startServer, stopServer } from "./bench-lib.mjs";

const { values: opts } = parseArgs({
  options: {
    server: { type: "string", multiple: true, default: [`this=${path.join(ROOT, "dist/cli.js")}`] },
    rounds: { type: "string", default: "7" },
    seconds: { type: "string", default: "2" },
    connections: { type: "string", default: "20" },
  },
});
const SECONDS = Number(opts.seconds);
const CONNECTIONS = Number(opts.connections);

// One benchmark organization, copied for each server (SQLite: one server per database file).
const template = fs.mkdtempSync(path.join(os.tmpdir(), "parley-poll-ab-"));
progress("building the organization…");
execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", "0"], {
  cwd: ROOT,
  env: { ...process.env, PARLEY_DATA_DIR: template },
  stdio: "ignore",
});

const targets = [];
const dirs = [template];
try {
  for (const spec of opts.server) {
    const [name, entry] = spec.split("=");
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-poll-ab-"));
    dirs.push(dataDir);
    fs.cpSync(template, dataDir, { recursive: true });
    process.env.PARLEY_BENCH_SERVER = path.resolve(entry);
    progress(`${name}: starting…`);
    const server = await startServer({ PARLEY_DATA_DIR: dataDir, PARLEY_DEV: "1" });
    const users = await channelMemberUsers(server.base, "bench-50");
    const polls = [];
    for (const u of users.slice(0, CONNECTIONS)) {
      const client = await devClient(server.base, u.email);
      const { queue_id } = await client.call("POST", "/register", { event_types: JSON.stringify(["message"]) });
      polls.push({ client, params: { queue_id, last_event_id: "-1", dont_block: "true" } });
    }
    targets.push({ name, pid: server.child.pid, server, polls, runs: [] });
  }
  const raw = fork(path.join(ROOT, "scripts/bench-raw.mjs"), ["900"], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const { port } = await new Promise((r) => raw.once("message", r));
  const rawPolls = targets[0].polls.map(({ client, params }) => ({
    client: new Client(`http://127.0.0.1:${port}`, client.email, client.apiKey),
    params,
  }));
  targets.push({ name: "raw", pid: raw.pid, polls: rawPolls, runs: [], raw });

  const pollFor = async (target, seconds) => {
    let count = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      target.polls.map(async ({ client, params }) => {
        while (performance.now() < until) {
          await client.call("GET", "/events", params);
          count += 1;
        }
      }),
    );
    return count;
  };
  const rounds = Number(opts.rounds);
  for (const target of targets) await pollFor(target, 2); // JIT warm-up
  for (let round = 0; round < rounds; round++) {
    // A different order each round: no target always follows the same one.
    const order = targets.map((_, i) => targets[(i + round) % targets.length]);
    for (const target of order) {
      progress(`round ${round + 1}/${rounds}: ${target.name}…`);
      await pollFor(target, 0.3);
      const before = cpuMs(target.pid);
      const count = await pollFor(target, SECONDS);
      target.runs[round] = ((cpuMs(target.pid) - before) * 1000) / count;
    }
    progress("");
    console.log(`round ${round + 1}: ${targets.map((t) => `${t.name} ${t.runs[round].toFixed(1)}`).join(", ")} µs/poll (load ${os.loadavg()[0].toFixed(1)})`);
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const rawRuns = targets.at(-1).runs;
  console.log("\n| target | median µs/poll | median ratio to raw |\n|---|---:|---:|");
  for (const t of targets) {
    console.log(`| ${t.name} | ${median(t.runs).toFixed(1)} | ${median(t.runs.map((r, i) => r / rawRuns[i])).toFixed(2)} |`);
  }
  raw.send("stop");
} finally {
  for (const t of targets) if (t.server) await stopServer(t.server);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}
