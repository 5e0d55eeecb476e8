import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import pino from "pino";
import { afterAll, afterEach, beforeAll, expect, inject } from "vitest";
import { buildApp, createContext } from "../../src/app.js";
import type { AppContext } from "../../src/appContext.js";
import { loadConfig, type Config } from "../../src/config.js";
import type { User } from "../../src/db/schema.js";
import { realmReadCache } from "../../src/db/realmReadCache.js";
import type { ParleyEvent } from "../../src/events/dispatch.js";
import type { JobRunner } from "../../src/jobs/runner.js";
import { seedTestRealm, type TestUserName } from "./seed.js";
import { freshDatabase } from "./testDb.js";
import { validateResponse } from "./openapi.js";
import { clientDialectOf, jsonInDialect } from "../../src/lib/clientDialect.js";
import { committedEventViolations } from "./eventSchemas.js";
import { basicAuth } from "./auth.js";

export type Params = Record<string, string | number | boolean | object | null | undefined>;

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface RequestOptions {
  /** Send the body as multipart/form-data (as zulip-js does) instead of urlencoded. */
  multipart?: boolean;
  /** Put parameters in the query string even for POST/PATCH/DELETE. */
  inQuery?: boolean;
  /** Extra headers (override Authorization, set User-Agent...). */
  headers?: Record<string, string>;
  /** Skip the OpenAPI check (for endpoints the reference does not describe). */
  skipOpenApi?: boolean;
  /** Files to send as parts of a multipart/form-data body (the parameters become parts too). */
  files?: FilePart[];
  /**
   * The Host header (an organization's subdomain when the server has a root domain). fetch
   * cannot set it, so such requests go through node:http (fetchWithHost).
   */
  host?: string;
}

/** One file of a multipart upload: its part's name (default `file<i>`), bytes, type and file name. */
export interface FilePart {
  field?: string;
  data: Buffer | string;
  type?: string;
  filename?: string;
}

/**
 * fetch with a Host header of the caller's choice (fetch drops it): the same request through
 * node:http to the URL's address, answered as a fetch Response.
 */
