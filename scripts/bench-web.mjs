#!/usr/bin/env node
// The web app's budgets (issue 16), measured in Debian's Chromium driven by playwright-core:
//   - initial JavaScript: the entry chunk and its static imports, gzip -9 (dist/web's manifest);
//   - time to the first message list: from navigation start to the first message row in the page,
//     opening the app at a channel narrow, a topic narrow and the combined feed of the benchmark's
//     large organization (hamlet, signed in; 1 cold + 5 warm loads each, the browser cache warm
//     after the first);
//     Each load is broken down by the app's performance marks (script running, state applied,
//     first render) and the first /messages answer; and, since the 2-core machine is shared, by
//     the CPU time the server and the browser used for it (every process under this one; it
//     includes starting the new tab's renderer);
//   - the server's part alone: GET / (the page with the embedded /register answer) and each
//     view's first GET /json/messages, one request at a time, ms and server CPU ms per request;
//   - JS heap after N minutes in a busy channel: the page open at a channel while another member
//     sends messages continuously (one every 500 ms); CDP Runtime.getHeapUsage sampled each 30 s,
//     the last after a forced garbage collection; DOM nodes (Performance.getMetrics) alongside.
// Used by scripts/bench.mjs on its large organization; also runs alone:
//   node scripts/bench-web.mjs [--messages N] [--minutes M] [--data-dir DIR] [--no-write]
// Alone it builds the organization (SQLite) with N messages (default 1,000,000), and writes its
// section of docs/benchmarks.md (between the web-app markers) unless --no-write.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { cpuMs, devClient, percentile, progress, ROOT, sleep, startServer, stopServer } from "./bench-lib.mjs";

const CHROMIUM = process.env.PARLEY_TEST_CHROMIUM ?? "/usr/bin/chromium";
export const webBenchAvailable = () => fs.existsSync(CHROMIUM);

/** The JavaScript the app needs to start: the entry chunk and what it imports statically, gzip -9 bytes. */
export function initialJsGzip() {
  const dir = path.join(ROOT, "dist", "web");
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, ".vite", "manifest.json"), "utf8"));
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  const files = [entry.file, ...(entry.imports ?? []).map((key) => manifest[key].file)];
  const lazy = Object.values(manifest)
    .filter((chunk) => chunk.isDynamicEntry)
    .map((chunk) => chunk.file);
  const gz = (file) => zlib.gzipSync(fs.readFileSync(path.join(dir, file)), { level: 9 }).length;
  return { bytes: files.reduce((sum, file) => sum + gz(file), 0), lazy: lazy.map((file) => ({ file, bytes: gz(file) })) };
}

async function launch() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

