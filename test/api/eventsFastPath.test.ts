import { describe, expect, it } from "vitest";
import { group, defined } from "../../src/util/defined.js";
import zlib from "node:zlib";
import { eventsFastPathAnswers, parseQuery } from "../../src/http/eventsFastPath.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { rawGet } from "../support/rawHttp.js";
import { expectSuccess, type TestServer, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";
import { basicAuth } from "../support/auth.js";

/**
 * GET /events answered in front of Fastify (src/http/eventsFastPath.ts): every answer, success or
 * error, must be the one Fastify's route gives. Requests go once over HTTP (the fast path sees
 * them first) and once through `app.inject` (Fastify's routing only); status, body and headers
 * must match, and the fast path must have answered only successes (errors are Fastify's).
 */
const t = useTestServer();

/** Headers that depend on the connection or the second, not on the answer. */
const TRANSPORT_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

function comparable(status: number, text: string, headers: Iterable<[string, string]>): Answer {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (TRANSPORT_HEADERS.has(lower)) continue;
    // Times: the same second, or the next one when the two requests straddle it.
    kept[lower] = lower === "expires" ? "<http date>" : lower === "x-ratelimit-reset" ? "<unix time>" : value;
  }
  return { status, body: JSON.parse(text), headers: kept };
}

async function overHttp(server: TestServer, path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(server.baseUrl + path, { headers });
  return comparable(res.status, await res.text(), res.headers.entries());
}

async function throughFastify(server: TestServer, path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await server.app.inject({ method: "GET", url: path, headers });
  const list = Object.entries(res.headers).map(([name, value]) => [name, String(value)] as [string, string]);
  return comparable(res.statusCode, res.body, list);
}

/** The same GET both ways; returns the answer and whether the fast path answered it. */
async function both(server: TestServer, path: string, headers: Record<string, string> = {}) {
  const before = eventsFastPathAnswers();
  const fast = await overHttp(server, path, headers);
  const answeredByFastPath = eventsFastPathAnswers() - before === 1;
  const fastify = await throughFastify(server, path, headers);
  expect(fast).toEqual(fastify);
  return { answer: fast, answeredByFastPath };
}

async function register(who: string): Promise<string> {
  return expectSuccess(await t.post(who, "/api/v1/register", { event_types: ["message"] })).queue_id as string;
}

const query = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();

function decode(body: Buffer, encoding: string | undefined): string {
  if (encoding === "gzip") return zlib.gunzipSync(body).toString();
  if (encoding === "br") return zlib.brotliDecompressSync(body).toString();
  return body.toString();
}

