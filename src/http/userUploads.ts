import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { serverSecret } from "../lib/serverSecret.js";
import { canReadAttachment, visitorCanReadAttachment } from "../lib/uploadAccess.js";
import { contentDisposition, parsePathId, servedContentType, servedInline, THUMBNAIL_SIZE, thumbnailKey } from "../lib/uploadFiles.js";
import { type Attachment, attachmentStore } from "../store/attachments.js";
import { authenticateApiKeyOrSession, userOfSession } from "./auth.js";
import { ApiError, UnauthorizedError } from "../lib/errors.js";
import { realmOfRequest } from "../lib/realms.js";
import { applyRateLimit } from "./mount.js";
import { SESSION_COOKIE } from "./sessions.js";
import { group } from "../util/defined.js";

/**
 * Serving uploaded files (Zulip's serve_file):
 *   GET /user_uploads/{realm_id}/{…path}            the file, to whoever may read it
 *   GET /user_uploads/download/{realm_id}/{…path}   the same, always as a download
 *   GET /user_uploads/thumbnail/{realm_id}/{…path}/840x560.webp   its thumbnail
 *   GET /user_uploads/temporary/{token}/{filename}  a signed, one-minute URL without credentials
 * Credentials are the API's (HTTP Basic with the API key) or a web session cookie. A request with
 * neither (or with a session that ended) is a visitor's (Zulip's spectator, through public_json_view):
 * rate-limited by address, it gets the files of messages visitors may read, and the same 401 as
 * before for anything else, whether the file exists or not. Who may read a file is decided by
 * lib/uploadAccess.ts; a path this server never makes is "not found" before any look-up, and
 * blob storage refuses any key outside its root.
 */
const TEMPORARY_URL_SECONDS = 60;

const notFound = () => new ApiError("File not found.", { code: "NOT_FOUND", status: 404 });
const forbidden = () => new ApiError("You are not authorized to view this file.", { code: "UNAUTHORIZED", status: 403 });

/** Who asks for a file: a user, or a visitor of the organization the request is for (none when there is no organization). */
type Reader = { user: User } | { visitorOf: Realm | undefined };

