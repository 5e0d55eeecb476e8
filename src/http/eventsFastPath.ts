import http from "node:http";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { AppContext } from "../appContext.js";
import { headerCacheKey, sessionCacheKey } from "../db/authCache.js";
import { realmServesHost } from "../lib/realms.js";
import type { EventQueue, PollAnswer, QueuedEvent } from "../events/queues.js";
import { queueOwner } from "../events/queues.js";
import { answerPoll } from "../events/poll.js";
import { BotType } from "../models/roles.js";
import { nowSeconds } from "../util/time.js";
import { compressJsonAnswer, jsonAnswerEncoding } from "./compression.js";
import { errorEnvelope, httpDateNow, NEVER_CACHE } from "./mount.js";
import { MemoryRateLimiter } from "./rateLimit.js";
import { SESSION_COOKIE } from "./webSession.js";

/**
 * GET /api/v1/events and /json/events without Fastify (issue 34: a poll as cheap as the bare
 * node:http server). Most of a chat server's requests are polls, and Fastify's per-request
 * machinery (request and reply objects, routing, hooks, a child logger) cost as much again as
 * Node's HTTP server itself. A listener in front of Fastify (its `serverFactory`) takes a poll only
 * when it will answer it with success, decided synchronously without allocating:
 * - the query has exactly GET /events's parameters, in the forms their parsers accept unchanged;
 * - the credential is in the authentication cache (db/authCache.ts): the Authorization header
 *   or the `sessionid` cookie that authenticated before, the user not an incoming-webhook bot;
 * - the queue is this process's, the user's, and holds everything after last_event_id;
 * - the in-memory poll rate limit lets it through, and the server is not stopping.
 * Anything else (a first request on a credential, an error to answer, a queue elsewhere) goes to
 * Fastify untouched, which answers it exactly as the route does; nothing was counted or written.
 * The answer carries the same headers, body, compression, log line and metric as Fastify's, in
 * one `end` (one write system call), and a parked poll costs no timer or closure of its own
 * (events/parkedPolls.ts; one answer function per connection).
 */
export type HttpListener = (request: http.IncomingMessage, response: http.ServerResponse) => void;

const API_ROUTE = "/api/v1/events";
const JSON_ROUTE = "/json/events";
const MAX_SAFE_DIGITS = /^-?(?:0|[1-9]\d{0,14})$/;
/** What a queue id may hold unencoded and still be read as the route's parser reads it (no `+`). */
const PLAIN_QUEUE_ID = /^[A-Za-z0-9:._~-]{1,200}$/;

/** Polls this path answered in this process (tests tell its answers from Fastify's). */
let answeredPolls = 0;
export function eventsFastPathAnswers(): number {
  return answeredPolls;
}

