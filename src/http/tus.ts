import { existsSync } from "node:fs";
import { copyFile, link, mkdir, rm } from "node:fs/promises";
import type { Socket } from "node:net";
import path from "node:path";
import type { FileStore } from "@tus/file-store";
import type { Server, Upload } from "@tus/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createUpload } from "../actions/attachments.js";
import { checkUploadQuota } from "../actions/realmLimits.js";
import type { AppContext } from "../appContext.js";
import type { User } from "../db/schema.js";
import { ApiError } from "../lib/errors.js";
import { contentTypeFor, displayFileName } from "../lib/uploadFiles.js";
import { lazy } from "../util/lazy.js";
import { authenticateApiKeyOrSession } from "./auth.js";
import { authenticateBySession, CsrfError } from "./webSession.js";
import { SESSION_COOKIE } from "./sessions.js";
import { type FinishedUpload, FinishedUploads } from "./tusFinishedUploads.js";

/**
 * Resumable uploads at /api/v1/tus (Zulip 10, feature level 296), with @tus/server: creation,
 * offsets, resuming with HEAD + PATCH, termination. Parts are kept under `<dataDir>/uploads/tus`
 * until the last byte arrives; then the file becomes an attachment exactly as POST /user_uploads
 * makes one, and the final PATCH answers Zulip's `{url, filename}`.
 *
 * Every request carries API credentials (HTTP Basic) or a web session cookie, as Zulip's tusd
 * hook accepts; with the session, a request that changes something (POST, PATCH, DELETE) also
 * carries the session's CSRF token, as every /json request does (Zulip's tusd hook takes the
 * session alone). An upload belongs to the user who created it, and anyone else is told it does
 * not exist. As in Zulip,
 * deferred lengths are refused (411) and a declared size over max_file_upload_size_mib is 413.
 * Errors are `{"message": ...}` JSON, the shape Zulip's tus hooks give.
 *
 * A finished upload's answer is kept for a day (tusFinishedUploads.ts): when the final PATCH's
 * answer is lost, the client's HEAD is told the upload is complete (Upload-Offset = Upload-Length)
 * and a PATCH at that offset answers the same `{url, filename}` again; the file is stored once.
 */
interface TusRejection {
  status_code: number;
  body: string;
}

const reject = (status: number, message: string): TusRejection => ({ status_code: status, body: JSON.stringify({ message }) });
const OWNER_KEY = "parley_owner_id";
const UNFINISHED_UPLOAD_MS = 24 * 3600_000;
const FINISHED_ANSWER_MS = 24 * 3600_000;
const isRejection = (error: unknown): error is TusRejection => typeof error === "object" && error !== null && "status_code" in error && "body" in error;

/** The request header that carries the request's host (as Fastify reads it) to @tus/server's handlers. */
const REQUEST_HOST_HEADER = "x-parley-request-host";

