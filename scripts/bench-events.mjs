// Event-queue benchmark (issue 4 item 7), run by scripts/bench.mjs against a server holding the
// large organization (scripts/bench-org.ts) in development mode. From this process, over real
// HTTP: 1,000 users each register a queue and long-poll it; we measure
//   - the latency from POST /messages (to the 1,000-member channel) returning to each recipient's
//     GET /events returning with the message (p50, p99 over every delivery);
//   - messages per second the server sustains while delivering each to 1,000 queues;
//   - memory per idle queue and per waiting poll (server RSS deltas);
//   - POST /register (every section) for a user with 100 subscriptions.
import fs from "node:fs";
import http from "node:http";

// One keep-alive connection per waiting poll: no limit on sockets.
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function request(method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { ...headers, "Content-Length": Buffer.byteLength(body) } : headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString()));
        } catch (error) {
          reject(error);
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const EXTRA_IDLE_QUEUES = 9000;

function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

class Client {
  constructor(base, email, apiKey) {
    this.base = base;
    this.auth = "Basic " + Buffer.from(`${email}:${apiKey}`).toString("base64");
  }
  async call(method, path, params = {}) {
    const body = new URLSearchParams(params);
    const url = method === "GET" ? `${this.base}/api/v1${path}?${body}` : `${this.base}/api/v1${path}`;
    const headers = { Authorization: this.auth, ...(method === "GET" ? {} : { "Content-Type": "application/x-www-form-urlencoded" }) };
    const json = await request(method, url, headers, method === "GET" ? undefined : body.toString());
    if (json.result !== "success") throw new Error(`${method} ${path}: ${json.msg}`);
    return json;
  }
}

/** Runs the event scenarios against `server` ({ base, child }); returns the figures. */
export async function measureEvents(server, { seconds, progress }) {
  const devKey = async (email) =>
    (await request("POST", `${server.base}/api/v1/dev_fetch_api_key`, { "Content-Type": "application/x-www-form-urlencoded" }, new URLSearchParams({ username: email }).toString())).api_key;
  const hamlet = new Client(server.base, "hamlet@zulip.com", await devKey("hamlet@zulip.com"));
  const members = (await hamlet.call("GET", "/users")).members.filter((u) => u.is_active && !u.is_bot);
  progress(`events: API keys for ${members.length} users…`);
  const clients = [];
  for (const m of members) clients.push({ userId: m.user_id, client: new Client(server.base, m.email, await devKey(m.email)) });

  // Idle queues.
  await sleep(1000);
    progress(`events: registering ${clients.length} queues…`);
  for (let i = 0; i < clients.length; i += 20) {
    await Promise.all(
      clients.slice(i, i + 20).map(async (c) => {
        const reg = await c.client.call("POST", "/register", { event_types: JSON.stringify(["message"]), fetch_event_types: JSON.stringify(["message"]) });
        c.queueId = reg.queue_id;
        c.lastEventId = reg.last_event_id;
      }),
    );
  }
  await sleep(1000);
  const rssQueues = rssMiB(server.child.pid);

  // Memory per idle queue, measured over 10,000 more queues (small deltas drown in GC noise).
  progress(`events: ${EXTRA_IDLE_QUEUES} more idle queues…`);
  const extra = [];
  for (let i = 0; i < EXTRA_IDLE_QUEUES; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, (_, k) => clients[(i + k) % clients.length]).map(async (c) => ({
        client: c.client,
        queueId: (await c.client.call("POST", "/register", { event_types: JSON.stringify(["message"]), fetch_event_types: JSON.stringify(["message"]) })).queue_id,
      })),
    );
    extra.push(...batch);
  }
  await sleep(2000);
  const rssManyQueues = rssMiB(server.child.pid);
  for (let i = 0; i < extra.length; i += 50) {
    await Promise.all(extra.slice(i, i + 50).map((e) => e.client.call("DELETE", "/events", { queue_id: e.queueId })));
  }

  // Every queue long-polls; each delivery of a message is timed against its send.
  const sentAt = new Map();
  const latencies = [];
  const delivered = new Map();
  let polling = true;
  let pollErrors = 0;
  const loops = clients.map(async (c) => {
    while (polling) {
      try {
        const res = await c.client.call("GET", "/events", { queue_id: c.queueId, last_event_id: String(c.lastEventId) });
        const now = performance.now();
        for (const e of res.events) {
          c.lastEventId = Math.max(c.lastEventId, e.id);
          if (e.type !== "message") continue;
          const t0 = sentAt.get(e.message.id);
          if (t0 !== undefined) latencies.push(Math.max(0, now - t0));
          delivered.set(e.message.id, (delivered.get(e.message.id) ?? 0) + 1);
        }
      } catch {
        pollErrors += 1;
        await sleep(100);
      }
    }
  });
  await sleep(3000);
  const rssPolls = rssMiB(server.child.pid);

  // Latency: one message at a time, each waited for on every queue.
  progress("events: delivery latency…");
  const expected = clients.length;
  const send = async (content) => {
    const started = performance.now();
    const { id } = await hamlet.call("POST", "/messages", { type: "stream", to: "bench-all", topic: "events bench", content });
    sentAt.set(id, performance.now());
    return { id, sendMs: performance.now() - started };
  };
  const waitDelivered = async (id, timeoutMs) => {
    const deadline = performance.now() + timeoutMs;
    while ((delivered.get(id) ?? 0) < expected && performance.now() < deadline) await sleep(5);
    return delivered.get(id) ?? 0;
  };
  let missing = 0;
  for (let i = 0; i < 20; i++) {
    const { id } = await send(`latency ${i}`);
    missing += expected - (await waitDelivered(id, 30_000));
  }
  const sortedLatency = [...latencies].sort((a, b) => a - b);

  // Throughput: send as fast as 4 senders can for `seconds`, then wait for the deliveries.
  progress(`events: throughput for ${seconds}s…`);
  const throughputIds = [];
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    [0, 1, 2, 3].map(async (n) => {
      let i = 0;
      while (performance.now() < until) throughputIds.push((await send(`load ${n}.${i++}`)).id);
    }),
  );
  const sendSeconds = (performance.now() - t0) / 1000;
  for (const id of throughputIds) missing += expected - (await waitDelivered(id, 60_000));
  const deliverSeconds = (performance.now() - t0) / 1000;

  polling = false;
  await Promise.all(clients.map((c) => c.client.call("DELETE", "/events", { queue_id: c.queueId }).catch(() => undefined)));
  await Promise.race([Promise.all(loops), sleep(5000)]);

  // POST /register, every section, for a user with 100 subscriptions.
  progress("events: POST /register with 100 subscriptions…");
  const channels = (await hamlet.call("GET", "/streams")).streams.map((s) => ({ name: s.name })).slice(0, 100);
  await hamlet.call("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify(channels) });
  const subscriptions = (await hamlet.call("GET", "/users/me/subscriptions")).subscriptions.length;
  const registerMs = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const reg = await hamlet.call("POST", "/register", {});
    registerMs.push(performance.now() - started);
    await hamlet.call("DELETE", "/events", { queue_id: reg.queue_id });
  }
  registerMs.sort((a, b) => a - b);

  return {
    queues: clients.length,
    latencyP50: percentile(sortedLatency, 50),
    latencyP99: percentile(sortedLatency, 99),
    deliveries: latencies.length,
    missing,
    pollErrors,
    messagesPerSecond: throughputIds.length / sendSeconds,
    deliveriesPerSecond: (throughputIds.length * expected) / deliverSeconds,
    kibPerQueue: ((rssManyQueues - rssQueues) * 1024) / EXTRA_IDLE_QUEUES,
    idleQueues: clients.length + EXTRA_IDLE_QUEUES,
    kibPerPoll: ((rssPolls - rssQueues) * 1024) / clients.length,
    registerSubscriptions: subscriptions,
    registerP50: percentile(registerMs, 50),
    registerMax: registerMs[registerMs.length - 1],
  };
}