/** The node:http server Fastify would make, with polls answered first (Fastify's `serverFactory`). */
export function serverWithEventsFastPath(ctx: AppContext, app: () => FastifyInstance) {
  return (fastify: HttpListener, options: FastifyServerOptions): http.Server => {
    const server = http.createServer((options as { http?: http.ServerOptions }).http ?? {}, eventsFastPath(ctx, app, fastify));
    // What Fastify's own server factory sets (fastify/lib/server.js getServerInstance).
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    if ((options.maxRequestsPerSocket ?? 0) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket!;
    return server;
  };
}

/** What one keep-alive connection's polls share: the credential's cache key, the answer function. */
class PollConnection {
  /** The credential this connection's last poll authenticated with, and its cache key. */
  credential = "";
  cacheKey = "";
  /** The parked (or being answered) poll of this connection. */
  response: http.ServerResponse | null = null;
  queue: EventQueue | null = null;
  route = API_ROUTE;
  userId = 0;
  loggedUser: number | null = null;
  acceptEncoding: string | undefined = undefined;
  startedAt = 0;
  rateLimitHeaders: [string, string, string] = ["", "", ""];
  /** The queue's id as JSON (EventQueue.idJson). */
  queueIdJson = "";

  constructor(
    readonly path: PollPath,
    socket: import("node:net").Socket,
  ) {
    // A client that hangs up stops waiting; its queue stays for its next poll.
    socket.once("close", () => {
      if (this.queue) this.queue.cancel(this.answer);
    });
  }

  /** The parked poll's answer (one function per connection: identity for EventQueue.cancel). */
  readonly answer: PollAnswer = (events) => {
    const response = this.response;
    this.response = null;
    this.queue = null;
    if (response) this.path.answer(this, response, events);
  };
}

const kPollConnection = Symbol("parley.pollConnection");
type PollSocket = import("node:net").Socket & { [kPollConnection]?: PollConnection };

interface PollPath {
  answer(connection: PollConnection, response: http.ServerResponse, events: readonly QueuedEvent[]): void;
}

function eventsFastPath(ctx: AppContext, app: () => FastifyInstance, fastify: HttpListener): HttpListener {
  const log = ctx.log.child({ component: "http" });
  let nextRequestId = 0;
  const queues = ctx.eventQueues;

  const path: PollPath = {
    answer(connection, response, events) {
      if (response.destroyed) return;
      let status = 200;
      let body: string | Buffer;
      let size = -1;
      let extraHeaders: Record<string, string> | null = null;
      try {
        body = successBody(events, connection.queueIdJson);
        size = successBodyByteLength(events, connection.queueIdJson);
      } catch (error) {
        // Unexpected (the poll was checked before it was taken): as Fastify's error handler answers it.
        const envelope = errorEnvelope(error);
        if (envelope.status >= 500) log.error({ err: error }, "request failed");
        status = envelope.status;
        body = JSON.stringify(envelope.body);
        extraHeaders = envelope.headers;
      }
      write(connection, response, status, body, extraHeaders, size);
    },
  };

  /** `textBytes`: the text's length in UTF-8 bytes when the caller knows it (-1: counted here). */
  function write(
    connection: PollConnection,
    response: http.ServerResponse,
    status: number,
    text: string,
    extraHeaders: Record<string, string> | null,
    textBytes = -1,
  ): void {
    const [limit, remaining, reset] = connection.rateLimitHeaders;
    let size = textBytes >= 0 ? textBytes : Buffer.byteLength(text);
    const encoding = jsonAnswerEncoding(connection.acceptEncoding, size);
    // Fastify's route adds its headers in this order: mount.ts, compression.ts, app.ts's onSend.
    const headers: Record<string, string | number> = {
      "cache-control": NEVER_CACHE,
      expires: httpDateNow(),
      "x-ratelimit-limit": limit,
      "x-ratelimit-remaining": remaining,
      "x-ratelimit-reset": reset,
      "content-type": "application/json; charset=utf-8",
      vary: "Accept-Encoding",
    };
    if (extraHeaders) for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
    let body: string | Buffer | NodeJS.ReadableStream = text;
    if (encoding) {
      headers["content-encoding"] = encoding;
      body = compressJsonAnswer(text, size, encoding);
      size = Buffer.isBuffer(body) ? body.length : -1;
    }
    headers["x-frame-options"] = "DENY";
    headers["x-content-type-options"] = "nosniff";
    if (connection.route === API_ROUTE) headers["access-control-allow-origin"] = "*";
    // While shutting down, answered polls must not keep their connection open (app.ts).
    if (queues.closing) headers.connection = "close";
    if (size >= 0) headers["content-length"] = size;
    answeredPolls += 1;
    response.writeHead(status, headers);
    if (typeof body === "string" || Buffer.isBuffer(body)) response.end(body);
    else body.pipe(response);
    const seconds = (performance.now() - connection.startedAt) / 1000;
    ctx.metrics.request("GET", connection.route, status, seconds);
    if (log.isLevelEnabled("info")) {
      log.info(
        {
          reqId: `poll-${(nextRequestId++).toString(36)}`,
          method: "GET",
          route: connection.route,
          status,
          ms: Math.round(seconds * 10_000) / 10,
          user: connection.loggedUser,
        },
        "request",
      );
    }
  }

  return (request, response) => {
    const url = request.url!;
    if (request.method !== "GET") return fastify(request, response);
    let route: string;
    if (url.startsWith("/api/v1/events?")) route = API_ROUTE;
    else if (url.startsWith("/json/events?")) route = JSON_ROUTE;
    else return fastify(request, response);
    if (!takePoll(request, response, route, url)) fastify(request, response);
  };

  /** Answers or parks the poll and returns true; false (having done nothing) for Fastify to answer it. */
  function takePoll(request: http.IncomingMessage, response: http.ServerResponse, route: string, url: string): boolean {
    if (queues.closing) return false;
    const query = parseQuery(url, route.length + 1);
    if (query === null) return false;
    const headers = readHeaders(request.rawHeaders);
    if (headers === null) return false;

    const socket = request.socket as PollSocket;
    let connection = socket[kPollConnection];
    if (connection?.response) return false; // a pipelined request behind a parked poll
    // The authentication cache, keyed by the credential's digest; a connection repeats its credential.
    const cache = ctx.db.authCache;
    let credential: string;
    let cacheKey: string;
    let loggedUser = false;
    if (headers.authorization !== undefined) {
      credential = headers.authorization;
      cacheKey = connection?.credential === credential ? connection.cacheKey : headerCacheKey(credential);
      loggedUser = true;
    } else if (route === JSON_ROUTE && headers.cookie !== undefined) {
      const sessionKey: string | undefined = app().parseCookie(headers.cookie)[SESSION_COOKIE];
      if (!sessionKey) return false;
      credential = sessionKey;
      cacheKey = connection?.credential === credential ? connection.cacheKey : sessionCacheKey(credential);
    } else return false;
    const found = cache.get(cacheKey);
    if (!found || (found.sessionExpiresAt !== undefined && !(found.sessionExpiresAt > nowSeconds()))) return false;
    const user = found.user;
    if (user.is_bot && user.bot_type === BotType.INCOMING_WEBHOOK) return false;
    // With a root domain the credential must be used on its organization's host (http/auth.ts);
    // a host a proxy names is Fastify's to read.
    if (ctx.config.rootDomain !== undefined && (headers.forwardedHost || !realmServesHost(ctx.config, found.realm, headers.host))) return false;

    const queueId = query.queueId;
    if (ctx.bus && queueOwner(queueId) !== ctx.bus.processId) return false;
    const queue = queues.get(queueId);
    if (!queue || queue.client.visitor || queue.client.userId !== user.id || queue.isPrunedPast(query.lastEventId)) return false;

    const limiter = ctx.pollRateLimiter;
    if (!(limiter instanceof MemoryRateLimiter)) return false;
    // Counted only when let through, so a poll over the limit goes to Fastify uncounted (it answers 429).
    const limit = limiter.hitNow(`user:${user.id}`, ctx.config.rateLimits.user);
    if (limit.retryAfter > 0) return false;

    // Taken: from here on this path answers.
    if (!connection) {
      connection = new PollConnection(path, socket);
      socket[kPollConnection] = connection;
    }
    connection.credential = credential;
    connection.cacheKey = cacheKey;
    connection.startedAt = performance.now();
    connection.route = route;
    connection.userId = user.id;
    connection.loggedUser = loggedUser ? user.id : null;
    connection.acceptEncoding = headers.acceptEncoding;
    connection.queueIdJson = queue.idJson;
    connection.rateLimitHeaders = [String(limit.limit), String(limit.remaining), String(limit.resetAt)];

    connection.response = response;
    connection.queue = queue;
    answerPoll(queues, queue, query.lastEventId, query.dontBlock, connection.answer);
    return true;
  }
}

interface PollQuery {
  queueId: string;
  lastEventId: number;
  dontBlock: boolean;
}

/**
 * GET /events's parameters from the query string starting at `from`, or null for anything the
 * route's own parsing (Fastify's querystring, params.ts) might read differently or refuse: another
 * parameter (ignored_parameters_unsupported), a repeated one, `+`, a value not in its plain form.
 */
export function parseQuery(url: string, from: number): PollQuery | null {
  let queueId: string | undefined;
  let lastEventId = -1;
  let dontBlock: boolean | undefined;
  let seenLastEventId = false;
  let at = from;
  while (at < url.length) {
    let end = url.indexOf("&", at);
    if (end < 0) end = url.length;
    const equals = url.indexOf("=", at);
    if (equals < 0 || equals > end) return null;
    const name = url.slice(at, equals);
    const value = url.slice(equals + 1, end);
    if (name === "queue_id" && queueId === undefined) {
      const decoded = value.includes("%") ? decoded_(value) : value;
      if (decoded === null || !PLAIN_QUEUE_ID.test(decoded)) return null;
      queueId = decoded;
    } else if (name === "last_event_id" && !seenLastEventId) {
      if (!MAX_SAFE_DIGITS.test(value)) return null;
      lastEventId = Number(value);
      seenLastEventId = true;
    } else if (name === "dont_block" && dontBlock === undefined) {
      if (value === "true") dontBlock = true;
      else if (value === "false") dontBlock = false;
      else return null;
    } else return null;
    at = end + 1;
  }
  if (queueId === undefined) return null;
  return { queueId, lastEventId, dontBlock: dontBlock ?? false };
}

function decoded_(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

interface PollHeaders {
  authorization: string | undefined;
  cookie: string | undefined;
  acceptEncoding: string | undefined;
  host: string | undefined;
  /** An X-Forwarded-Host header was sent. */
  forwardedHost: boolean;
}

/**
 * The request headers a poll reads, from the raw list (cheaper than Node's `headers` object, built
 * on first use); null when one of them is repeated (Node would join or drop them) or the request
 * has a body (Fastify may read one).
 */
function readHeaders(raw: string[]): PollHeaders | null {
  let authorization: string | undefined;
  let cookie: string | undefined;
  let acceptEncoding: string | undefined;
  let host: string | undefined;
  let forwardedHost = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name === undefined) break;
    switch (name.length) {
      case 13:
        if (name.toLowerCase() === "authorization") {
          if (authorization !== undefined) return null;
          authorization = raw[i + 1];
        }
        break;
      case 6:
        if (name.toLowerCase() === "cookie") {
          if (cookie !== undefined) return null;
          cookie = raw[i + 1];
        }
        break;
      case 15:
        if (name.toLowerCase() === "accept-encoding") {
          if (acceptEncoding !== undefined) return null;
          acceptEncoding = raw[i + 1];
        }
        break;
      case 14:
        if (name.toLowerCase() === "content-length" && raw[i + 1] !== "0") return null;
        break;
      case 4:
        if (name.toLowerCase() === "host") host = raw[i + 1];
        break;
      case 16:
        if (name.toLowerCase() === "x-forwarded-host") forwardedHost = true;
        break;
      case 17:
        if (name.toLowerCase() === "transfer-encoding") return null;
        break;
    }
  }
  if (authorization === "") return null;
  return { authorization, cookie, acceptEncoding, host, forwardedHost };
}