export async function tusUploads(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const directory = path.join(ctx.config.dataDir, "uploads", "tus");
  const maxMib = ctx.config.uploads.maxFileSizeMib;
  const users = new WeakMap<Request, User>();
  const finished = new Set<string>();
  const answers = new FinishedUploads(path.join(ctx.config.dataDir, "uploads", "tus-finished"), FINISHED_ANSWER_MS);
  // Uploads being turned into attachments: a final PATCH sent again meanwhile waits for the first.
  const finishing = new Map<string, Promise<FinishedUpload>>();
  // @tus/server and @tus/file-store (slow to load and large in memory) are loaded by the first tus
  // request, or by the hourly sweep when a previous run left uploads behind.
  const loadTus = lazy(async () => {
    const [{ FileStore }, { Server }] = await Promise.all([import("@tus/file-store"), import("@tus/server")]);
    // FileStore creates its directory without waiting; it must exist before the first upload.
    await mkdir(directory, { recursive: true, mode: 0o777 });
    // An upload left unfinished for a day is removed (tus's expiration extension).
    const datastore = new FileStore({ directory, expirationPeriodInMilliseconds: UNFINISHED_UPLOAD_MS });
    return { datastore, tus: tusServer(Server, datastore) };
  });
  const removeFinished = async () => {
    if (finished.size === 0) return;
    const { datastore } = await loadTus();
    for (const id of [...finished]) {
      finished.delete(id);
      await datastore.remove(id).catch(() => rm(path.join(directory, id), { force: true }));
    }
  };
  // Checked hourly; with no tus directory there is nothing to remove.
  const sweeper = setInterval(() => {
    void answers.sweep().catch((error: unknown) => ctx.log.warn({ err: error }, "removing old tus upload answers failed"));
    if (!existsSync(directory)) return;
    loadTus()
      .then(({ datastore }) => datastore.deleteExpired())
      .catch((error: unknown) => ctx.log.warn({ err: error }, "removing expired tus uploads failed"));
  }, 3600_000).unref();
  app.addHook("onClose", async () => clearInterval(sweeper));

  const tusServer = (TusServer: typeof Server, datastore: FileStore) =>
    new TusServer({
      path: "/api/v1/tus",
      datastore,
      relativeLocation: true,
      disableTerminationForFinishedUploads: true,
      async onIncomingRequest(req, uploadId) {
        const user = await uploader(req.method, (name) => req.headers.get(name) ?? undefined);
        users.set(req, user);
        if (req.method === "POST") return;
        const upload = await datastore.getUpload(uploadId).catch(() => undefined);
        if (upload && upload.metadata?.[OWNER_KEY] !== String(user.id)) throw reject(404, "The file for this url was not found");
      },
      async onUploadCreate(req, upload) {
        if (upload.sizeIsDeferred || upload.size === undefined) throw reject(411, "SizeIsDeferred is not supported");
        if (upload.size > maxMib * 1024 * 1024) throw reject(413, `Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
        const user = users.get(req)!;
        // Zulip's tusd pre-create hook: an upload that would exceed the organization's quota is refused (413).
        try {
          await checkUploadQuota(ctx.db.kysely, user.realm_id, upload.size);
        } catch (error) {
          if (error instanceof ApiError) throw reject(413, error.message);
          throw error;
        }
        return { metadata: { ...upload.metadata, [OWNER_KEY]: String(user.id) } };
      },
      async onUploadFinish(req, upload) {
        const user = users.get(req)!;
        let answer = (await answers.get(upload.id)) ?? finishing.get(upload.id);
        if (!answer) {
          answer = finishUpload(user, upload).finally(() => finishing.delete(upload.id));
          finishing.set(upload.id, answer);
        }
        // The quota, checked again as the file is stored (other uploads may have finished since its creation).
        const { url, filename } = await Promise.resolve(answer).catch((error: unknown) => {
          throw error instanceof ApiError ? reject(413, error.message) : error;
        });
        return { status_code: 200, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url, filename }) };
      },
    });

  /** The uploaded bytes become an attachment; its answer is recorded before it is given. */
  async function finishUpload(user: User, upload: Upload): Promise<FinishedUpload> {
    const name = displayFileName(upload.metadata?.filename ?? "");
    // The attachment gets its own link (or copy) of the bytes; @tus/server still reads the
    // staged upload while answering, so that is removed once the response is written.
    const staged = path.join(directory, upload.id);
    const handOver = `${staged}.finished`;
    await link(staged, handOver).catch(() => copyFile(staged, handOver));
    const { url } = await createUpload(ctx, user, {
      localPath: handOver,
      name,
      size: upload.offset,
      contentType: contentTypeFor(upload.metadata?.filetype ?? undefined, name),
    });
    const answer = { ownerId: user.id, size: upload.offset, url, filename: name };
    await answers.record(upload.id, answer);
    finished.add(upload.id);
    return answer;
  }

  /**
   * The user a tus request authenticates as (API key, or the web session and, to change something,
   * its CSRF token), on the host of the user's organization. The host is Fastify's reading of the
   * request (trusted proxies' X-Forwarded-Host included), handed to @tus/server's web Request in
   * REQUEST_HOST_HEADER.
   */
  async function uploader(method: string, header: (name: string) => string | undefined): Promise<User> {
    try {
      const authorization = header("authorization");
      const sessionKey = app.parseCookie(header("cookie") ?? "")[SESSION_COOKIE];
      const host = header(REQUEST_HOST_HEADER);
      const { user } = authorization
        ? await authenticateApiKeyOrSession(ctx, authorization, undefined, host)
        : await authenticateBySession(ctx, sessionKey, host, method, header("x-csrftoken"));
      return user;
    } catch (error) {
      if (error instanceof CsrfError) throw reject(403, error.message);
      if (error instanceof ApiError) throw reject(401, "Unauthenticated upload");
      throw error;
    }
  }

  /** HEAD and PATCH of an upload already finished (its staged bytes removed): its recorded answer, to its owner only. */
  async function answerFinished(request: FastifyRequest, reply: FastifyReply, done: FinishedUpload): Promise<FastifyReply> {
    const json = (status: number, body: string) => reply.status(status).header("Tus-Resumable", "1.0.0").type("application/json").send(body);
    let user: User;
    try {
      user = await uploader(request.method, (name) => {
        if (name === REQUEST_HOST_HEADER) return request.host;
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      });
    } catch (error) {
      if (isRejection(error)) return json(error.status_code, error.body);
      throw error;
    }
    if (user.id !== done.ownerId) return json(404, JSON.stringify({ message: "The file for this url was not found" }));
    reply.header("Upload-Offset", String(done.size)).header("Upload-Length", String(done.size)).header("Cache-Control", "no-store");
    if (request.method === "HEAD") return reply.status(200).header("Tus-Resumable", "1.0.0").send();
    if (request.headers["upload-offset"] !== String(done.size)) return json(409, JSON.stringify({ message: "Offset conflict: the upload is complete" }));
    return json(200, JSON.stringify({ url: done.url, filename: done.filename }));
  }

  // Node's server does not count a keep-alive connection whose last response @tus/server wrote
  // as idle, so app.close() would wait for the client to drop it: track tus connections and
  // close the idle ones when the app closes.
  const requestsInFlight = new Map<Socket, number>();
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    for (const [socket, count] of requestsInFlight) if (count === 0) socket.destroy();
  });

  // PATCH bodies (and creation-with-upload) reach @tus/server as an untouched stream.
  app.addContentTypeParser("application/offset+octet-stream", (_request, _payload, done) => done(null));
  for (const url of ["/api/v1/tus", "/api/v1/tus/*"]) {
    app.route({
      method: ["POST", "HEAD", "PATCH", "DELETE", "OPTIONS"],
      url,
      handler: async (request, reply) => {
        if (request.method === "HEAD" || request.method === "PATCH") {
          const done = await answers.get((request.params as { "*"?: string })["*"] ?? "");
          if (done) return answerFinished(request, reply, done);
        }
        const { tus } = await loadTus();
        // Whatever a client sent under this name is replaced: only the host Fastify read counts.
        const raw = request.raw;
        const rawHeaders: string[] = [];
        for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) {
          if (raw.rawHeaders[i]!.toLowerCase() !== REQUEST_HOST_HEADER) rawHeaders.push(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
        }
        raw.rawHeaders = [...rawHeaders, REQUEST_HOST_HEADER, request.host];
        raw.headers[REQUEST_HOST_HEADER] = request.host;
        reply.hijack();
        const socket = request.raw.socket;
        if (!requestsInFlight.has(socket)) socket.once("close", () => requestsInFlight.delete(socket));
        requestsInFlight.set(socket, (requestsInFlight.get(socket) ?? 0) + 1);
        try {
          await tus.handle(request.raw, reply.raw);
        } finally {
          await removeFinished();
          if (requestsInFlight.has(socket)) {
            const count = requestsInFlight.get(socket)! - 1;
            requestsInFlight.set(socket, count);
            if (closing && count === 0) socket.destroy();
          }
        }
      },
    });
  }
}
