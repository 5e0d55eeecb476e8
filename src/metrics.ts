import client from "prom-client";
import type { EventDispatcher } from "./events/dispatch.js";
import type { EventQueueRegistry } from "./events/queues.js";

/**
 * Prometheus metrics (prom-client), in a registry of this server's own: HTTP requests per route,
 * event queues and parked polls, events dispatched, background jobs, database statements, and
 * Node's process metrics. Served at /metrics on PARLEY_METRICS_PORT or, with
 * PARLEY_METRICS_TOKEN, on the main port to a bearer of that token (src/http/metrics.ts).
 */
export class Metrics {
  readonly registry = new client.Registry();
  private readonly httpRequests = new client.Counter({
    name: "parley_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new client.Histogram({
    name: "parley_http_request_duration_seconds",
    help: "Time to answer HTTP requests, by method and route pattern (long polls included)",
    labelNames: ["method", "route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly eventsDispatched = new client.Counter({
    name: "parley_events_dispatched_total",
    help: "Real-time events dispatched after commit, by type",
    labelNames: ["type"] as const,
    registers: [this.registry],
  });
  private readonly eventDeliveries = new client.Counter({
    name: "parley_event_deliveries_total",
    help: "Users an event was dispatched to (one per user and event)",
    registers: [this.registry],
  });
  private readonly jobRuns = new client.Counter({
    name: "parley_job_runs_total",
    help: "Background job runs, by kind and outcome (done, retry, failed)",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly jobDuration = new client.Histogram({
    name: "parley_job_duration_seconds",
    help: "Time a background job run took, by kind",
    labelNames: ["kind"] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 120],
    registers: [this.registry],
  });
  private readonly statementDuration = new client.Histogram({
    name: "parley_db_statement_duration_seconds",
    help: "Time database statements took",
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });
  private readonly statementErrors = new client.Counter({
    name: "parley_db_statement_errors_total",
    help: "Database statements that failed",
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: "parley_" });
  }

  /** Gauges read when scraped: event queues, parked polls, the job backlog, the connection pool. */
  watch(sources: {
    eventQueues: EventQueueRegistry;
    events: EventDispatcher;
    jobBacklog: () => Promise<{ due: number; failed: number; lagSeconds: number }>;
    pool?: () => { total: number; idle: number; waiting: number };
  }): void {
    sources.events.subscribe((event, userIds) => {
      this.eventsDispatched.inc({ type: event.type });
      this.eventDeliveries.inc(userIds.length);
    });
    const gauge = (name: string, help: string, collect: (g: client.Gauge) => void | Promise<void>, labelNames: string[] = []) =>
      new client.Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect() {
          return collect(this);
        },
      });
    gauge("parley_event_queues", "Event queues held by this process", (g) => g.set(sources.eventQueues.size));
    gauge("parley_parked_polls", "GET /events requests waiting for an event", (g) => g.set(sources.eventQueues.parkedPolls));
    let backlog: Promise<{ due: number; failed: number; lagSeconds: number }> | null = null;
    // One query per scrape for the three job gauges.
    const readBacklog = () => (backlog ??= sources.jobBacklog().finally(() => setImmediate(() => (backlog = null))));
    gauge("parley_jobs_due", "Background jobs due now and not yet run", async (g) => g.set((await readBacklog()).due));
    gauge("parley_jobs_failed", "Background jobs that failed for good (see `parley jobs`)", async (g) => g.set((await readBacklog()).failed));
    gauge("parley_job_lag_seconds", "How long the oldest due background job has waited", async (g) => g.set((await readBacklog()).lagSeconds));
    if (sources.pool) {
      const pool = sources.pool;
      gauge(
        "parley_db_pool_connections",
        "Database connection pool (when the engine has one), by state",
        (g) => {
          const { total, idle, waiting } = pool();
          g.set({ state: "in_use" }, total - idle);
          g.set({ state: "idle" }, idle);
          g.set({ state: "waiting_clients" }, waiting);
        },
        ["state"],
      );
    }
  }

  request(method: string, route: string | null, status: number, seconds: number): void {
    const r = route ?? "(unmatched)";
    this.httpRequests.inc({ method, route: r, status: String(status) });
    this.httpDuration.observe({ method, route: r }, seconds);
  }

  jobRun(kind: string, outcome: "done" | "retry" | "failed", seconds: number): void {
    this.jobRuns.inc({ kind, outcome });
    this.jobDuration.observe({ kind }, seconds);
  }

  statement(seconds: number, failed: boolean): void {
    this.statementDuration.observe(seconds);
    if (failed) this.statementErrors.inc();
  }
}