async function signIn(browser, base, name) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${base}/devlogin/`);
  await page.click(`button:has-text('${name}')`);
  await page.waitForSelector(".sidebar .channels", { timeout: 60_000 });
  await page.close();
  return context;
}

// Notes (in the page, from its first script on) when the first message row enters the DOM.
const FIRST_ROW_OBSERVER = `
  (() => {
    const seen = () => { if (window.__firstRowAt === undefined && document.querySelector(".message-list .message")) window.__firstRowAt = performance.now(); };
    new MutationObserver(seen).observe(document, { subtree: true, childList: true });
  })();`;

/** The processes under this one (the server, the browser and its helpers): CPU ms used so far. */
function descendantsCpuMs() {
  const parents = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.split(") ")[1].split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const pid of parents.keys()) {
    for (let p = parents.get(pid); p; p = parents.get(p)) {
      if (p !== process.pid) continue;
      try {
        total += cpuMs(pid);
      } catch {
        // gone meanwhile
      }
      break;
    }
  }
  return total;
}

/** ms from navigation start to the first message row, opening `hash` in a fresh page. */
async function timeToFirstMessages(context, base, hash) {
  const page = await context.newPage();
  try {
    const cpuBefore = descendantsCpuMs();
    await page.goto(`${base}/${hash}`, { waitUntil: "commit" });
    await page.waitForSelector(".message-list .message", { timeout: 60_000 });
    const cpu = descendantsCpuMs() - cpuBefore;
    // Where the time went: the app's marks (web/src/main.tsx) and the first /messages answered.
    const parts = await page.evaluate(() => {
      const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
      return {
        firstRow: globalThis.__firstRowAt,
        html: performance.getEntriesByType("navigation")[0].responseEnd,
        script: mark("parley:script"),
        state: mark("parley:state"),
        rendered: mark("parley:rendered"),
        messages: performance.getEntriesByType("resource").find((e) => /\/json\/messages\?/.test(e.name))?.responseEnd ?? NaN,
      };
    });
    return { ...parts, cpu };
  } finally {
    await page.close();
  }
}

/** The web app's first GET /messages of a view (web/src/messages.ts, openingRequest). */
function firstMessagesUrl(narrow) {
  const params = { narrow: JSON.stringify(narrow), anchor: "first_unread", num_before: "50", num_after: "50", apply_markdown: "true", client_gravatar: "true" };
  return `/json/messages?${new URLSearchParams(params)}`;
}

/**
 * The server's part of a load, alone: GET / (which embeds the /register answer) and the first
 * GET /json/messages of each view, one at a time with the browser's session: p50 ms and the
 * server's CPU ms per request.
 */
async function serverParts(context, server, views, rounds = 10) {
  const out = [];
  const targets = [
    ["GET / (page with the /register answer)", "/"],
    ...views.map(([label, , narrow]) => [`GET /json/messages, ${label}`, firstMessagesUrl(narrow)]),
  ];
  for (const [label, url] of targets) {
    const times = [];
    const cpuBefore = cpuMs(server.child.pid);
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const res = await context.request.get(`${server.base}${url}`);
      await res.body();
      if (!res.ok()) throw new Error(`${url}: HTTP ${res.status()}`);
      times.push(performance.now() - started);
    }
    const cpu = (cpuMs(server.child.pid) - cpuBefore) / rounds;
    times.sort((a, b) => a - b);
    out.push({ label, p50: percentile(times, 50), min: times[0], cpu });
  }
  return out;
}

/**
 * The web figures on a running server of the benchmark organization. `minutes` = 0 skips the heap.
 */
export async function measureWebApp(server, { minutes, say = progress }) {
  const browser = await launch();
  try {
    const hamlet = await devClient(server.base, "hamlet@zulip.com");
    const streams = (await hamlet.call("GET", "/streams")).streams;
    const channel = streams.find((s) => s.name === "bench-100");
    const slug = `${channel.stream_id}-${channel.name}`;
    const context = await signIn(browser, server.base, "King Hamlet");
    await context.addInitScript(FIRST_ROW_OBSERVER);
    const channelTerm = { operator: "channel", operand: channel.stream_id };
    const views = [
      ["channel narrow (#bench-100)", `#narrow/channel/${slug}`, [channelTerm]],
      ["topic narrow (#bench-100 › topic 3)", `#narrow/channel/${slug}/topic/topic.203`, [channelTerm, { operator: "topic", operand: "topic 3" }]],
      ["combined feed", "#feed", []],
    ];
    say("web: the server's part alone…");
    const serverAlone = await serverParts(context, server, views);
    const firstList = [];
    for (const [label, hash] of views) {
      say(`web: first message list, ${label}…`);
      const loads = [];
      for (let i = 0; i < 6; i++) loads.push(await timeToFirstMessages(context, server.base, hash));
      const warm = loads.slice(1);
      const p50 = (key) =>
        percentile(
          warm.map((l) => l[key]).sort((a, b) => a - b),
          50,
        );
      firstList.push({
        label,
        cold: loads[0].firstRow,
        p50: p50("firstRow"),
        max: Math.max(...warm.map((l) => l.firstRow)),
        parts: { html: p50("html"), script: p50("script"), state: p50("state"), rendered: p50("rendered"), messages: p50("messages"), cpu: p50("cpu") },
      });
    }
    let heap = null;
    if (minutes > 0) heap = await busyChannelHeap(context, server, hamlet, channel, slug, minutes, say);
    await context.close();
    return { initial: initialJsGzip(), firstList, server: serverAlone, heap, loadAverage: os.loadavg()[0], cores: os.cpus().length };
  } finally {
    await browser.close();
  }
}

