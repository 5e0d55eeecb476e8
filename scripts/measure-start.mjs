#!/usr/bin/env node
// Measures how fast and how small an empty server starts: spawns `parley serve` on a fresh SQLite
// data directory (first start: migrations + organization), then again on the same directory
// (second start), and prints for each the time from spawn to the first answered GET /health and
// the process's VmRSS one second later.
//
// Options: --runs N (default 3), --how tsx|npm|NODE-ARGS (default tsx):
//   tsx  node --import tsx src/cli.ts serve   (as scripts/bench.mjs starts it)
//   npm  npm start                            (measures the server process npm spawns)
//   any other value is split on spaces and passed to node, e.g. --how "dist/cli.js serve"
// --keep keeps the data directories; PARLEY_* variables in the environment are passed through.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort, ROOT, rssMiB, waitForHealth } from "./bench-lib.mjs";

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    how: { type: "string", default: "tsx" },
    keep: { type: "boolean", default: false },
  },
});

/** The pid of the process that listens (npm start runs it as a child of npm's shell). */
function serverPid(child) {
  if (opts.how !== "npm") return child.pid;
  const descendants = (pid) => {
    let kids = [];
    try {
      kids = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      // the process has ended
    }
    return kids.flatMap((k) => [k, ...descendants(k)]);
  };
  const all = descendants(child.pid);
  // The deepest node process is the server.
  return (
    all
      .filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/comm`, "utf8").trim() === "node";
        } catch {
          return false;
        }
      })
      .at(-1) ?? child.pid
  );
}

function command() {
  if (opts.how === "tsx") return [process.execPath, ["--import", "tsx", "src/cli.ts", "serve"]];
  if (opts.how === "npm") return ["npm", ["start", "--silent"]];
  return [process.execPath, opts.how.split(" ").filter(Boolean)];
}

async function start(dataDir) {
  const port = await freePort();
  const [cmd, args] = command();
  const started = performance.now();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port), PARLEY_LOG_LEVEL: "error", PARLEY_DATA_DIR: dataDir },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  await waitForHealth(child, `http://127.0.0.1:${port}`);
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 1000));
  const rss = rssMiB(serverPid(child));
  process.kill(-child.pid, "SIGTERM");
  await new Promise((r) => child.once("exit", r));
  return { ms, rss };
}

const rows = [];
for (let i = 0; i < Number(opts.runs); i++) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-start-"));
  try {
    const first = await start(dir);
    const second = await start(dir);
    rows.push({ first, second });
    console.log(
      `run ${i + 1}: first start ${first.ms.toFixed(0)} ms, ${first.rss.toFixed(1)} MiB; ` +
        `second start ${second.ms.toFixed(0)} ms, ${second.rss.toFixed(1)} MiB`,
    );
  } finally {
    if (!opts.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `median (${opts.how}): first start ${median(rows.map((r) => r.first.ms)).toFixed(0)} ms, ` +
    `${median(rows.map((r) => r.first.rss)).toFixed(1)} MiB; second start ` +
    `${median(rows.map((r) => r.second.ms)).toFixed(0)} ms, ${median(rows.map((r) => r.second.rss)).toFixed(1)} MiB`,
);
