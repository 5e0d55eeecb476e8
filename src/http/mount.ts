import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { RateLimitRule } from "../config.js";
import type { Realm, User } from "../db/schema.js";
import { authenticateApiRequest, clientNameFromUserAgent, refuseIncomingWebhookBot } from "./auth.js";
import { type Endpoint, JsonText, parseParams } from "./endpoint.js";
import { type ClientDialect, clientDialectOf, jsonInDialect } from "../lib/clientDialect.js";
import { ApiError, badRequest, MissingAuthenticationError, RateLimitedError, UnauthorizedError } from "../lib/errors.js";
import { realmOfRequest } from "../lib/realms.js";
import { checkVisitorsAllowed } from "../lib/streamAccess.js";
import { checkJsonLimits } from "./jsonLimits.js";
import type { RateLimiter, RateLimitState } from "./rateLimit.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
export interface RouteEntry {
  method: HttpMethod;
  /** Relative to /api/v1, with Fastify's `:param` syntax. */
  path: string;
  endpoint: Endpoint<any, any>;
  /** A Parley extension, not in Zulip's API: what it is for (listed as such in docs/api-coverage.md). */
  extension?: string;
}

/** A file part of a multipart body, kept for endpoints that take uploads. */
export interface UploadedFile {
  fieldname: string;
  filename: string;
  mimetype: string;
  /** The bytes, for endpoints that keep files in memory (empty when spooled). */
  data: Buffer;
  /** For endpoints with spoolFiles: the temporary file (removed after the response). */
  spool?: SpooledFile;
}

export interface SpooledFile {
  path: string;
  size: number;
  /** The part was cut off at the size limit. */
  truncated: boolean;
}

/**
 * Where the route table is mounted and how its requests authenticate: /api/v1 with API keys
 * (below), /json with the web session and its CSRF token (webSession.ts).
 */
export interface ApiSurface {
  prefix: string;
  /** Only for endpoints that need a user; throws the error to send. */
  authenticate(ctx: AppContext, request: FastifyRequest): Promise<{ user: User; realm: Realm }>;
  /** For endpoints visitors may call: the user when the request carries credentials, null when it carries none. */
  authenticateIfSent(ctx: AppContext, request: FastifyRequest): Promise<{ user: User; realm: Realm } | null>;
  /** The surface's 401 for a request without credentials (Zulip's MissingAuthenticationError). */
  unauthorized(): ApiError;
  clientName(request: FastifyRequest): string;
}

const API_V1: ApiSurface = {
  prefix: "/api/v1",
  authenticate: authenticateApiRequest,
  authenticateIfSent: async (ctx, request) => (request.headers.authorization ? authenticateApiRequest(ctx, request) : null),
  unauthorized: () => new UnauthorizedError(),
  clientName: (request) => clientNameFromUserAgent(request.headers["user-agent"]),
};

/** Mounts the route table under the surface's prefix (/api/v1 unless told). */
export function mountRoutes(app: FastifyInstance, ctx: AppContext, routes: readonly RouteEntry[], surface: ApiSurface = API_V1): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: `${surface.prefix}${route.path}`,
      config: { spoolFiles: route.endpoint.spoolFiles === true },
      handler: (request, reply) => handle(ctx, surface, route.endpoint, request, reply),
    });
  }
}

export const NEVER_CACHE = "max-age=0, no-cache, no-store, must-revalidate, private";

/** The current time as an HTTP date, formatted once per second (every poll sends it). */
let httpDate = { second: 0, text: "" };
export function httpDateNow(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== httpDate.second) httpDate = { second, text: new Date(second * 1000).toUTCString() };
  return httpDate.text;
}