export async function fetchWithHost(url: URL | string, host: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(url, init);
  const payload = init.body === undefined || init.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  headers.host = host;
  if (payload !== undefined) headers["content-length"] = String(payload.length);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: request.method, headers, agent: false },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, item);
          }
          const status = incoming.statusCode ?? 0;
          const bodyless = status === 204 || status === 304 || request.method === "HEAD";
          resolve(new Response(bodyless ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

/**
 * A running Parley for one test file: fresh database, the test realm (Zulip's development users:
 * hamlet, othello, iago, desdemona, ...), and a real HTTP listener on 127.0.0.1. Every response is
 * validated against the reference OpenAPI schema unless the test opts out.
 */
export class TestServer {
  /** The Fastify application (`app.inject` reaches its routes without the HTTP listener). */
  app!: FastifyInstance;
  ctx!: AppContext & { jobs: JobRunner };
  baseUrl = "";
  config!: Config;
  /** What a `parley` process (test/support/process.ts) needs in its environment to use this server's database. */
  processEnv: Record<string, string> = {};
  private close: Array<() => Promise<void>> = [];
  /** Committed events no client form of which matches the reference (see eventSchemas.ts). */
  eventViolations: string[] = [];
  private users = new Map<string, User>();

  async start(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}): Promise<void> {
    // The seeded template (built once per run) unless the test needs the seed made otherwise.
    const seeded = overrides.fastPasswordHashing !== false;
    const db = await freshDatabase(seeded ? inject("templateDatabase") : undefined);
    this.processEnv = db.database.kind === "sqlite" ? { ...db.env, PARLEY_DATABASE_URL: `sqlite:${db.database.file}` } : db.env;
    const base = loadConfig({ PARLEY_INSECURE_FAST_HASHING: "1", PARLEY_LOG_LEVEL: "silent", ...env });
    this.config = {
      ...base,
      // PARLEY_SQLITE_THREADS in `env` (or the run's environment) chooses the SQLite driver.
      database: db.database.kind === "sqlite" ? { ...db.database, threads: sqliteThreads(env) } : db.database,
      dataDir: db.dataDir,
      externalUrl: "http://localhost:9991",
      ...overrides,
      rateLimits: { ...base.rateLimits, enabled: false, ...(overrides.rateLimits ?? {}) },
    };
    this.ctx = await createContext(this.config, pino({ level: process.env.PARLEY_TEST_LOG ?? "silent" }));
    this.ctx.events.subscribe((event) => this.eventViolations.push(...committedEventViolations(event)));
    if (!seeded) await seedTestRealm(this.ctx);
    const app = await buildApp(this.ctx);
    this.app = app;
    await app.listen({ host: "127.0.0.1", port: 0 });
    this.ctx.jobs.start();
    this.baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    this.close.push(async () => {
      this.ctx.eventQueues.detach();
      await closeWithin(app, 2000);
      await this.ctx.jobs.stop();
      await this.ctx.db.close();
      await db.drop();
    });
  }

  async stop(): Promise<void> {
    for (const fn of this.close.splice(0).reverse()) await fn();
  }

  /**
   * The current row of a test user, by short name ("hamlet") or email: the seed organization's
   * account when several organizations have one with that email, else the oldest.
   */
  async user(name: TestUserName | string): Promise<User> {
    const email = name.includes("@") ? name : `${name}@zulip.com`;
    const row = await this.ctx.db.kysely
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .where((eb) => eb(eb.fn("lower", ["users.delivery_email"]), "=", email.toLowerCase()))
      .orderBy(sql`case when realms.string_id = 'zulip' then 0 else 1 end`)
      .orderBy("users.id")
      .limit(1)
      .executeTakeFirstOrThrow();
    this.users.set(name, row);
    return row;
  }

  async authHeader(name: TestUserName | string): Promise<string> {
    const u = await this.user(name);
    return basicAuth(u.email, u.api_key);
  }

  /** Sends a request as `who` (a test user name, or null for no credentials). */
  async request(method: string, who: TestUserName | string | null, path: string, params: Params = {}, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { "User-Agent": "ParleyTests/1.0" };
    if (who !== null) headers.Authorization = await this.authHeader(who);
    Object.assign(headers, options.headers ?? {});
    const url = new URL(this.baseUrl + path);
    const encoded = Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)] as [string, string]);
    let body: string | FormData | undefined;
    if (method === "GET" || method === "HEAD" || options.inQuery) {
      for (const [k, v] of encoded) url.searchParams.append(k, v);
    } else if (options.multipart || options.files) {
      const form = new FormData();
      for (const [k, v] of encoded) form.append(k, v);
      (options.files ?? []).forEach((file, i) =>
        form.append(
          file.field ?? `file${i}`,
          new Blob([new Uint8Array(Buffer.from(file.data))], { type: file.type ?? "application/octet-stream" }),
          file.filename ?? "file",
        ),
      );
      body = form;
    } else if (encoded.length > 0) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(encoded).toString();
    }
    const res = options.host === undefined ? await fetch(url, { method, headers, body }) : await fetchWithHost(url, options.host, { method, headers, body });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      // not JSON: left as text
    }
    const response = { status: res.status, headers: res.headers, body: parsed };
    if (!options.skipOpenApi && path.startsWith("/api/v1/") && method !== "HEAD") {
      const dialect = clientDialectOf(Object.entries(headers).find(([name]) => name.toLowerCase() === "user-agent")?.[1]);
      validateResponse(method, url.pathname, response.status, parsed, dialect);
      // What a Zulip client would have received differs only by lib/clientDialect.ts's
      // translation: every response of the suite is also checked against Zulip's strict enums.
      if (dialect === "spec" && typeof parsed === "object" && parsed !== null)
        validateResponse(method, url.pathname, response.status, JSON.parse(jsonInDialect(text, "zulip")), "zulip");
    }
    return response;
  }

  get(who: TestUserName | string | null, path: string, params?: Params, options?: RequestOptions) {
    return this.request("GET", who, path, params, options);
  }
  post(who: TestUserName | string | null, path: string, params?: Params, options?: RequestOptions) {
    return this.request("POST", who, path, params, options);
  }
  patch(who: TestUserName | string | null, path: string, params?: Params, options?: RequestOptions) {
    return this.request("PATCH", who, path, params, options);
  }
  put(who: TestUserName | string | null, path: string, params?: Params, options?: RequestOptions) {
    return this.request("PUT", who, path, params, options);
  }
  delete(who: TestUserName | string | null, path: string, params?: Params, options?: RequestOptions) {
    return this.request("DELETE", who, path, params, options);
  }
  /** POST of `files` as a multipart/form-data body (uploads, avatars, realm emoji), with `params` as parts beside them. */
  upload(who: TestUserName | string | null, path: string, files: FilePart[], params?: Params, options?: RequestOptions) {
    return this.request("POST", who, path, params, { ...options, files });
  }

  /**
   * Runs `fn` and returns the events committed meanwhile, with their recipients. An event's
   * `spectators` (which visitor queues get it, events/visitorQueues.ts) is routing, as `users` is,
   * and is left out of `event`; a copy committed for visitor queues alone (no user) is left out.
   * spectatorEvents.test.ts tests what visitors receive.
   */
  async captureEvents<T>(fn: () => Promise<T>): Promise<{ result: T; events: Array<{ event: ParleyEvent; users: number[] }> }> {
    const events: Array<{ event: ParleyEvent; users: number[] }> = [];
    const unsubscribe = this.ctx.events.subscribe((event, users) => {
      const { spectators, ...sent } = event as ParleyEvent & { spectators?: unknown };
      if (spectators !== undefined && users.length === 0) return;
      events.push({ event: sent as ParleyEvent, users: [...users] });
    });
    try {
      const result = await fn();
      return { result, events };
    } finally {
      unsubscribe();
    }
  }

  /**
   * The number of SQL statements `fn` causes. The background job runner is paused meanwhile so
   * its polling does not count (its queries would make the figure depend on timing). The
   * authentication cache is emptied first unless `warmAuthCache`: whether a credential is still
   * cached depends on what wrote users or realms before, so counts compared with each other
   * include authenticating from the database. The organization's linkifiers and alert words, read
   * from memory by every send (db/realmReadCache.ts), are counted warm, as on a busy server: what
   * is cached is renewed first, or a slow run could pass their 30 s lifetime between a warm-up and
   * the count (two statements more on one side of a comparison).
   */
  async countQueries(fn: () => Promise<unknown>, options: { warmAuthCache?: boolean } = {}): Promise<number> {
    await this.ctx.jobs.stop();
    if (!options.warmAuthCache) this.ctx.db.authCache.apply({ all: true });
    realmReadCache(this.ctx.db.kysely).renew();
    try {
      const before = this.ctx.db.queryCount();
      await fn();
      return this.ctx.db.queryCount() - before;
    } finally {
      this.ctx.jobs.start();
    }
  }

  /**
   * Runs `fn` with the zulip realm's stored settings changed (realms.settings JSON: plain settings
   * and group-permission ids), then restores them. For settings no endpoint can change yet.
   */
  async withRealmSettings<T>(changes: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
    const db = this.ctx.db.kysely;
    const realm = await db.selectFrom("realms").selectAll().where("string_id", "=", "zulip").executeTakeFirstOrThrow();
    const merged = JSON.stringify({ ...JSON.parse(realm.settings || "{}"), ...changes });
    await db.updateTable("realms").set({ settings: merged }).where("id", "=", realm.id).execute();
    try {
      return await fn();
    } finally {
      await db.updateTable("realms").set({ settings: realm.settings }).where("id", "=", realm.id).execute();
    }
  }

  /** The id of a system group ("role:members", …) of the zulip realm. */
  async systemGroupId(name: string): Promise<number> {
    const row = await this.ctx.db.kysely
      .selectFrom("user_groups")
      .innerJoin("realms", "realms.id", "user_groups.realm_id")
      .select("user_groups.id")
      .where("realms.string_id", "=", "zulip")
      .where("user_groups.name", "=", name)
      .where("user_groups.is_system_group", "=", 1)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Waits until the job runner has nothing due (after-commit jobs such as emails). */
  async drainJobs(): Promise<void> {
    // A job may enqueue another, which the background runner can claim meanwhile: repeat until
    // a pass here found nothing and the background pass has finished too.
    for (let pass = 0; pass < 20; pass++) {
      await this.ctx.jobs.idle();
      const ran = await this.ctx.jobs.runDueJobs();
      await this.ctx.jobs.idle();
      if (ran === 0) return;
    }
  }
}

