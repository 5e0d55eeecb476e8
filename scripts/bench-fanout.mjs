// Sending while recipients long-poll (issue 7 scenarios a–c) and memory per idle queue (g), run by
// scripts/bench.mjs against a server holding the benchmark organization (scripts/bench-org.ts).
// Recipients poll from child processes (scripts/bench-poller.mjs), senders run here: the server
// shares the machine with both, over real HTTP on loopback.
import { fork } from "node:child_process";
import path from "node:path";
import { cpuMs, machineBusyMs, mainThreadCpuMs, nowMs, percentile, ROOT, rssMiB, sleep } from "./bench-lib.mjs";

function startPoller() {
  const child = fork(path.join(ROOT, "scripts/bench-poller.mjs"), [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const poller = { child, delivered: 0, waiters: [] };
  child.on("message", (m) => {
    if ("delivered" in m) poller.delivered = m.delivered;
    else poller.waiters.shift()?.(m);
  });
  poller.ask = (msg) =>
    new Promise((resolve) => {
      poller.waiters.push(resolve);
      child.send(msg);
    });
  return poller;
}

/** Sends to `channel` from its `members` in turn (fan-out (a) and (b)); each must reach every member. */
export function roundRobinSends(channel, members) {
  let i = 0;
  return () => ({
    client: members[i++ % members.length],
    params: { type: "stream", to: channel, topic: "load", content: `hello ${i}` },
    expected: members.length,
  });
}

/** Sends to `channel` from `sender` alone (the one-sender job); each must reach `receivers` polling queues. */
export function oneSenderSends(channel, sender, receivers) {
  let n = 0;
  return () => ({ client: sender, params: { type: "stream", to: channel, topic: "one sender", content: `hello ${++n}` }, expected: receivers });
}

/**
 * `members` (Clients) each register a queue, spread over `processes` poller processes, and poll;
 * `concurrency` loops send for `seconds`, each message built by `next()` → { client, params,
 * expected } (expected: how many of the polling queues must receive it); they go on past
 * `seconds` until `minMessages` (default 0) have been sent. Returns the figures.
 */
export async function measureFanout(server, { members, processes, seconds, concurrency, next, progress, minMessages = 0 }) {
  const pollers = Array.from({ length: processes }, startPoller);
  progress(`registering ${members.length} queues…`);
  await Promise.all(
    pollers.map((p, k) =>
      p.ask({
        cmd: "register",
        base: server.base,
        // Each member polls the process its client talks to (several processes: round-robin by client).
        users: members.filter((_, i) => i % processes === k).map((c) => ({ email: c.email, apiKey: c.apiKey, base: c.base })),
      }),
    ),
  );
  for (const p of pollers) p.child.send({ cmd: "poll" });
  await sleep(1500);

  progress(`sending for ${seconds}s with ${concurrency} senders…`);
  const sent = [];
  const postMs = [];
  let sendErrors = 0;
  // Every server process's CPU (several in multi-process mode: server.pids).
  const pids = server.pids ?? [server.child.pid];
  const serverCpu = () => pids.reduce((n, pid) => n + cpuMs(pid), 0);
  const cpuBefore = serverCpu();
  const mainThreadCpu = () => pids.reduce((n, pid) => n + mainThreadCpuMs(pid), 0);
  const mainThreadCpuBefore = mainThreadCpu();
  // The long-polling children's CPU: the clients share the machine's cores with the server.
  const pollerCpu = () => pollers.reduce((n, p) => n + cpuMs(p.child.pid), 0);
  const pollerCpuBefore = pollerCpu();
  const machineBefore = machineBusyMs();
  const rss = { max: 0 };
  const sampler = setInterval(() => (rss.max = Math.max(rss.max, ...pids.map(rssMiB))), 200);
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  const t0Wall = nowMs();
  let begun = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until || begun < minMessages) {
        begun += 1;
        const { client, params, expected } = next();
        const started = nowMs();
        try {
          const { id } = await client.call("POST", "/messages", params);
          postMs.push(nowMs() - started);
          sent.push({ id, started, expected });
        } catch {
          sendErrors += 1;
        }
      }
    }),
  );
  const sendSeconds = (performance.now() - t0) / 1000;
  const expectedTotal = sent.reduce((n, s) => n + s.expected, 0);
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline && pollers.reduce((n, p) => n + p.delivered, 0) < expectedTotal) await sleep(20);
  const serverCpuMs = serverCpu() - cpuBefore;
  const mainThreadCpuMsUsed = mainThreadCpu() - mainThreadCpuBefore;
  const pollerCpuMs = pollerCpu() - pollerCpuBefore;
  const machineMs = machineBusyMs() - machineBefore;
  clearInterval(sampler);

  const merged = new Map();
  let pollErrors = 0;
  let polls = 0;
  for (const p of pollers) {
    const report = await p.ask({ cmd: "stop" });
    pollErrors += report.pollErrors;
    polls += report.polls;
    for (const [id, count, at] of report.deliveries) {
      const m = merged.get(id);
      if (m) {
        m.count += count;
        m.at = Math.max(m.at, at);
      } else merged.set(id, { count, at });
    }
  }
  const latencies = [];
  let missing = 0;
  let lastDelivery = t0Wall;
  for (const s of sent) {
    const m = merged.get(s.id);
    missing += s.expected - (m?.count ?? 0);
    if (m && m.count >= s.expected) latencies.push(m.at - s.started);
    if (m) lastDelivery = Math.max(lastDelivery, m.at);
  }
  // From the first send to the last member's receipt of the last message: the run is complete.
  const completedSeconds = (lastDelivery - t0Wall) / 1000;
  latencies.sort((a, b) => a - b);
  postMs.sort((a, b) => a - b);
  return {
    queues: members.length,
    messages: sent.length,
    messagesPerSecond: sent.length / sendSeconds,
    // Messages over the time until every member had every message (the side-by-side job's rate).
    completedPerSecond: sent.length / Math.max(sendSeconds, completedSeconds),
    completedSeconds,
    postP50: percentile(postMs, 50),
    postP99: percentile(postMs, 99),
    deliveryP50: percentile(latencies, 50),
    deliveryP99: percentile(latencies, 99),
    missing,
    errors: sendErrors + pollErrors,
    // Answered polls that carried messages, per message sent: how much the long-polls batch.
    pollsPerMessage: polls / Math.max(1, sent.length),
    // The server's CPU time per message, sending and delivering (until the last delivery).
    serverCpuMsPerMessage: serverCpuMs / Math.max(1, sent.length),
    serverCpuMs,
    // Of it, the main threads' (the event loops'): what SQLite's worker threads take off them.
    mainThreadCpuMsPerMessage: mainThreadCpuMsUsed / Math.max(1, sent.length),
    // The whole machine's busy time per message: the job's every process, the clients' included.
    machineCpuMsPerMessage: machineMs / Math.max(1, sent.length),
    // The receiving clients' CPU per delivered message (µs).
    clientCpuMicrosPerDelivery: (pollerCpuMs * 1000) / Math.max(1, expectedTotal - missing),
    polls,
    deliveriesPerSecond: (expectedTotal - missing) / sendSeconds,
    // The largest RSS of one server process during the run.
    maxRssMiB: rss.max,
  };
}

/** RSS growth per queue over `count` idle queues registered by `clients` in turn. */
export async function measureIdleQueues(server, clients, count, progress) {
  await sleep(1000);
  const before = rssMiB(server.child.pid);
  const queues = [];
  for (let i = 0; i < count; i += 50) {
    progress(`idle queues: ${i.toLocaleString()} of ${count.toLocaleString()}…`);
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, k) => clients[(i + k) % clients.length]).map(async (client) => ({
        client,
        queueId: (await client.call("POST", "/register", { event_types: JSON.stringify(["message"]), fetch_event_types: JSON.stringify(["message"]) }))
          .queue_id,
      })),
    );
    queues.push(...batch);
  }
  await sleep(2000);
  const after = rssMiB(server.child.pid);
  for (let i = 0; i < queues.length; i += 50) {
    await Promise.all(queues.slice(i, i + 50).map((q) => q.client.call("DELETE", "/events", { queue_id: q.queueId })));
  }
  return { queues: count, kibPerQueue: ((after - before) * 1024) / count, rssBefore: before, rssAfter: after };
}
