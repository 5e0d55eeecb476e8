#!/usr/bin/env node
// `node scripts/bench-import.mjs [--messages N] [--stream-all] [--keep] [--write]`: issue 21's
// import benchmark, alone. Generates an organization export in Zulip's layout
// (scripts/zulip-export-fixture.mjs: 1,000 messages a file, as `manage.py export` writes them;
// default 1,000,000 messages, 50 users, 20 channels of 4 subscribers, a reaction on every 10th
// message) and times `parley import zulip <dir>` into a fresh SQLite database, as a separate
// process. Reports the wall time, messages/s, and the importer's peak RSS (VmHWM); --stream-all
// streams every JSON file (PARLEY_IMPORT_STREAM_ABOVE_BYTES=0) instead of parsing the small ones
// whole. --write puts the figures in their section of docs/benchmarks.md.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { writeZulipExport } from "./zulip-export-fixture.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    messages: { type: "string", default: "1000000" },
    "stream-all": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
  },
});
const MESSAGES = Number(opts.messages);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-import-"));
const exportDir = path.join(work, "export");
const dataDir = path.join(work, "data");
const say = (line) => process.stderr.write(`[bench-import] ${line}\n`);

function dirBytes(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(full) : fs.statSync(full).size;
  }
  return total;
}

function procKiB(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function runImport() {
  fs.mkdirSync(dataDir, { recursive: true });
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
  Object.assign(env, { PARLEY_DATA_DIR: dataDir, PARLEY_LOG_LEVEL: "warn" });
  if (opts["stream-all"]) env.PARLEY_IMPORT_STREAM_ABOVE_BYTES = "0";
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "import", "zulip", exportDir], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let peakKiB = 0;
  const timer = setInterval(() => (peakKiB = Math.max(peakKiB, procKiB(child.pid, "VmHWM"))), 250);
  let checkedAt = 0;
  let lastLine = "";
  let stderr = "";
  let buffer = "";
  child.stdout.on("data", (d) => {
    buffer += d;
    const lines = buffer.split("\n");
    buffer = lines.pop();
    for (const line of lines) {
      if (line.startsWith("The export holds")) checkedAt = Date.now();
      if (line.startsWith("messages:") && Number(/^messages: (\d+)/.exec(line)[1]) % 100_000 === 0) say(line);
      if (!line.startsWith("messages:") && !line.startsWith("reactions:")) say(line);
      lastLine = line;
    }
  });
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  clearInterval(timer);
  if (code !== 0) throw new Error(`import failed (${code}): ${stderr}\n${lastLine}`);
  const seconds = (Date.now() - started) / 1000;
  return { seconds, checkSeconds: checkedAt ? (checkedAt - started) / 1000 : 0, peakMiB: Math.round(peakKiB / 1024) };
}

say(`generating a Zulip-layout export of ${MESSAGES} messages in ${exportDir}`);
const genStarted = Date.now();
const fixture = writeZulipExport(exportDir, { users: 50, streams: 20, subscribers: 4, messages: MESSAGES, perFile: 1000, reactionEvery: 10 });
const exportMiB = Math.round(dirBytes(exportDir) / 1024 / 1024);
say(
  `generated in ${((Date.now() - genStarted) / 1000).toFixed(0)} s: ${exportMiB} MiB, ${fixture.messageFiles} message files, ${fixture.userMessages} user messages, ${fixture.reactions} reactions`,
);
const r = await runImport();
const dbMiB = Math.round(dirBytes(dataDir) / 1024 / 1024);
const rate = Math.round(MESSAGES / r.seconds);
const figures = {
  messages: MESSAGES,
  userMessages: fixture.userMessages,
  reactions: fixture.reactions,
  exportMiB,
  seconds: Math.round(r.seconds),
  checkSeconds: Math.round(r.checkSeconds),
  rate,
  peakMiB: r.peakMiB,
  dbMiB,
  streamAll: opts["stream-all"],
};
console.log(JSON.stringify(figures));
if (!opts.keep) fs.rmSync(work, { recursive: true, force: true });
else say(`kept ${work}`);

if (opts.write) {
  const START = "<!-- bench-import:start -->";
  const END = "<!-- bench-import:end -->";
  const section = [
    START,
    "### Import (issue 21): `node scripts/bench-import.mjs`",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on this machine (2 cores shared with other sessions: wall times vary), SQLite, one \`parley import zulip\` process.` +
      ` The export is generated in Zulip's layout (scripts/zulip-export-fixture.mjs, ${MESSAGES.toLocaleString("en")} messages in 1,000-message files,` +
      ` ${figures.userMessages.toLocaleString("en")} user messages, ${figures.reactions.toLocaleString("en")} reactions, ${exportMiB} MiB of JSON).`,
    "",
    "| figure | value | target |",
    "|---|---:|---:|",
    `| wall time of the import (checking the export included) | ${figures.seconds} s | < 600 s |`,
    `| of which start-up, migrations and checking the export (every file parsed once) | ${figures.checkSeconds} s | |`,
    `| messages/s (over the wall time) | ${rate.toLocaleString("en")} | > 1,667 |`,
    `| peak RSS of the importer (VmHWM) | ${figures.peakMiB} MiB | bounded |`,
    `| database size afterwards | ${dbMiB} MiB | |`,
    "",
    "Memory stays bounded because no file is held whole beyond 32 MiB (PARLEY_IMPORT_STREAM_ABOVE_BYTES): larger files are" +
      " streamed (@streamparser/json), message files are read one at a time, and messages, user messages, reactions and" +
      " attachments are inserted by batches, each batch one transaction with the import's state.",
    END,
  ].join("\n");
  const full = path.join(ROOT, "docs/benchmarks.md");
  const text = fs.readFileSync(full, "utf8");
  const at = text.indexOf(START);
  const next = at >= 0 ? text.slice(0, at) + section + text.slice(text.indexOf(END) + END.length) : `${text.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(full, next);
  say("wrote docs/benchmarks.md");
}