async function handle(ctx: AppContext, surface: ApiSurface, ep: Endpoint<any, any>, request: FastifyRequest, reply: FastifyReply) {
  const ip = request.ip;
  const limits = ctx.config.rateLimits;
  const limiter = rateLimiterOf(ctx, ep);
  let user: User | null = null;
  let realm: Realm | null = null;
  if (ep.auth === "user" || ep.auth === "visitor") {
    let found: { user: User; realm: Realm } | null;
    try {
      found = ep.auth === "user" ? await surface.authenticate(ctx, request) : await surface.authenticateIfSent(ctx, request);
    } catch (error) {
      // Failed authentication counts against the client's address.
      await applyRateLimit(limiter, reply, `ip:${ip}`, limits.ip);
      throw error;
    }
    // Django's never_cache, as Zulip's authenticated views: no cache keeps a user's data.
    reply.header("Cache-Control", NEVER_CACHE);
    reply.header("Expires", httpDateNow());
    if (found) {
      ({ user, realm } = found);
      await applyRateLimit(limiter, reply, `user:${user.id}`, limits.user);
      // Zulip: incoming-webhook bots may only send messages (and use the webhook URLs).
      if (!ep.allowIncomingWebhookBots) refuseIncomingWebhookBot(user);
    } else {
      // A visitor (Zulip's public_json_view): counted by address, let in only by an organization
      // that allows spectators.
      await applyRateLimit(limiter, reply, `ip:${ip}`, limits.ip);
      realm = await visitorRealm(ctx, surface, request);
    }
  } else {
    await applyRateLimit(limiter, reply, `ip:${ip}`, limits.ip);
  }

  const userAgent = request.headers["user-agent"];
  // Parley's web app is the /json surface's client: it gets Zulip's names.
  const dialect = clientDialectOf(userAgent, surface.prefix === "/json");
  const input = collectInput(request);
  const { values, ignored } = parseParams(ep.params, input.fields);
  const call = () =>
    ep.handler({
      ctx,
      params: values,
      path: checkPathParams(request.params),
      user,
      realm,
      request: {
        ip,
        userAgent: userAgent ?? "",
        clientName: surface.clientName(request),
        dialect,
        files: input.files,
      },
      raw: { request, reply },
    });
  // Only a visitor's handler can meet MissingAuthenticationError (the access checks of visitors).
  const result = user === null && ep.auth === "visitor" ? await runHandler(surface, call) : await call();
  if (ep.raw) return reply;
  const body: Record<string, unknown> = { result: "success", msg: "", ...(result ?? {}) };
  if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  const hasJsonText = Object.values(body).some((value) => value instanceof JsonText);
  if (!hasJsonText && dialect === "spec") return reply.send(body);
  return reply.type("application/json; charset=utf-8").send(bodyJson(body, dialect));
}

/** The organization a visitor's request is for, if it lets visitors in; the surface's 401 otherwise. */
async function visitorRealm(ctx: AppContext, surface: ApiSurface, request: FastifyRequest): Promise<Realm> {
  const realm = await realmOfRequest(ctx, request);
  if (!realm) throw surface.unauthorized();
  await runHandler(surface, () => checkVisitorsAllowed(ctx.db.kysely, realm));
  return realm;
}

/** Runs `fn`, answering Zulip's MissingAuthenticationError (a visitor refused) with the surface's own 401. */
async function runHandler<T>(surface: ApiSurface, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof MissingAuthenticationError) throw surface.unauthorized();
    throw error;
  }
}

/**
 * The body as JSON in the client's dialect. JsonText values are written as they are: they are
 * events, already in the dialect of the queue they come from.
 */
