#!/usr/bin/env node
// Compares this build with another Parley build on the same machine, in the same minutes, with the
// same load generators: issue 18's fan-out (a) (8 senders to the 50-member channel) and its
// one-sender job (10 messages in flight to the same channel), on SQLite. The machine's speed
// changes from hour to hour (docs/benchmarks/notes.md), so absolute figures from different runs do
// not compare; a ratio to a reference build measured alternately does.
//
//   git worktree add --detach node_modules/.cache/parley-baseline 979da1f   # the build issue 18 quotes
//   (cd node_modules/.cache/parley-baseline && npm ci)
//   node scripts/bench-against.mjs --baseline node_modules/.cache/parley-baseline [--rounds 3] [--jobs a,one]
//
// Each round starts each build once (alternating which goes first), builds its benchmark
// organization with its own scripts/bench-org.ts, and runs every job twice, keeping the second run
// (the first warms the JIT). Prints each run and the medians, with this build ÷ the baseline.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { measureFanout, oneSenderSends, roundRobinSends } from "./bench-fanout.mjs";
import { channelMemberUsers, devClient, progress, ROOT, sleep, startServer, stopServer } from "./bench-lib.mjs";

const { values: opts } = parseArgs({
  options: {
    baseline: { type: "string" },
    rounds: { type: "string", default: "3" },
    jobs: { type: "string", default: "a,one" },
    seconds: { type: "string", default: "5" },
  },
});
if (!opts.baseline) throw new Error("--baseline <path of another Parley checkout with node_modules> is required");
const trees = { baseline: path.resolve(opts.baseline), this: ROOT };
const JOBS = opts.jobs.split(",");
const SECONDS = Number(opts.seconds);

const jobOptions = {
  a: (members) => ({ concurrency: 8, next: roundRobinSends("bench-50", members) }),
  one: (members) => ({ concurrency: 10, next: oneSenderSends("bench-50", members[0], members.length) }),
};

async function measureTree(name) {
  const tree = trees[name];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-against-"));
  try {
    progress(`${name}: building…`);
    execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: tree, stdio: "ignore" });
    execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", "0"], {
      cwd: tree,
      env: { ...process.env, PARLEY_DATA_DIR: dataDir },
      stdio: "ignore",
    });
    process.env.PARLEY_BENCH_SERVER = path.join(tree, "dist/cli.js");
    const server = await startServer({ PARLEY_DATA_DIR: dataDir, PARLEY_DEV: "1" });
    try {
      const users = await channelMemberUsers(server.base, "bench-50");
      const members = [];
      for (const u of users) members.push(await devClient(server.base, u.email));
      const figures = {};
      for (const job of JOBS) {
        let run;
        for (let k = 0; k < 2; k++) {
          progress(`${name}: ${job} (${k === 0 ? "warm-up" : "measured"})…`);
          run = await measureFanout(server, { members, processes: 1, seconds: SECONDS, progress: () => {}, ...jobOptions[job](members) });
          await sleep(500);
        }
        figures[job] = run;
      }
      return figures;
    } finally {
      await stopServer(server);
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const FIGURES = [
  ["msg/s", (r) => r.messagesPerSecond],
  ["server CPU ms/msg", (r) => r.serverCpuMsPerMessage],
  // Older builds' bench-fanout.mjs did not measure it.
  ["main-thread CPU ms/msg", (r) => r.mainThreadCpuMsPerMessage ?? NaN],
  ["p50 ms", (r) => r.deliveryP50],
  ["p99 ms", (r) => r.deliveryP99],
  ["peak RSS MiB", (r) => r.maxRssMiB],
];

const runs = { baseline: [], this: [] };
for (let round = 0; round < Number(opts.rounds); round++) {
  for (const name of round % 2 === 0 ? ["baseline", "this"] : ["this", "baseline"]) {
    const figures = await measureTree(name);
    runs[name].push(figures);
    const line = JOBS.map((job) => `${job}: ${FIGURES.map(([label, f]) => `${f(figures[job]).toFixed(1)} ${label}`).join(", ")}`).join(" | ");
    process.stderr.write(`\r\x1b[Kround ${round + 1} ${name}: ${line}\n`);
  }
}
console.log(`\n| job | figure | baseline (${path.basename(trees.baseline)}) | this build | ratio |\n|---|---|---:|---:|---:|`);
for (const job of JOBS) {
  for (const [label, f] of FIGURES) {
    const b = median(runs.baseline.map((r) => f(r[job])));
    const t = median(runs.this.map((r) => f(r[job])));
    console.log(`| ${job} | ${label} | ${b.toFixed(1)} | ${t.toFixed(1)} | ${(t / b).toFixed(2)} |`);
  }
}