async function readerOf(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<Reader> {
  const authorization = request.headers.authorization;
  const sessionKey = request.cookies[SESSION_COOKIE];
  if (authorization) return { user: (await authenticateApiKeyOrSession(ctx, authorization, undefined, request.host)).user };
  const session = sessionKey ? await userOfSession(ctx, sessionKey, request.host) : null;
  if (session) return { user: session.user };
  await applyRateLimit(ctx.rateLimiter, reply, `ip:${request.ip}`, ctx.config.rateLimits.ip);
  return { visitorOf: await realmOfRequest(ctx, request) };
}

async function readableAttachment(ctx: AppContext, reader: Reader, pathId: string): Promise<Attachment> {
  if (!("user" in reader)) {
    const realm = reader.visitorOf;
    const attachment = realm && parsePathId(pathId) ? await attachmentStore.getByPathId(ctx.db.kysely, pathId) : undefined;
    if (!realm || !attachment || !(await visitorCanReadAttachment(ctx.db.kysely, realm, attachment))) throw new UnauthorizedError();
    return attachment;
  }
  const user = reader.user;
  if (!parsePathId(pathId)) throw notFound();
  const attachment = await attachmentStore.getByPathId(ctx.db.kysely, pathId);
  if (!attachment || attachment.realm_id !== user.realm_id) throw notFound();
  if (!(await canReadAttachment(ctx.db.kysely, user, attachment))) throw forbidden();
  return attachment;
}

async function sendBlob(ctx: AppContext, reply: FastifyReply, key: string, headers: Record<string, string>): Promise<FastifyReply> {
  const blob = await ctx.blobs.get(key);
  if (!blob) throw notFound();
  return reply
    .headers(headers)
    .header("Content-Length", String(blob.size))
    .header("Content-Security-Policy", "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox")
    .header("Cache-Control", "private, max-age=31536000, immutable")
    .send(blob.body);
}

function sendAttachment(ctx: AppContext, reply: FastifyReply, attachment: Attachment, download: boolean): Promise<FastifyReply> {
  const type = attachment.content_type ?? "application/octet-stream";
  const inline = !download && servedInline(type);
  return sendBlob(ctx, reply, attachment.path_id, {
    "Content-Type": inline ? servedContentType(type) : "application/octet-stream",
    "Content-Disposition": contentDisposition(attachment.file_name, inline),
  });
}

/** The path the URL names: its segments decoded, as Fastify hands them over. */
function pathOf(request: FastifyRequest<{ Params: { realm_id: string; "*": string } }>): string {
  return `${request.params.realm_id}/${request.params["*"]}`;
}

function sign(secret: Buffer, data: string): string {
  return createHmac("sha256", secret).update(data).digest("base64url");
}

/**
 * A URL for `pathId` that works without credentials for a minute (the API's
 * GET /user_uploads/{realm}/{path}): `/user_uploads/temporary/<id>.<expiry>.<HMAC>/<name>`.
 */
export async function temporaryFileUrl(ctx: AppContext, user: User, pathId: string): Promise<string> {
  const attachment = await readableAttachment(ctx, { user }, pathId);
  const payload = `${attachment.id}.${Math.floor(Date.now() / 1000) + TEMPORARY_URL_SECONDS}`;
  const token = `${payload}.${sign(serverSecret(ctx.config.dataDir), payload)}`;
  return `/user_uploads/temporary/${token}/${encodeURIComponent(parsePathId(attachment.path_id)!.fileName)}`;
}

/** The attachment id a valid, unexpired token names. */
function attachmentIdFromToken(ctx: AppContext, token: string): number | undefined {
  const match = /^(\d{1,15})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return undefined;
  const [id, expiry, signature] = [group(match, 1), group(match, 2), group(match, 3)];
  const expected = Buffer.from(sign(serverSecret(ctx.config.dataDir), `${id}.${expiry}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  return Number(expiry) >= Date.now() / 1000 ? Number(id) : undefined;
}

export async function userUploads(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  type Req = FastifyRequest<{ Params: { realm_id: string; "*": string } }>;

  app.get("/user_uploads/:realm_id/*", async (request: Req, reply) => {
    const reader = await readerOf(ctx, request, reply);
    return sendAttachment(ctx, reply, await readableAttachment(ctx, reader, pathOf(request)), false);
  });

  app.get("/user_uploads/download/:realm_id/*", async (request: Req, reply) => {
    const reader = await readerOf(ctx, request, reply);
    return sendAttachment(ctx, reply, await readableAttachment(ctx, reader, pathOf(request)), true);
  });

  app.get("/user_uploads/thumbnail/:realm_id/*", async (request: Req, reply) => {
    const reader = await readerOf(ctx, request, reply);
    const full = pathOf(request);
    const suffix = `/${THUMBNAIL_SIZE}.webp`;
    if (!full.endsWith(suffix)) throw "user" in reader ? notFound() : new UnauthorizedError();
    const attachment = await readableAttachment(ctx, reader, full.slice(0, -suffix.length));
    return sendBlob(ctx, reply, thumbnailKey(attachment.path_id), { "Content-Type": "image/webp", "Content-Disposition": "inline" });
  });

  app.get<{ Params: { token: string; filename: string } }>("/user_uploads/temporary/:token/:filename", async (request, reply) => {
    const attachmentId = attachmentIdFromToken(ctx, request.params.token);
    if (attachmentId === undefined) throw new ApiError("Invalid token", { code: "BAD_REQUEST", status: 400 });
    const attachment = await attachmentStore.getById(ctx.db.kysely, attachmentId);
    if (!attachment) throw notFound();
    if (parsePathId(attachment.path_id)?.fileName !== request.params.filename) throw new ApiError("Invalid filename", { code: "BAD_REQUEST", status: 400 });
    return sendAttachment(ctx, reply, attachment, false);
  });
}
