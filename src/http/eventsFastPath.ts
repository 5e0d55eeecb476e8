import http from "node:http";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { accessQueue, pollQueue } from "../events/poll.js";
import { eventsChunks, queueOwner } from "../events/queues.js";
import { clientDialectOf } from "../lib/clientDialect.js";
import { getEvents } from "../routes/events.js";
import { authenticateAuthorizationHeader, refuseIncomingWebhookBot } from "./auth.js";
import { JsonText, parseParams } from "./endpoint.js";
import { bodyJson, errorEnvelope, httpDateNow, NEVER_CACHE, rateLimiterOf, setRateLimitHeaders } from "./mount.js";
import { authenticateBySession, SESSION_COOKIE } from "./webSession.js";

/**
 * GET /api/v1/events and /json/events without Fastify's per-request machinery (routing, hooks,
 * reply objects): a poll is most of a chat server's requests. A node:http listener in front of
 * Fastify takes a poll only when it can answer it with success — authenticated by the same
 * functions (http/auth.ts, webSession.ts, through the authentication cache), parameters read by
 * GET /events's own schema (routes/events.ts), the rate limit counted in the same buckets, a queue
 * this process holds — and writes the answer with one `end`, with the headers, log line and
 * metrics Fastify's route gives it. Every other request, and any poll that would be answered with
 * an error (bad or foreign queue, bad parameters, failed authentication, over the rate limit, a
 * queue another process holds, shutdown), goes to Fastify untouched, which answers it exactly as
 * before; nothing is written or counted before that decision.
 */
