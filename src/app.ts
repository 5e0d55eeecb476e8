import { createHmac } from "node:crypto";
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import pino from "pino";
import { ensureRetentionJob } from "./actions/messageRetention.js";
import type { AppContext } from "./appContext.js";
import { passwordMethods } from "./auth/ldap.js";
import { createBlobStorage } from "./blobs/create.js";
import type { Config } from "./config.js";
import { openMigratedDb } from "./db/migrate.js";
import { EventBus } from "./events/bus.js";
import { EventDispatcher } from "./events/dispatch.js";
import { realmReadCache } from "./db/realmReadCache.js";
import { EventQueueRegistry } from "./events/queues.js";
import { accountPages } from "./http/accountPages.js";
import { avatarFiles } from "./http/avatarFiles.js";
import { compressJsonAnswers } from "./http/compression.js";
import { emojiFiles } from "./http/emojiFiles.js";
import { exportFiles } from "./http/exportFiles.js";
import { incomingWebhooks } from "./http/incomingWebhooks.js";
import { integrationPages } from "./http/integrationPages.js";
import { archivePages } from "./http/archivePages.js";
import { joinPages } from "./http/joinPages.js";
import { passwordResetPages } from "./http/passwordResetPages.js";
import { organizationSignupPages } from "./http/organizationSignupPages.js";
import { sessionPages } from "./http/sessions.js";
import { externalAuthPages } from "./http/externalAuthPages.js";
import { twoFactorPages } from "./auth/twoFactorPages.js";
import { webAppPages } from "./http/webApp.js";
import { loginPages } from "./http/loginPage.js";
import { JSON_SURFACE } from "./http/webSession.js";
import { tusUploads } from "./http/tus.js";
import { userUploads } from "./http/userUploads.js";
import { serverWithEventsFastPath } from "./http/eventsFastPath.js";
import { errorEnvelope, mountRoutes, sendErrorEnvelope } from "./http/mount.js";
import { multipartFileHandler, removeSpooledFilesAfterResponse } from "./http/multipartFiles.js";
import { MemoryRateLimiter, type RateLimiter, SharedRateLimiter } from "./http/rateLimit.js";
import { metricsEndpoint } from "./http/metrics.js";
import { logRequests } from "./http/requestLog.js";
import { isListedRoute, ROUTES } from "./http/routes.js";
import { registerJobHandlers } from "./jobs/handlers.js";
import { externalContent } from "./http/externalContent.js";
import { videoCallPages } from "./http/videoCallPages.js";
import { setCamoKey } from "./lib/camo.js";
import { serverSecret } from "./lib/serverSecret.js";
import { JobRunner } from "./jobs/runner.js";
import { ensureWritableDataDir } from "./lib/dataDir.js";
import { prepareDataDirectory } from "./lib/dataDirectory.js";
import { emojiCodeToNames } from "./lib/emoji.js";
import { Metrics } from "./metrics.js";
import { queueReceiverWentIdle } from "./actions/receiverIdle.js";
import { jobStore } from "./store/jobs.js";
import { nowSeconds } from "./util/time.js";
import { realmStore } from "./store/realms.js";

/** Opens the database, runs migrations and wires the process-wide services. */
export async function createContext(config: Config, log = pino({ level: config.logLevel })): Promise<AppContext & { jobs: JobRunner }> {
  ensureWritableDataDir(config.dataDir);
  prepareDataDirectory(config);
  const metrics = new Metrics();
  const db = await openMigratedDb(config, { log, onStatement: (seconds, failed) => metrics.statement(seconds, failed) });
  const events = new EventDispatcher();
  const bus = config.busUrl
    ? await EventBus.connect(config.busUrl, config.processId ?? EventBus.newProcessId(), log, {
        db: db.kysely,
        queueTimeoutMs: config.eventQueueTimeoutSeconds * 1000,
        lasting: config.processId !== undefined,
      })
    : undefined;
  const eventQueues = new EventQueueRegistry({
    timeoutMs: config.eventQueueTimeoutSeconds * 1000,
    heartbeatMs: config.eventHeartbeatSeconds * 1000,
    processId: bus?.processId,
    savedQueues: bus ? undefined : db.kysely,
  });
  eventQueues.start(events);
  // Ended sessions and deactivated users lose their event queues, whichever process ended them.
  db.authCache.listen((change) => eventQueues.applyAuthChange(change));
  // The linkifiers and alert words sends read from memory: dropped by their events, here or from another process.
  events.subscribe(realmReadCache(db.kysely).invalidateOnEvent);
  bus?.start(events, eventQueues, db.authCache);
  // Several processes share their counters in the database; one keeps them in memory.
  const rateLimiter: RateLimiter = bus ? new SharedRateLimiter(db, config.rateLimits.enabled) : new MemoryRateLimiter(config.rateLimits.enabled);
  const ctx = {
    config,
    db,
    events,
    eventQueues,
    bus,
    log,
    rateLimiter,
    pollRateLimiter: new MemoryRateLimiter(config.rateLimits.enabled) as RateLimiter,
    blobs: createBlobStorage(config),
    metrics,
    wakeJobs: () => {},
    passwordMethods,
  } as AppContext & { jobs: JobRunner };
  // Zulip's missedmessage_hook: a user's last queue taking messages went away.
  eventQueues.onLastMessageQueueGone = (userId, messageIds) =>
    queueReceiverWentIdle(ctx, userId, messageIds).catch((error: unknown) =>
      log.error({ err: error, userId }, "queueing notifications for an idle user failed"),
    );
  ctx.jobs = new JobRunner(ctx);
  registerJobHandlers(ctx.jobs);
  setCamoKey(createHmac("sha256", serverSecret(config.dataDir)).update("camo").digest());
  ctx.wakeJobs = () => ctx.jobs.wake();
  metrics.watch({ eventQueues, events, jobBacklog: () => jobStore.backlog(db.kysely, nowSeconds()), pool: db.poolStats });
  await ensureRetentionJob(ctx);
  return ctx;
}