/** Starts a TestServer for the current test file (beforeAll/afterAll). */
/**
 * app.close(), with the connections still open after `ms` closed by force: a client that keeps a
 * keep-alive socket (seen with undici on PostgreSQL runs) would otherwise hold the close forever.
 */
async function closeWithin(app: { close(): Promise<unknown>; server: { closeAllConnections(): void } }, ms: number): Promise<void> {
  const force = setTimeout(() => app.server.closeAllConnections(), ms);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}

export function useTestServer(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}): TestServer {
  const server = new TestServer();
  beforeAll(() => server.start(overrides, env), 60_000);
  afterAll(() => server.stop(), 60_000);
  // Every event a test caused must match the reference's GET /events schema.
  afterEach(() => {
    expect(server.eventViolations.splice(0), "events that do not match the reference GET /events schema").toEqual([]);
  });
  return server;
}

export function expectSuccess(res: ApiResponse, status = 200): any {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { result: "success", msg: "" } });
  return res.body;
}

export function expectError(res: ApiResponse, status: number, msg: string, code = "BAD_REQUEST"): any {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { result: "error", msg, code } });
  return res.body;
}

/** PARLEY_SQLITE_THREADS of a test's `env`, else of the run's environment; undefined: the default. */
function sqliteThreads(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.PARLEY_SQLITE_THREADS ?? process.env.PARLEY_SQLITE_THREADS;
  return value === undefined ? undefined : Number(value);
}