export type HttpListener = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** Polls this path answered in this process (tests tell it from Fastify's answers by it). */
let answeredPolls = 0;
export function eventsFastPathAnswers(): number {
  return answeredPolls;
}

const PATHS = new Map([
  ["/api/v1/events", "/api/v1/events"],
  ["/json/events", "/json/events"],
]);

/** The node:http server Fastify would create, with polls answered first (Fastify's `serverFactory`). */
export function serverWithEventsFastPath(ctx: AppContext, app: () => FastifyInstance) {
  return (fastify: HttpListener, options: FastifyServerOptions): http.Server => {
    const server = http.createServer((options as { http?: http.ServerOptions }).http ?? {}, eventsFastPath(ctx, app, fastify));
    // What Fastify's own server factory sets (fastify/lib/server.js).
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    if ((options.maxRequestsPerSocket ?? 0) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket!;
    return server;
  };
}

export function eventsFastPath(ctx: AppContext, app: () => FastifyInstance, fastify: HttpListener): HttpListener {
  const log = ctx.log.child({ component: "http" });
  let nextRequestId = 0;
  return (request, response) => {
    const url = request.url ?? "";
    const queryAt = url.indexOf("?");
    const route = request.method === "GET" ? PATHS.get(queryAt < 0 ? url : url.slice(0, queryAt)) : undefined;
    // A body (Fastify may parse one) or shutdown (Fastify answers 503): Fastify's.
    if (route === undefined || hasBody(request) || ctx.eventQueues.closing) return fastify(request, response);
    const startedAt = performance.now();
    takePoll(ctx, app(), route, request, queryAt < 0 ? "" : url.slice(queryAt + 1)).then(
      (poll) => {
        if (!poll) return fastify(request, response);
        const reqId = `poll-${(nextRequestId++).toString(36)}`;
        answeredPolls += 1;
        answerPoll(ctx, poll, request, response).finally(() => {
          const seconds = (performance.now() - startedAt) / 1000;
          ctx.metrics.request("GET", route, response.statusCode, seconds);
          if (log.isLevelEnabled("info")) {
            log.info({ reqId, method: "GET", route, status: response.statusCode, ms: Math.round(seconds * 10_000) / 10, user: poll.loggedUser }, "request");
          }
        });
      },
      // Anything unexpected before the decision: Fastify answers it (nothing was written).
      () => fastify(request, response),
    );
  };
}

interface TakenPoll {
  route: string;
  user: User;
  realm: Realm;
  /** The log line's user: noted by API-key authentication only, as Fastify's route does. */
  loggedUser: number | null;
  params: { queue_id: string; last_event_id: number | undefined; dont_block: boolean };
  ignored: string[];
  headers: Record<string, string>;
}

function hasBody(request: http.IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** The poll, when this path answers it with success; null for Fastify to answer. */
async function takePoll(ctx: AppContext, app: FastifyInstance, route: string, request: http.IncomingMessage, query: string): Promise<TakenPoll | null> {
  let parsed: { values: TakenPoll["params"]; ignored: string[] };
  try {
    parsed = parseParams(getEvents.params, queryFields(query));
  } catch {
    return null;
  }
  const authorization = request.headers.authorization;
  let found: { user: User; realm: Realm };
  try {
    if (authorization || route === "/api/v1/events") found = await authenticateAuthorizationHeader(ctx, authorization);
    else found = await authenticateBySession(ctx, sessionKeyOf(app, request.headers.cookie), "GET", undefined);
    refuseIncomingWebhookBot(found.user);
  } catch {
    return null;
  }
  const { user } = found;
  const queueId = parsed.values.queue_id;
  const owner = queueOwner(queueId);
  if (ctx.bus && owner !== null && owner !== ctx.bus.processId) return null;
  try {
    const queue = accessQueue(ctx.eventQueues, user.id, queueId);
    if (queue.isPrunedPast(parsed.values.last_event_id ?? -1)) return null;
  } catch {
    return null;
  }
  const limits = ctx.config.rateLimits;
  const state = await rateLimiterOf(ctx, getEvents).hit(`user:${user.id}`, limits.user);
  // Over the limit: not counted (in-memory buckets count only what they let through); Fastify answers 429.
  if (state.retryAfter > 0 || ctx.eventQueues.closing) return null;
  const headers: Record<string, string> = { "cache-control": NEVER_CACHE, expires: httpDateNow() };
  setRateLimitHeaders({ header: (name, value) => (headers[name.toLowerCase()] = value) }, state);
  return {
    route,
    user,
    realm: found.realm,
    loggedUser: authorization ? user.id : null,
    params: parsed.values,
    ignored: parsed.ignored,
    headers,
  };
}

/** Parks the poll (or answers it at once) and writes Zulip's success envelope. */
async function answerPoll(ctx: AppContext, poll: TakenPoll, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  let status = 200;
  let body: string | Buffer;
  let headers = poll.headers;
  try {
    const answer = await pollQueue(
      ctx.eventQueues,
      { userId: poll.user.id, queueId: poll.params.queue_id, lastEventId: poll.params.last_event_id ?? -1, dontBlock: poll.params.dont_block },
      // A client that hangs up stops waiting; its queue stays for its next poll.
      (cancel) => response.once("close", cancel),
    );
    const fields: Record<string, unknown> = { result: "success", msg: "", events: new JsonText(eventsChunks(answer.events)), queue_id: answer.queueId };
    if (poll.ignored.length > 0) fields.ignored_parameters_unsupported = poll.ignored;
    body = bodyJson(fields, clientDialectOf(request.headers["user-agent"], poll.route === "/json/events"));
  } catch (error) {
    // Checked before taking the poll; an error here is unexpected, answered as Fastify's error handler would.
    const envelope = errorEnvelope(error);
    if (envelope.status >= 500) ctx.log.error({ err: error }, "request failed");
    status = envelope.status;
    body = JSON.stringify(envelope.body);
    headers = { ...headers, ...lowerCased(envelope.headers) };
  }
  if (response.destroyed) return;
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    // The headers app.ts's onSend hook adds to every answer.
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    ...(poll.route === "/api/v1/events" ? { "access-control-allow-origin": "*" } : {}),
    ...(ctx.eventQueues.closing ? { connection: "close" } : {}),
    "content-length": String(bytes.length),
  });
  await new Promise<void>((resolve) => {
    // Finished, or the connection went away first (then "finish" never comes).
    response.once("finish", resolve).once("close", resolve);
    response.end(bytes);
  });
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The `sessionid` cookie, parsed by the cookie plugin's own parser (request.cookies in Fastify). */
function sessionKeyOf(app: FastifyInstance, cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return app.parseCookie(cookieHeader)[SESSION_COOKIE];
}

/**
 * The query string's fields as Fastify's parser (fast-querystring) reads them and mount.ts's
 * collectInput keeps them: `+` is a space, a name or value that is not valid percent-encoding is
 * kept as it is, a repeated name keeps its last value, a pair needs a name or an `=`.
 */
export function queryFields(query: string): Record<string, string> {
  const fields: Record<string, string> = {};
  if (query === "") return fields;
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=");
    const name = decodeQueryText(equals < 0 ? pair : pair.slice(0, equals));
    if (equals < 0 && name === "") continue;
    fields[name] = equals < 0 ? "" : decodeQueryText(pair.slice(equals + 1));
  }
  return fields;
}

function decodeQueryText(text: string): string {
  const spaced = text.includes("+") ? text.replaceAll("+", " ") : text;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