describe("GET /events fast path", () => {
  it("answers a dont_block poll with Fastify's body and headers, CORS and never-cache included", async () => {
    const queueId = await register("hamlet");
    const { answer, answeredByFastPath } = await both(t, `/api/v1/events${query({ queue_id: queueId, last_event_id: "-1", dont_block: "true" })}`, {
      Authorization: await t.authHeader("hamlet"),
    });
    expect(answeredByFastPath).toBe(true);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ result: "success", msg: "", events: [], queue_id: queueId });
    expect(answer.headers).toMatchObject({
      "access-control-allow-origin": "*",
      "cache-control": "max-age=0, no-cache, no-store, must-revalidate, private",
      "content-type": "application/json; charset=utf-8",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "x-ratelimit-limit": expect.any(String),
    });
  });

  it("leaves unknown parameters to Fastify's route, which lists them in ignored_parameters_unsupported", async () => {
    const queueId = await register("hamlet");
    const { answer, answeredByFastPath } = await both(t, `/api/v1/events?zeta=1&queue_id=${queueId}&dont_block=true&alpha=&alpha=2`, {
      Authorization: await t.authHeader("hamlet"),
    });
    expect(answeredByFastPath).toBe(false);
    expect(answer.body).toMatchObject({ result: "success", ignored_parameters_unsupported: ["alpha", "zeta"] });
  });

  it("delivers events to a parked poll, with the bytes Fastify's route writes", async () => {
    const queueId = await register("hamlet");
    const headers = { Authorization: await t.authHeader("hamlet") };
    const before = eventsFastPathAnswers();
    const parked = overHttp(t, `/api/v1/events${query({ queue_id: queueId, last_event_id: "-1" })}`, headers);
    await new Promise((r) => setTimeout(r, 100));
    const sent = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "fast", content: "parked" }));
    const answer = await parked;
    expect(eventsFastPathAnswers() - before).toBe(1);
    expect(answer.body).toMatchObject({ result: "success", events: [{ type: "message", id: 0, message: { id: sent.id, content: "parked" } }] });
    // The same events, not yet acknowledged, through Fastify's route.
    const again = await throughFastify(t, `/api/v1/events${query({ queue_id: queueId, last_event_id: "-1", dont_block: "true" })}`, headers);
    expect(again.body).toEqual(answer.body);
  });

  it("counts Content-Length in bytes from each event's, with text beyond ASCII and ids of several digits", async () => {
    const queueId = await register("hamlet");
    const headers = { Authorization: await t.authHeader("hamlet") };
    for (let i = 0; i < 11; i++) {
      expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "bytes", content: `é ${"😀".repeat(i)} ${i}` }));
    }
    const before = eventsFastPathAnswers();
    const answer = await rawGet(t.baseUrl + `/api/v1/events${query({ queue_id: queueId, last_event_id: "-1", dont_block: "true" })}`, headers);
    expect(eventsFastPathAnswers() - before).toBe(1);
    expect(answer.headers["content-encoding"]).toBeUndefined();
    expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
    const body = JSON.parse(answer.body.toString());
    expect(body.events.map((e: { id: number }) => e.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(body.events[10].message.content).toContain("😀".repeat(10));
  });

  it("leaves errors to Fastify: unknown queue, another user's queue, bad and missing parameters, pruned events", async () => {
    const hamletQueue = await register("hamlet");
    const othelloQueue = await register("othello");
    const hamlet = { Authorization: await t.authHeader("hamlet") };
    const cases: Array<[string, number, string]> = [
      [query({ queue_id: "no-such-queue", dont_block: "true" }), 400, "BAD_EVENT_QUEUE_ID"],
      [query({ queue_id: othelloQueue, dont_block: "true" }), 400, "BAD_EVENT_QUEUE_ID"],
      [query({ queue_id: hamletQueue, last_event_id: "x", dont_block: "true" }), 400, "BAD_REQUEST"],
      [query({ queue_id: hamletQueue, dont_block: "maybe" }), 400, "BAD_REQUEST"],
      [query({ dont_block: "true" }), 400, "REQUEST_VARIABLE_MISSING"],
      [`?queue_id=${hamletQueue}%00&dont_block=true`, 400, "BAD_REQUEST"],
    ];
    for (const [search, status, code] of cases) {
      const { answer, answeredByFastPath } = await both(t, `/api/v1/events${search}`, hamlet);
      expect({ search, answeredByFastPath, status: answer.status, code: (answer.body as { code: string }).code }).toEqual({
        search,
        answeredByFastPath: false,
        status,
        code,
      });
    }
    // Events acknowledged (pruned) up to 0: asking from -1 again is refused.
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "private", to: JSON.stringify(["hamlet@zulip.com"]), content: "one" }));
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "private", to: JSON.stringify(["hamlet@zulip.com"]), content: "two" }));
    await new Promise((r) => setTimeout(r, 50));
    expect((await both(t, `/api/v1/events${query({ queue_id: hamletQueue, last_event_id: "0", dont_block: "true" })}`, hamlet)).answeredByFastPath).toBe(true);
    const pruned = await both(t, `/api/v1/events${query({ queue_id: hamletQueue, last_event_id: "-1", dont_block: "true" })}`, hamlet);
    expect(pruned.answeredByFastPath).toBe(false);
    expect(pruned.answer.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
  });

  it("leaves failed authentication to Fastify: none, a wrong key, a malformed header", async () => {
    const queueId = await register("hamlet");
    const path = `/api/v1/events${query({ queue_id: queueId, dont_block: "true" })}`;
    const hamlet = await t.user("hamlet");
    for (const headers of <Array<Record<string, string>>>[
      {},
      { Authorization: basicAuth(hamlet.email, "x".repeat(32)) },
      { Authorization: "Basic !!!" },
      { Authorization: "Bearer abc" },
    ]) {
      const { answer, answeredByFastPath } = await both(t, path, headers);
      expect(answeredByFastPath).toBe(false);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.body).toMatchObject({ result: "error" });
    }
  });

  it("answers /json/events from the session cookie without a CSRF token (a GET), and leaves a missing session to Fastify", async () => {
    const login = await postLoginForm(t.baseUrl, "hamlet@zulip.com", DEV_PASSWORD);
    const sessionId = /sessionid=([^;]+)/.exec(login.headers.getSetCookie().join("\n"))?.[1];
    expect(sessionId).toBeTruthy();
    const cookie = `sessionid=${sessionId}`;
    const queueId = expectSuccess(
      await (async () => {
        const res = await fetch(`${t.baseUrl}/json/register`, {
          method: "POST",
          headers: { Cookie: cookie, "X-CSRFToken": group(/csrftoken=([^;]+)/.exec(login.headers.getSetCookie().join("\n"))!, 1) },
          body: new URLSearchParams({ event_types: JSON.stringify(["message"]) }),
        });
        return { status: res.status, headers: res.headers, body: await res.json() };
      })(),
    ).queue_id as string;
    const path = `/json/events${query({ queue_id: queueId, dont_block: "true" })}`;
    const viaSession = await both(t, path, { Cookie: cookie });
    expect(viaSession.answeredByFastPath).toBe(true);
    expect(viaSession.answer.body).toEqual({ result: "success", msg: "", events: [], queue_id: queueId });
    expect(viaSession.answer.headers["access-control-allow-origin"]).toBeUndefined();
    // An API key works on /json too.
    expect((await both(t, path, { Authorization: await t.authHeader("hamlet") })).answeredByFastPath).toBe(true);
    for (const headers of [{}, { Cookie: "sessionid=not-a-session" }] as Array<Record<string, string>>) {
      const missing = await both(t, path, headers);
      expect(missing.answeredByFastPath).toBe(false);
      expect(missing.answer).toMatchObject({ status: 401, body: { result: "error", code: "UNAUTHORIZED" } });
    }
  });

  it("leaves other methods and paths to Fastify", async () => {
    const queueId = await register("hamlet");
    const headers = { Authorization: await t.authHeader("hamlet") };
    const before = eventsFastPathAnswers();
    const trailing = await fetch(`${t.baseUrl}/api/v1/events/${query({ queue_id: queueId, dont_block: "true" })}`, { headers });
    expect(trailing.status).toBe(404);
    const head = await fetch(`${t.baseUrl}/api/v1/events${query({ queue_id: queueId, dont_block: "true" })}`, { method: "HEAD", headers });
    expect(head.status).toBe(200);
    expect(eventsFastPathAnswers()).toBe(before);
  });

  it("takes only queries the route's parsers read the same way", () => {
    const from = "/api/v1/events?".length;
    const read = (q: string) => parseQuery(`/api/v1/events?${q}`, from);
    expect(read("queue_id=abc-1&last_event_id=12&dont_block=true")).toEqual({ queueId: "abc-1", lastEventId: 12, dontBlock: true });
    expect(read("dont_block=false&queue_id=p1%3Aabc")).toEqual({ queueId: "p1:abc", lastEventId: -1, dontBlock: false });
    expect(read("queue_id=q&last_event_id=-1")).toEqual({ queueId: "q", lastEventId: -1, dontBlock: false });
    for (const odd of [
      "last_event_id=1", // no queue
      "queue_id=q&queue_id=r", // repeated
      "queue_id=q&last_event_id=01", // not JSON
      "queue_id=q&last_event_id=1.0",
      "queue_id=q&last_event_id=1234567890123456", // beyond the safe digits
      "queue_id=q&dont_block=True",
      "queue_id=q&dont_block=1",
      "queue_id=a+b", // + is a space
      "queue_id=%20q", // trimmed by the route
      "queue_id=q%00",
      "queue_id=%E0%A4%A", // not percent-encoding
      "queue_id=q&x=1",
      "queue_id",
    ]) {
      expect({ odd, query: read(odd) }).toEqual({ odd, query: null });
    }
  });

  it("compresses a large answer as Fastify's route does (one event's JSON, the queue's id added)", async () => {
    const queueId = await register("hamlet");
    const content = "long ".repeat(400);
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "big", content }));
    await new Promise((r) => setTimeout(r, 50));
    const path = `/api/v1/events${query({ queue_id: queueId, last_event_id: "-1", dont_block: "true" })}`;
    const headers = { Authorization: await t.authHeader("hamlet"), "Accept-Encoding": "gzip" };
    for (const encoding of ["gzip", "br", "identity"]) {
      headers["Accept-Encoding"] = encoding;
      const before = eventsFastPathAnswers();
      const fast = await rawGet(t.baseUrl + path, headers);
      expect(eventsFastPathAnswers() - before).toBe(1);
      const viaFastify = await t.app.inject({ method: "GET", url: path, headers });
      const fastifyHeaders = Object.fromEntries(Object.entries(viaFastify.headers).map(([k, v]) => [k, String(v)]));
      expect(fast.headers["content-encoding"]).toBe(encoding === "identity" ? undefined : encoding);
      expect(comparable(fast.status, decode(fast.body, fast.headers["content-encoding"]), Object.entries(fast.headers as Record<string, string>))).toEqual(
        comparable(viaFastify.statusCode, decode(viaFastify.rawPayload, fastifyHeaders["content-encoding"]), Object.entries(fastifyHeaders)),
      );
      expect(JSON.parse(decode(fast.body, fast.headers["content-encoding"])).events[0].message.content).toContain("long long");
    }
  });

  it("answers a parked poll with nothing when a newer one replaces it, and forgets one whose client hung up", async () => {
    const queueId = await register("hamlet");
    const headers = { Authorization: await t.authHeader("hamlet") };
    const path = `/api/v1/events${query({ queue_id: queueId, last_event_id: "-1" })}`;
    const first = overHttp(t, path, headers);
    await new Promise((r) => setTimeout(r, 100));
    const second = overHttp(t, path, headers);
    expect((await first).body).toEqual({ result: "success", msg: "", events: [], queue_id: queueId });
    await new Promise((r) => setTimeout(r, 50));
    const sent = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "x", content: "to the second" }));
    expect((await second).body).toMatchObject({ events: [{ id: 0, message: { id: sent.id } }] });
    // A client that hangs up: its poll stops waiting, the queue stays and keeps its events.
    const aborted = new AbortController();
    const gone = fetch(t.baseUrl + `/api/v1/events${query({ queue_id: queueId, last_event_id: "0" })}`, { headers, signal: aborted.signal }).catch(() => null);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ctx.eventQueues.get(queueId)!.isPolled).toBe(true);
    aborted.abort();
    await gone;
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ctx.eventQueues.get(queueId)!.isPolled).toBe(false);
    const later = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "x", content: "later" }));
    const next = await overHttp(t, `/api/v1/events${query({ queue_id: queueId, last_event_id: "0", dont_block: "true" })}`, headers);
    expect(next.body).toMatchObject({ events: [{ id: 1, message: { id: later.id } }] });
  });
});