const SUCCESS_HEAD = '{"result":"success","msg":"","events":[';

/**
 * Zulip's success envelope with the events, as mount.ts writes GET /events's answer: each event's
 * JSON (serialized once for every queue that got it: ClientEvent.json) with the queue's event id
 * added last, then the queue's id.
 */
function successBody(events: readonly QueuedEvent[], queueIdJson: string): string {
  let text = SUCCESS_HEAD;
  let first = true;
  for (const { event, id } of events) {
    const json = event.json;
    if (!first) text += ",";
    first = false;
    text += json === "{}" ? `{"id":${id}}` : `${json.slice(0, -1)},"id":${id}}`;
  }
  return `${text}],"queue_id":${queueIdJson}}`;
}

const SUCCESS_HEAD_BYTES = Buffer.byteLength(SUCCESS_HEAD);

/**
 * successBody's length in UTF-8 bytes, summed from each event's (ClientEvent.jsonByteLength,
 * counted once for all the queues that got it). Counting the answer itself would first copy it
 * into one flat string: the body was built by concatenation, and Node copies it once more with
 * the header when it writes it, so counting it cost a third of what an answered poll allocated.
 */
function successBodyByteLength(events: readonly QueuedEvent[], queueIdJson: string): number {
  // The commas between events; `],"queue_id":` (13 bytes), the queue's id and `}`.
  let size = SUCCESS_HEAD_BYTES + Math.max(0, events.length - 1) + 14 + Buffer.byteLength(queueIdJson);
  for (const { event, id } of events) {
    // `{"id":N}` (7 bytes and N), or the JSON without its `}`, then `,"id":N}` (7 bytes and N).
    size += (event.json === "{}" ? 7 : event.jsonByteLength + 6) + decimalLength(id);
  }
  return size;
}

/** How many digits a non-negative integer (an event id) has in decimal. */
function decimalLength(n: number): number {
  let length = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) length += 1;
  return length;
}