async function busyChannelHeap(context, server, hamlet, channel, slug, minutes, say) {
  const members = (await hamlet.call("GET", `/streams/${channel.stream_id}/members`)).subscribers;
  const users = (await hamlet.call("GET", "/users")).members;
  const senderUser = users.find((u) => members.includes(u.user_id) && u.email !== "hamlet@zulip.com" && !u.is_bot);
  const sender = await devClient(server.base, senderUser.email);
  const page = await context.newPage();
  await page.goto(`${server.base}/#narrow/channel/${slug}/topic/busy`);
  await page.waitForSelector(".message-list .status, .message-list .message", { timeout: 60_000 });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const sample = async (gc) => {
    if (gc) await cdp.send("HeapProfiler.collectGarbage");
    const { usedSize, totalSize } = await cdp.send("Runtime.getHeapUsage");
    const metrics = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
    return { usedMiB: usedSize / 1048576, totalMiB: totalSize / 1048576, nodes: metrics.Nodes };
  };
  const start = await sample(true);
  let sent = 0;
  let errors = 0;
  let stop = false;
  const sending = (async () => {
    while (!stop) {
      try {
        await sender.call("POST", "/messages", {
          type: "stream",
          to: String(channel.stream_id),
          topic: "busy",
          content: `Busy channel message ${++sent}: castle denmark verona ghost **king** queen \`sword\` poison`,
        });
      } catch {
        errors++;
      }
      await sleep(500);
    }
  })();
  const samples = [];
  let peak = start.usedMiB;
  const until = Date.now() + minutes * 60_000;
  while (Date.now() < until) {
    await sleep(Math.min(30_000, Math.max(0, until - Date.now())));
    const s = await sample(false);
    peak = Math.max(peak, s.usedMiB);
    samples.push(s.usedMiB);
    say(`web: busy channel, ${Math.round((minutes * 60_000 - (until - Date.now())) / 1000)} s, ${sent} messages, heap ${s.usedMiB.toFixed(1)} MiB…`);
  }
  stop = true;
  await sending;
  await sleep(1000);
  const end = await sample(true);
  const rows = await page.locator(".message-list .message").count();
  await page.close();
  return { minutes, sent, errors, start, end, peak, rows };
}

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "–");

/** The web app's rows for docs/benchmarks.md. */
export function webSection(results, { messages, command }) {
  const lines = [
    "## Web app",
    "",
    `Measured by \`${command}\` (scripts/bench-web.mjs) in Debian's Chromium (headless, playwright-core), on the benchmark organization with ${fmt(messages)} messages; the reader is hamlet.`,
    "",
  ];
  lines.push("| engine | figure | value | budget | met |", "|---|---|---:|---:|:---:|");
  for (const { engine, web } of results) {
    const kb = web.initial.bytes / 1024;
    lines.push(`| ${engine} | initial JavaScript (gzip) | ${fmt(kb, 1)} KB | ≤ 100 KB | ${kb <= 100 ? "yes" : "**no**"} |`);
    for (const f of web.firstList) {
      lines.push(
        `| ${engine} | first message list, ${f.label}: p50 of 5 warm loads (cold load; slowest warm) | ${fmt(f.p50)} ms (${fmt(f.cold)}; ${fmt(f.max)}) | ≤ 1,000 ms | ${f.p50 <= 1000 && f.cold <= 1000 ? "yes" : "**no**"} |`,
      );
      if (f.parts)
        lines.push(
          `| ${engine} | … of which (p50, ms from navigation): page with state received · script running · state applied · first render · /messages answered | ${fmt(f.parts.html)} · ${fmt(f.parts.script)} · ${fmt(f.parts.state)} · ${fmt(f.parts.rendered)} · ${fmt(f.parts.messages)} ms | | |`,
          `| ${engine} | … CPU time the server and the browser (all its processes, the new tab's included) used for the load, p50 | ${fmt(f.parts.cpu)} ms | | |`,
        );
    }
    for (const part of web.server ?? [])
      lines.push(
        `| ${engine} | server alone, ${part.label}: p50 (fastest) · server CPU per request | ${fmt(part.p50, 1)} ms (${fmt(part.min, 1)}) · ${fmt(part.cpu)} ms | | |`,
      );
    if (web.heap) {
      const h = web.heap;
      lines.push(
        `| ${engine} | JS heap after ${fmt(h.minutes, h.minutes % 1 ? 1 : 0)} min in a busy channel (${fmt(h.sent)} messages received; after GC, peak before GC) | ${fmt(h.end.usedMiB, 1)} MiB (peak ${fmt(h.peak, 1)}) | ≤ 50 MB | ${h.end.usedMiB * 1.048576 <= 50 && h.errors === 0 ? "yes" : "**no**"} |`,
      );
      lines.push(
        `| ${engine} | … at the start (after GC); DOM nodes at start → end; message rows in the page at the end | ${fmt(h.start.usedMiB, 1)} MiB; ${fmt(h.start.nodes)} → ${fmt(h.end.nodes)}; ${fmt(h.rows)} rows | | |`,
      );
    }
  }
  const load = results.map(({ engine, web }) => `${engine} ${fmt(web.loadAverage, 1)}`).join(", ");
  lines.push(
    "",
    `Machine load while measuring (1-minute load average on ${results[0]?.web.cores} cores, at the end of the run): ${load}. The browser, the server and the sending bot share those cores; times grow with the load.`,
  );
  const lazy = results[0]?.web.initial.lazy ?? [];
  if (lazy.length > 0)
    lines.push(
      "",
      `Loaded on first use, not at start: ${lazy.map((c) => `${c.file.replace(/-[\w-]+\.js$/, "")} ${fmt(c.bytes / 1024, 1)} KB`).join(", ")} (gzip).`,
    );
  lines.push("");
  return lines.join("\n");
}