function noFastifySchemas(): never {
  throw new Error("Fastify JSON schemas are not used: a route checks its parameters with zod (src/http/params.ts)");
}

/** The HTTP application. Never listens: server.ts (and tests) decide where. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    // GET /events is answered in front of Fastify when it can be (http/eventsFastPath.ts).
    serverFactory: serverWithEventsFastPath(ctx, () => app),
    loggerInstance: ctx.log.child({ component: "http" }) as FastifyBaseLogger,
    // Fastify's own request lines would log URLs (and the API keys some carry): ours instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 30 * 1024 * 1024,
    trustProxy: ctx.config.trustedProxies,
    frameworkErrors: (error, _request, reply) => sendErrorEnvelope(reply, error),
    // Parameters are checked by each route's zod schema (http/params.ts): no route gives Fastify a
    // JSON schema, so its ajv and fast-json-stringify compilers are never built (nor loaded: they
    // are left out of the bundle, scripts/build.mjs). A route with one fails to register.
    schemaController: { compilersFactory: { buildValidator: noFastifySchemas, buildSerializer: noFastifySchemas } },
  });
  // Every route is in the route table (http/routes.ts): a module that adds another stops the start.
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      if (!isListedRoute(method, route.url)) throw new Error(`${method} ${route.url} is not in the route table (src/http/routes.ts)`);
    }
  });
  logRequests(app);
  metricsEndpoint(app, ctx);
  await app.register(formbody);
  await app.register(cookie);
  // File parts are cut off one byte past the largest allowed upload, so a too-large file is
  // recognised (and refused with Zulip's message) without reading all of it.
  await withoutFormDataGlobal(async () => {
    await app.register(multipart, {
      attachFieldsToBody: true,
      onFile: multipartFileHandler(ctx.config.dataDir),
      limits: { fileSize: Math.max(25, ctx.config.uploads.maxFileSizeMib) * 1024 * 1024 + 1, fields: 200, parts: 210 },
    });
  });
  removeSpooledFilesAfterResponse(app);
  compressJsonAnswers(app);

  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("X-Frame-Options", "DENY");
    reply.header("X-Content-Type-Options", "nosniff");
    if (request.url.startsWith("/api/")) reply.header("Access-Control-Allow-Origin", "*");
    // While shutting down, answered polls must not keep their connection open (keep-alive
    // would hold app.close() for the keep-alive timeout).
    if (ctx.eventQueues.closing) reply.header("Connection", "close");
    done(null, payload);
  });

  // Several processes: the events a request committed are on the bus before its answer (bus.ts).
  const bus = ctx.bus;
  if (bus) {
    app.addHook("onSend", async (request, _reply, payload) => {
      if (request.method !== "GET" && request.method !== "HEAD") await bus.flushPublished();
      return payload;
    });
  }

  app.setErrorHandler((error, request, reply) => {
    const { status, body, headers } = errorEnvelope(error);
    if (status >= 500 && !ctx.db.health.failed(error)) request.log.error({ err: error }, "request failed");
    reply.status(status).headers(headers).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ result: "error", msg: "Endpoint not found", code: "NOT_FOUND" });
  });

  // server_emoji_data_url of POST /register: public, like Zulip's static file.
  // Built on the first request: an idle server does not hold it.
  let emojiData: string | undefined;
  app.get("/static/generated/emoji/emoji_api.json", async (_request, reply) => {
    emojiData ??= JSON.stringify({ code_to_names: emojiCodeToNames() });
    return reply.header("Content-Type", "application/json").header("Cache-Control", "public, max-age=86400").send(emojiData);
  });

  app.get("/health", async () => {
    await realmStore.list(ctx.db.kysely);
    return { status: "ok" };
  });

  mountRoutes(app, ctx, ROUTES);
  mountRoutes(app, ctx, ROUTES, JSON_SURFACE);
  await app.register(webAppPages, { ctx });
  await app.register(loginPages, { ctx });
  await app.register(accountPages, { ctx });
  await app.register(joinPages, { ctx });
  await app.register(passwordResetPages, { ctx });
  await app.register(organizationSignupPages, { ctx });
  await app.register(emojiFiles, { ctx });
  await app.register(avatarFiles, { ctx });
  await app.register(exportFiles, { ctx });
  await app.register(userUploads, { ctx });
  await app.register(externalContent, { ctx });
  await app.register(videoCallPages, { ctx });
  await app.register(tusUploads, { ctx });
  await app.register(sessionPages, { ctx });
  await app.register(externalAuthPages, { ctx });
  await app.register(twoFactorPages, { ctx });
  await app.register(incomingWebhooks, { ctx });
  await app.register(integrationPages, { ctx });
  await app.register(archivePages, { ctx });
  return app;
}

/**
 * Runs `register` (@fastify/multipart's registration) while the global FormData reads as undefined.
 * The plugin reads it to offer request.formData(), which Parley does not use, and that first read
 * loads Node's whole fetch implementation (undici and its WebAssembly HTTP parser), which an idle
 * server would then hold for the process's life. Without it the plugin makes request.formData()
 * throw instead.
 */
async function withoutFormDataGlobal(register: () => Promise<void>): Promise<void> {
  const formData = Object.getOwnPropertyDescriptor(globalThis, "FormData");
  Object.defineProperty(globalThis, "FormData", { value: undefined, configurable: true, writable: true });
  try {
    await register();
  } finally {
    if (formData) Object.defineProperty(globalThis, "FormData", formData);
  }
}
