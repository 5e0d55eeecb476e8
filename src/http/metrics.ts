import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Metrics } from "../metrics.js";

/**
 * GET /metrics (Prometheus text format). Never public: on the main port only with
 * PARLEY_METRICS_TOKEN, to `Authorization: Bearer <token>`; or on its own listener
 * (PARLEY_METRICS_PORT, see serveMetrics), which a firewall keeps to the monitoring network.
 * Also times every request of the main port for the HTTP metrics.
 */
export function metricsEndpoint(app: FastifyInstance, ctx: AppContext): void {
  const { metrics, config } = ctx;
  app.addHook("onResponse", (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? null, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const token = config.metrics.token;
  if (token === undefined) return;
  app.get("/metrics", async (request, reply) => {
    const given = Buffer.from(/^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "");
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply.status(401).header("WWW-Authenticate", "Bearer").send({ result: "error", msg: "Not authorized to read metrics", code: "UNAUTHORIZED" });
    }
    reply
      .header("Content-Type", metrics.registry.contentType)
      .header("Cache-Control", "no-store")
      .send(await metrics.registry.metrics());
  });
}

/** The metrics on their own port (PARLEY_METRICS_PORT): GET /metrics, nothing else. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" }).end(text),
      () => response.writeHead(500, { "Content-Type": "text/plain" }).end("metrics failed\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