export const WEB_START = "<!-- web-app:start -->";
export const WEB_END = "<!-- web-app:end -->";

/** Puts the web section into docs/benchmarks.md (replacing the previous one). */
export function writeWebSection(text) {
  const file = path.join(ROOT, "docs/benchmarks.md");
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  const block = `${WEB_START}\n${text.trim()}\n${WEB_END}`;
  const start = current.indexOf(WEB_START);
  const end = current.indexOf(WEB_END);
  const next = start >= 0 && end > start ? current.slice(0, start) + block + current.slice(end + WEB_END.length) : `${current.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, next);
}

// ---- Alone: build the organization (SQLite), measure, write. ----
if (import.meta.url === `file://${process.argv[1]}`) {
  const { values: opts } = parseArgs({
    options: {
      messages: { type: "string", default: "1000000" },
      minutes: { type: "string", default: "10" },
      // An organization built before (node --import tsx scripts/bench-org.ts with PARLEY_DATA_DIR): kept, not built.
      "data-dir": { type: "string" },
      "no-write": { type: "boolean", default: false },
    },
  });
  if (!webBenchAvailable()) {
    console.error(`No Chromium at ${CHROMIUM}: apt-get install chromium (or set PARLEY_TEST_CHROMIUM).`);
    process.exit(1);
  }
  execFileSync(process.execPath, [path.join(ROOT, "scripts/build.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const reuse = opts["data-dir"];
  const dataDir = reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-web-"));
  try {
    if (!reuse) {
      progress(`building the organization (${Number(opts.messages).toLocaleString()} messages)…`);
      execFileSync(process.execPath, ["--import", "tsx", "scripts/bench-org.ts", "--messages", opts.messages], {
        cwd: ROOT,
        env: { ...process.env, PARLEY_DATA_DIR: dataDir },
        stdio: ["ignore", "ignore", "inherit"],
      });
    }
    const server = await startServer({ PARLEY_DATA_DIR: dataDir, PARLEY_DEV: "1" });
    let web;
    try {
      web = await measureWebApp(server, { minutes: Number(opts.minutes) });
    } finally {
      await stopServer(server);
    }
    progress("");
    const command = `node scripts/bench-web.mjs --messages ${opts.messages} --minutes ${opts.minutes}`;
    const text = webSection([{ engine: "SQLite", web }], { messages: Number(opts.messages), command });
    if (!opts["no-write"]) writeWebSection(text);
    console.log(text);
  } finally {
    if (!reuse) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
