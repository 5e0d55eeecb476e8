// A child process of scripts/bench-fanout.mjs: registers one event queue per given user and
// long-polls all of them over HTTP, recording for each message id how many queues received it and
// when the last one did. Driven over IPC:
//   { cmd: "register", base, users: [{ email, apiKey }] }  → { registered: n }
//   { cmd: "poll" }                                          → periodic { delivered: total }
//   { cmd: "stop" }                                          → { deliveries: [[id, count, lastAtMs]], pollErrors }
import { Client, nowMs, sleep } from "./bench-lib.mjs";
import { PollSocket } from "./bench-http-poll.mjs";

const queues = [];
const deliveries = new Map();
let total = 0;
let polling = false;
let pollErrors = 0;
let polls = 0;
let loops = [];
let ticker;

async function pollLoop(q) {
  while (polling) {
    try {
      const { status, json: res } = await q.socket.get(`${q.path}${q.lastEventId}`);
      if (status !== 200) throw new Error(`GET /events: ${status} ${res.msg}`);
      const at = nowMs();
      if (res.events.some((e) => e.type === "message")) polls += 1;
      for (const e of res.events) {
        q.lastEventId = Math.max(q.lastEventId, e.id);
        if (e.type !== "message") continue;
        const d = deliveries.get(e.message.id);
        if (d) {
          d[0] += 1;
          d[1] = at;
        } else deliveries.set(e.message.id, [1, at]);
        total += 1;
      }
    } catch {
      if (!polling) return;
      pollErrors += 1;
      await sleep(100);
    }
  }
}

process.on("message", async (msg) => {
  if (msg.cmd === "register") {
    for (let i = 0; i < msg.users.length; i += 25) {
      await Promise.all(
        msg.users.slice(i, i + 25).map(async (u) => {
          const client = new Client(u.base ?? msg.base, u.email, u.apiKey);
          const reg = await client.call("POST", "/register", { event_types: JSON.stringify(["message"]), fetch_event_types: JSON.stringify(["message"]) });
          queues.push({
            client,
            queueId: reg.queue_id,
            lastEventId: reg.last_event_id,
            socket: new PollSocket(client.base, client.auth),
            path: `/api/v1/events?queue_id=${encodeURIComponent(reg.queue_id)}&last_event_id=`,
          });
        }),
      );
    }
    process.send({ registered: queues.length });
  } else if (msg.cmd === "poll") {
    polling = true;
    loops = queues.map(pollLoop);
    ticker = setInterval(() => process.send({ delivered: total }), 50);
  } else if (msg.cmd === "stop") {
    polling = false;
    clearInterval(ticker);
    await Promise.all(queues.map((q) => q.client.call("DELETE", "/events", { queue_id: q.queueId }).catch(() => undefined)));
    await Promise.race([Promise.all(loops), sleep(5000)]);
    for (const q of queues) q.socket.close();
    process.send({ deliveries: [...deliveries].map(([id, [count, at]]) => [id, count, at]), pollErrors, polls }, () => process.exit(0));
  }
});
// Orphaned (the bench was stopped or killed): leave with it, not poll a dead server forever.
process.on("disconnect", () => process.exit(0));
