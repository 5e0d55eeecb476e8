// The issue-18 section of docs/benchmarks.md (scripts/bench-multi.mjs's figures), between markers
// so that bench-multi.mjs run alone replaces only its section.
import fs from "node:fs";

export const MULTI_START = "<!-- bench-multi: start -->";
export const MULTI_END = "<!-- bench-multi: end -->";

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "–");
const met = (ok) => (ok ? "yes" : "**no**");

/** Markdown for the results of bench-multi.mjs, one per engine. */
export function multiSection(results) {
  const lines = [MULTI_START, "## Several processes and delivery cost (issue 18: scripts/bench-multi.mjs)", ""];
  lines.push(
    "Load average is the machine's (1, 5, 15 minutes) when the run started and ended: other programs share the two cores, and",
    "absolute figures under load are lower bounds. Ratios are measured in the same run.",
    "",
  );
  for (const r of results) {
    lines.push(
      `### ${r.engine === "postgres" ? "PostgreSQL" : "SQLite"} (${r.date.slice(0, 16).replace("T", " ")} UTC, load ${r.loadAverage} → ${r.loadAverageAfter})`,
      "",
    );
    if (r.transport) lines.push(`Reached over ${r.transport}.`, "");
    const load = Number(r.loadAverage.split(" ")[0]);
    if (load > 2 * (r.cores ?? 2)) {
      lines.push(
        `**Measured on an oversubscribed machine** (1-minute load ${load} on ${r.cores ?? 2} cores): every process got a small, irregular share of a core,`,
        "so rates, latencies and even CPU per operation (cold JIT, cache thrashing) are far from what the code does on a quiet machine. Re-run before",
        "reading these figures as the server's.",
        "",
      );
    }
    lines.push("| figure | value | target | met |", "|---|---:|---:|:---:|");
    if (r.pollCost)
      lines.push(
        `| server CPU per answered poll, nothing to answer (dont_block) | ${fmt(r.pollCost.cpuMicrosPerPoll)} µs | ≤ 40 µs | ${met(r.pollCost.cpuMicrosPerPoll <= 40)} |`,
        ...(r.pollCost.rawCpuMicrosPerPoll === undefined
          ? []
          : [
              `| raw limit: bare Node HTTP server, same requests and bytes, CPU per answer (measured alternately) | ${fmt(r.pollCost.rawCpuMicrosPerPoll)} µs |  |  |`,
              `| poll cost as a ratio to the raw limit (raw CPU per answer / Parley's) | ${fmt(r.pollCost.rawRatio, 2)} | ≥ 0.5 | ${met(r.pollCost.rawRatio >= 0.5)} |`,
            ]),
      );
    const o = r.oneSender;
    if (o) {
      lines.push(
        `| one sender, 10 in flight, 50 members polling: messages/s | ${fmt(o.messagesPerSecond, 1)} | ≥ 300 | ${met(o.messagesPerSecond >= 300 && o.errors + o.missing === 0)} |`,
        `| one sender: p50 send → receipt | ${fmt(o.deliveryP50, 1)} ms | ≤ 30 ms | ${met(o.deliveryP50 <= 30)} |`,
        `| one sender: largest server RSS during the run (idle before: ${fmt(o.idleRss)} MiB) | ${fmt(o.maxRssMiB)} MiB | ≤ 150 MiB | ${met(o.maxRssMiB <= 150)} |`,
        // A difference of two noisy runs: below zero it says nothing (the sends cost more in the run without pollers).
        o.cpuMicrosPerAnsweredPoll > 0
          ? `| one sender: server CPU per answered poll (run minus the same sends without pollers) | ${fmt(o.cpuMicrosPerAnsweredPoll)} µs | ≤ 40 µs | ${met(o.cpuMicrosPerAnsweredPoll <= 40)} |`
          : `| one sender: server CPU per answered poll (run minus the same sends without pollers) | not measurable (${fmt(o.cpuMicrosPerAnsweredPoll)} µs: the sends alone cost more) | ≤ 40 µs | – |`,
        `| one sender: deliveries/s (errors ${o.errors}, missing ${o.missing}) | ${fmt(o.deliveriesPerSecond)} |  |  |`,
      );
    }
    if (r.raw) {
      lines.push(
        `| raw limit: bare Node HTTP server, same 50 parked polls and 10 senders, deliveries/s | ${fmt(r.raw.deliveriesPerSecond)} |  |  |`,
        `| Parley's deliveries/s as a ratio to the raw limit | ${fmt(r.rawRatio, 2)} | ≥ 0.5 | ${met(r.rawRatio >= 0.5)} |`,
      );
    }
    lines.push("");
    if (r.fanout?.length) {
      const base = r.fanout[0];
      lines.push(
        "| processes | (a) msg/s | (a) ratio to 1 | (a) p99 delivery ms | (b) msg/s | (b) ratio to 1 | (b) p99 delivery ms | errors / missing |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
      );
      for (const f of r.fanout) {
        lines.push(
          `| ${f.processes} | ${fmt(f.a.messagesPerSecond, 1)} | ${fmt(f.a.messagesPerSecond / base.a.messagesPerSecond, 2)} | ${fmt(f.a.deliveryP99, 1)} | ${fmt(f.b.messagesPerSecond, 1)} | ${fmt(f.b.messagesPerSecond / base.b.messagesPerSecond, 2)} | ${fmt(f.b.deliveryP99, 1)} | ${f.a.errors + f.b.errors} / ${f.a.missing + f.b.missing} |`,
        );
      }
      lines.push("");
    }
  }
  lines.push(MULTI_END);
  return lines.join("\n");
}

/** Replaces (or appends) the section in `file`. */
export function writeMultiSection(file, results) {
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const section = multiSection(results);
  const start = text.indexOf(MULTI_START);
  const end = text.indexOf(MULTI_END);
  const next = start >= 0 && end > start ? text.slice(0, start) + section + text.slice(end + MULTI_END.length) : `${text.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(file, next);
}
