import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, apiCaller, firstStartCredentials, freePort, useServerProcesses } from "./support/process.js";
import { TEST_ENGINE } from "./support/testDb.js";
import { basicAuth } from "./support/auth.js";

/**
 * /metrics in Prometheus' text format: on PARLEY_METRICS_PORT, and on the main port only to a
 * bearer of PARLEY_METRICS_TOKEN (a server without either has no /metrics).
 */
const servers = useServerProcesses();
const TOKEN = "metrics-token-0123456789";

/** The value of one sample line, e.g. `name{label="x"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("metrics", () => {
  it("counts requests per route, event queues, parked polls, jobs, statements and the process", async () => {
    const metricsPort = await freePort();
    const server = await servers.start({ ...(await servers.freshEnv()), PARLEY_METRICS_PORT: String(metricsPort), PARLEY_METRICS_TOKEN: TOKEN });
    const api = apiCaller(() => server.baseUrl, await firstStartCredentials(server));
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };

    const me = await api("GET", "/users/me");
    expect(me.status).toBe(200);
    await api("GET", "/users/me");
    expect((await api("GET", "/users/999999")).status).toBe(400);
    const queue = (await api("POST", "/register", { event_types: JSON.stringify(["message"]) })).body.queue_id;
    const poll = new AbortController();
    const { email, apiKey } = await firstStartCredentials(server);
    const authorization = basicAuth(email, apiKey);
    void fetch(`${server.baseUrl}/api/v1/events?queue_id=${queue}&last_event_id=-1`, { headers: { Authorization: authorization }, signal: poll.signal }).catch(
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 300));

    const text = await scrape();
    expect(sample(text, 'parley_http_requests_total{method="GET",route="/api/v1/users/me",status="200"}')).toBe(2);
    expect(sample(text, 'parley_http_requests_total{method="GET",route="/api/v1/users/:user_id_or_email",status="400"}')).toBe(1);
    expect(sample(text, 'parley_http_request_duration_seconds_count{method="GET",route="/api/v1/users/me"}')).toBe(2);
    expect(sample(text, "parley_event_queues")).toBe(1);
    expect(sample(text, "parley_parked_polls")).toBe(1);
    expect(sample(text, "parley_jobs_due")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "parley_jobs_failed")).toBe(0);
    expect(sample(text, "parley_job_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "parley_db_statement_duration_seconds_count")).toBeGreaterThan(0);
    expect(sample(text, "parley_process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(text).toContain("parley_nodejs_eventloop_lag_seconds");
    expect(text).toContain("parley_process_cpu_seconds_total");
    poll.abort();

    // A message: an event dispatched to its recipient, and its background jobs run. (A new
    // organization's welcome messages were dispatched already: count from here.)
    const dispatchedBefore = sample(text, 'parley_events_dispatched_total{type="message"}') ?? 0;
    expect((await api("POST", "/messages", { type: "direct", to: JSON.stringify([me.body.user_id]), content: "counted" })).body.result).toBe("success");
    await new Promise((r) => setTimeout(r, 300));
    const after = await scrape();
    expect(sample(after, 'parley_events_dispatched_total{type="message"}')! - dispatchedBefore).toBe(1);
    expect(sample(after, "parley_event_deliveries_total")).toBeGreaterThanOrEqual(1);

    // The main port: only to the token's bearer.
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const withToken = await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toContain("parley_http_requests_total");
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);

    // Every metric the Grafana dashboard in docs/ plots exists (the pool's on PostgreSQL only).
    const dashboard = fs.readFileSync(path.join(REPO_ROOT, "docs/grafana-dashboard.json"), "utf8");
    JSON.parse(dashboard);
    const plotted = new Set([...dashboard.matchAll(/parley_[a-z0-9_]+/g)].map((m) => m[0].replace(/_bucket$/, "")));
    expect(plotted.size).toBeGreaterThan(10);
    for (const name of plotted) {
      if (name === "parley_db_pool_connections" && TEST_ENGINE === "sqlite") continue;
      expect(after, name).toContain(`# TYPE ${name} `);
    }
  }, 60_000);

  it("has no /metrics on the main port without PARLEY_METRICS_TOKEN", async () => {
    const server = await servers.start(await servers.freshEnv());
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
  }, 60_000);
});
