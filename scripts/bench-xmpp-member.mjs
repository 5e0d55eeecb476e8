// A child process of scripts/bench-peer.mjs, the XMPP counterpart of scripts/bench-poller.mjs: opens
// one XMPP connection per member, joins them all to one multi-user chat room, and records for each
// message (its body is its sequence number) how many members received it and when the last one did.
// Driven over IPC with bench-poller.mjs's protocol:
//   { cmd: "register", port, room, nicks: [nick] }  → { registered: n } or { error }
//   { cmd: "poll" }                                → periodic { delivered: total }
//   { cmd: "report" }                              → { deliveries, pollErrors, polls } since the last report
//   { cmd: "stop" }                                → { deliveries: [[seq, count, lastAtMs]], pollErrors, polls }
import { nowMs, sleep } from "./bench-lib.mjs";
import { XmppConnection } from "./bench-xmpp.mjs";

const connections = [];
const deliveries = new Map();
let total = 0;
let received = 0;
let ticker;

function onBody(body) {
  const at = nowMs();
  const seq = Number(body);
  const d = deliveries.get(seq);
  if (d) {
    d[0] += 1;
    d[1] = at;
  } else deliveries.set(seq, [1, at]);
  total += 1;
  received += 1;
}

process.on("message", async (msg) => {
  if (msg.cmd === "register") {
    try {
      // In batches: each join is announced to every occupant already in the room.
      for (let i = 0; i < msg.nicks.length; i += 25) {
        await Promise.all(
          msg.nicks.slice(i, i + 25).map(async (nick) => {
            const c = new XmppConnection(msg.port);
            await c.connect();
            await c.join(msg.room, nick);
            c.receiveBodies(onBody);
            connections.push(c);
          }),
        );
      }
      process.send({ registered: connections.length });
    } catch (error) {
      process.send({ error: error.message });
    }
  } else if (msg.cmd === "poll") {
    ticker = setInterval(() => process.send({ delivered: total }), 50);
  } else if (msg.cmd === "report") {
    // The room stays joined between runs: each run takes the deliveries recorded since the last.
    const report = {
      deliveries: [...deliveries].map(([seq, [count, at]]) => [seq, count, at]),
      pollErrors: connections.filter((c) => c.error).length,
      polls: received,
    };
    deliveries.clear();
    received = 0;
    process.send(report);
  } else if (msg.cmd === "stop") {
    clearInterval(ticker);
    const failed = connections.filter((c) => c.error).length;
    for (const c of connections) c.close();
    await sleep(50);
    // "polls": stanzas that carried a message (one per message per member: XMPP pushes each alone).
    process.send({ deliveries: [...deliveries].map(([seq, [count, at]]) => [seq, count, at]), pollErrors: failed, polls: received }, () => process.exit(0));
  }
});
// Orphaned (the bench was killed): leave with it.
process.on("disconnect", () => process.exit(0));