function bodyJson(body: Record<string, unknown>, dialect: ClientDialect): string | Buffer {
  const pieces: Array<string | readonly Buffer[]> = [];
  let text = "{";
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    text += `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    if (!(value instanceof JsonText)) text += jsonInDialect(JSON.stringify(value), dialect);
    else if (typeof value.parts === "string") text += value.parts;
    else {
      pieces.push(text, value.parts);
      text = "";
    }
  }
  text += "}";
  if (pieces.length === 0) return text;
  pieces.push(text);
  // Byte chunks (GET /events's events) are copied as they are, never encoded again.
  return Buffer.concat(pieces.flatMap((piece) => (typeof piece === "string" ? [Buffer.from(piece)] : piece)));
}

/** Path segments reach handlers as text; a NUL byte in one is refused here for all of them. */
function checkPathParams(params: unknown): Record<string, string> {
  const path = (params ?? {}) as Record<string, string>;
  for (const [name, value] of Object.entries(path)) {
    if (value.includes("\u0000")) throw badRequest(`${name} contains NULL (0x00) characters.`);
  }
  return path;
}

/** Zulip's GET/DELETE /events (Tornado) count in this process's own buckets (Endpoint.inProcessRateLimit). */
function rateLimiterOf(ctx: AppContext, ep: Endpoint<any, any>): RateLimiter {
  return ep.inProcessRateLimit ? ctx.pollRateLimiter : ctx.rateLimiter;
}

export async function applyRateLimit(limiter: RateLimiter, reply: FastifyReply, key: string, rule: RateLimitRule): Promise<void> {
  const state: RateLimitState = await limiter.hit(key, rule);
  setRateLimitHeaders(reply, state);
  if (state.retryAfter > 0) throw new RateLimitedError(state.retryAfter);
}

/** The X-RateLimit-* headers of every API answer. */
function setRateLimitHeaders(to: { header(name: string, value: string): unknown }, state: RateLimitState): void {
  to.header("X-RateLimit-Limit", String(state.limit));
  to.header("X-RateLimit-Remaining", String(state.remaining));
  to.header("X-RateLimit-Reset", String(state.resetAt));
}

/**
 * Every parameter as text, from the query string and the body (urlencoded, multipart or JSON),
 * for every method: body fields win over the query string. Repeated names keep the last value.
 */
function collectInput(request: FastifyRequest): { fields: Record<string, string>; files: UploadedFile[] } {
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  const put = (source: unknown) => {
    if (source === null || typeof source !== "object" || Array.isArray(source)) return;
    for (const [key, raw] of Object.entries(source as Record<string, unknown>)) {
      const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
      if (value === undefined || value === null) continue;
      if (typeof value === "object" && "type" in value && (value as any).type === "file") {
        const f = value as any;
        files.push({ fieldname: key, filename: f.filename, mimetype: f.mimetype, data: f._buf ?? Buffer.alloc(0), spool: f.spool });
        continue;
      }
      if (typeof value === "object" && "type" in value && (value as any).type === "field") {
        fields[key] = String((value as any).value);
        continue;
      }
      fields[key] = typeof value === "string" ? value : JSON.stringify(value);
    }
  };
  put(request.query);
  // A JSON body is walked below (JSON.stringify of its fields): bound it first.
  if (request.body !== null && typeof request.body === "object" && !request.isMultipart()) checkJsonLimits(request.body, "Request body");
  put(request.body);
  return { fields, files };
}

/** For errors Fastify raises before routing (e.g. a URL that is not valid percent-encoding). */
export function sendErrorEnvelope(reply: FastifyReply, error: unknown): void {
  const { status, body, headers } = errorEnvelope(error);
  void reply.status(status).headers(headers).send(body);
}

/** What busboy (under @fastify/multipart) throws, without a status, for a body it cannot parse. */
const MULTIPART_PARSE_ERROR = /^(Multipart: |Unexpected end of (multipart data|form)|Malformed part header|Part terminated early)/;

/** Fastify errors (bad bodies, too large, bad URLs) and our ApiErrors as Zulip's error envelope. */
export function errorEnvelope(error: unknown): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      body: { result: "error", msg: error.message, code: error.code, ...error.data },
      headers: error.headers,
    };
  }
  const e = error as { statusCode?: number; code?: string; message?: string };
  if (typeof e?.message === "string" && MULTIPART_PARSE_ERROR.test(e.message)) {
    return { status: 400, body: { result: "error", msg: "Malformed multipart body", code: "BAD_REQUEST" }, headers: {} };
  }
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    const msg =
      e.code === "FST_ERR_CTP_BODY_TOO_LARGE" || e.statusCode === 413
        ? "Request body too large"
        : e.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
          ? "Unsupported content type"
          : e.code === "FST_ERR_CTP_INVALID_JSON_BODY" || e.code === "FST_ERR_CTP_EMPTY_JSON_BODY"
            ? "Malformed JSON"
            : `Bad request: ${e.message ?? ""}`.trim();
    return { status: e.statusCode === 413 ? 413 : 400, body: { result: "error", msg, code: "BAD_REQUEST" }, headers: {} };
  }
  return {
    status: 500,
    body: { result: "error", msg: "Internal server error", code: "INTERNAL_SERVER_ERROR" },
    headers: {},
  };
}