describe("GET /events rate limit", () => {
  const limited = useTestServer({ rateLimits: { enabled: true, user: { max: 3, windowSeconds: 60 } } as never });

  it("counts polls in buckets of their own (Zulip's Tornado), refusing the one over the limit as Fastify does", async () => {
    const queueId = await (async () => {
      const res = await fetch(`${limited.baseUrl}/api/v1/register`, {
        method: "POST",
        headers: { Authorization: await limited.authHeader("iago"), "Content-Type": "application/x-www-form-urlencoded" },
        body: "event_types=%5B%22message%22%5D",
      });
      return (await res.json()).queue_id as string;
    })();
    const headers = { Authorization: await limited.authHeader("iago") };
    const path = `/api/v1/events${query({ queue_id: queueId, dont_block: "true" })}`;
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = eventsFastPathAnswers();
      const answer = await overHttp(limited, path, headers);
      expect(answer.status).toBe(200);
      expect(eventsFastPathAnswers() - before).toBe(1);
      remaining.push(defined(answer.headers["x-ratelimit-remaining"], "answer.headers['x-ratelimit-remaining']"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const over = await overHttp(limited, path, headers);
    const overViaFastify = await throughFastify(limited, path, headers);
    expect(over).toMatchObject({ status: 429, body: { result: "error", code: "RATE_LIMIT_HIT" } });
    // The same answer but for the time left (the body's retry-after, hence its length).
    const timeless = (answer: Answer) => ({
      ...answer,
      headers: { ...answer.headers, "retry-after": "", "content-length": "" },
      body: { ...(answer.body as object), "retry-after": 0 },
    });
    expect(timeless(over)).toEqual(timeless(overViaFastify));
    // The user's other requests count in the other bucket (register used one of its three).
    const me = await fetch(`${limited.baseUrl}/api/v1/users/me`, { headers });
    expect(me.status).toBe(200);
    expect(me.headers.get("x-ratelimit-remaining")).toBe("1");
  });
});
