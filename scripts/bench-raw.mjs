// The raw limit of long-poll delivery (issue 18), run as a child of scripts/bench-multi.mjs: a bare
// Node HTTP server that parks GET /events requests and, when POST /send arrives, answers every
// parked one with the same bytes (`argv[2]: the size of one Parley message event response).
// Nothing else: no routing framework, authentication, queue or database.
import http from "node:http";

if (process.argv[2] === "poll") {
  // The pollers' side: `count` keep-alive connections, each long-polling again as soon as answered.
  const [, , , base, count] = process.argv;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  let answered = 0;
  let polling = true;
  const once = () =>
    new Promise((resolve, reject) => {
      const req = http.get(`${base}/events`, { agent }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          JSON.parse(Buffer.concat(chunks).toString());
          answered += 1;
          resolve();
        });
      });
      req.on("error", reject);
    });
  const loops = Array.from({ length: Number(count) }, async () => {
    while (polling) await once().catch(() => {});
  });
  process.send({ ready: true });
  process.on("message", (m) => {
    if (m === "count") process.send({ answered });
    if (m === "stop") {
      polling = false;
      process.send({ answered }, () => process.exit(0));
    }
  });
  await Promise.race([Promise.all(loops), new Promise(() => {})]);
}

const size = Number(process.argv[2] ?? "900");
const body = Buffer.from(JSON.stringify({ result: "success", msg: "", events: [{ type: "message", pad: "x".repeat(Math.max(0, size - 60)) }] }));
// GET …dont_block=true (the poll-cost scenario's raw limit): answered at once with what Parley
// answers a poll with nothing to deliver, with as many headers of the same sizes.
const emptyAnswer = Buffer.from(JSON.stringify({ result: "success", msg: "", events: [], queue_id: "00000000-0000-0000-0000-000000000000" }));
const emptyAnswerHeaders = {
  "cache-control": "max-age=0, no-cache, no-store, must-revalidate, private",
  expires: new Date().toUTCString(),
  "x-ratelimit-limit": "200",
  "x-ratelimit-remaining": "200",
  "x-ratelimit-reset": "1800000000",
  "content-type": "application/json; charset=utf-8",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "access-control-allow-origin": "*",
  "content-length": String(emptyAnswer.length),
};
const parked = [];
const server =
  process.argv[2] === "poll"
    ? null
    : http.createServer((req, res) => {
        if (req.method === "POST") {
          req.resume();
          req.on("end", () => {
            const waiting = parked.splice(0);
            for (const r of waiting) r.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length }).end(body);
            res.writeHead(200, { "Content-Type": "application/json" }).end('{"result":"success","msg":""}');
          });
          return;
        }
        if (req.url.includes("dont_block=true")) return void res.writeHead(200, emptyAnswerHeaders).end(emptyAnswer);
        parked.push(res);
      });
if (server) {
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
  process.on("message", (m) => {
    if (m === "stop") process.exit(0);
  });
}
