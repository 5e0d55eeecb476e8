import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp, createContext } from "./app.js";
import { type FirstStartCredentials, ensureOrganization } from "./bootstrap.js";
import { serveMetrics } from "./http/metrics.js";
import { startEmailGateway } from "./http/emailGateway.js";
import { type Config, ConfigError } from "./config.js";
import { ensureWritableDataDir } from "./lib/dataDir.js";
import { exposedDataFiles, prepareDataDirectory } from "./lib/dataDirectory.js";
import { acquireServerLock } from "./lib/serverLock.js";

/** How long a graceful stop waits for open connections before it closes them. */
const STOP_CONNECTIONS_GRACE_MS = 10_000;
import { SERVER_GENERATION, ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "./models/version.js";

/** In the data directory: the first start's generated password, when not shown on a terminal. */
export const FIRST_START_PASSWORD_FILE = "first-start-password";

/** Starts a server: migrate, first-start setup, HTTP, background jobs. Returns a stopper. */
export async function startServer(config: Config): Promise<{ app: FastifyInstance; stop: () => Promise<void> }> {
  // The lock is a file beside the database: taken once their directory exists, before anything is written.
  ensureWritableDataDir(config.dataDir);
  prepareDataDirectory(config);
  const releaseLock = acquireServerLock(config.database);
  let ctx: Awaited<ReturnType<typeof createContext>>;
  try {
    // A first start creates the organization and shows its owner's password once: not when it cannot listen.
    await canListenEverywhere(config);
    ctx = await createContext(config);
  } catch (error) {
    releaseLock();
    throw error;
  }
  for (const file of exposedDataFiles(config)) {
    ctx.log.warn(file, "Other users of this machine can read or write this data file: chmod go-rwx it (directories 700, files 600)");
  }
  // Several processes (PARLEY_BUS_URL) save queues only with a lasting PARLEY_PROCESS_ID: a queue id
  // names the process that holds it (else its clients register again, through any other process).
  const keepsQueues = !ctx.bus || ctx.bus.keepsQueues;
  const restored = keepsQueues ? await ctx.eventQueues.restore(ctx.db.kysely) : { count: 0, bus: null };
  const restoredQueues = restored.count;
  const replayedEvents = (await ctx.bus?.resumeAfterRestore(restored.bus)) ?? 0;
  ctx.eventQueues.announceRestart({
    type: "restart",
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    server_generation: SERVER_GENERATION,
  });
  const credentials = await ensureOrganization(ctx);
  const app = await buildApp(ctx);
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | null = null;
  let emailGateway: Awaited<ReturnType<typeof startEmailGateway>> | null = null;
  try {
    await listening("PARLEY_HOST/PARLEY_PORT", config.host, config.port, () => app.listen({ host: config.host, port: config.port }));
    const metricsPort = config.metrics.port;
    if (metricsPort !== undefined)
      metricsServer = await listening("PARLEY_METRICS_HOST/PARLEY_METRICS_PORT", config.metrics.host, metricsPort, () =>
        serveMetrics(ctx.metrics, config.metrics.host, metricsPort),
      );
    const gatewaySettings = config.emailGateway;
    if (gatewaySettings)
      emailGateway = await listening("PARLEY_EMAIL_GATEWAY_HOST/PARLEY_EMAIL_GATEWAY_PORT", gatewaySettings.host, gatewaySettings.port, () =>
        startEmailGateway(ctx, gatewaySettings),
      );
  } catch (error) {
    // Taken since canListenEverywhere looked: the organization exists now, its password was never shown.
    if (credentials?.generatedPassword && error instanceof ConfigError)
      throw new ConfigError(
        `${error.message}. This start created the organization and its owner ${credentials.email}: once the server runs, ` +
          `give the owner a password with \`parley reset-password --email ${credentials.email}\``,
      );
    throw error;
  }
  ctx.jobs.start();
  if (credentials) process.stdout.write(firstStartLines(config, credentials).join("\n") + "\n");
  ctx.log.info({ url: config.externalUrl, database: config.database.kind, dev: config.dev, restoredQueues, replayedEvents }, "Parley is listening");
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Event queues outlive a graceful restart: polls are answered, then queues are saved last.
      ctx.eventQueues.close();
      // Answered polls and requests finish first; a client that keeps its connection open after
      // that (a keep-alive socket it never reads to the end) does not hold the stop.
      const force = setTimeout(() => app.server.closeAllConnections(), STOP_CONNECTIONS_GRACE_MS);
      await app.close();
      clearTimeout(force);
      metricsServer?.closeAllConnections();
      await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
      await emailGateway?.close();
      await ctx.jobs.stop();
      const busPosition = keepsQueues ? await ctx.bus?.stopForSave() : undefined;
      ctx.eventQueues.detach();
      const savedQueues = !ctx.bus || busPosition ? await ctx.eventQueues.save(ctx.db.kysely, busPosition ?? undefined) : 0;
      await ctx.bus?.close();
      ctx.log.info({ savedQueues }, "Parley stopped");
      await ctx.db.close();
      releaseLock();
    })());
  return { app, stop };
}

/**
 * Binds each address the server will listen on, and lets it go at once: an address in use (another
 * server, an earlier Parley still running) stops the start before anything is created.
 */
async function canListenEverywhere(config: Config): Promise<void> {
  const addresses: Array<[string, string, number | undefined]> = [
    ["PARLEY_HOST/PARLEY_PORT", config.host, config.port],
    ["PARLEY_METRICS_HOST/PARLEY_METRICS_PORT", config.metrics.host, config.metrics.port],
    ["PARLEY_EMAIL_GATEWAY_HOST/PARLEY_EMAIL_GATEWAY_PORT", config.emailGateway?.host ?? "", config.emailGateway?.port],
  ];
  for (const [settings, host, port] of addresses) {
    if (!port) continue;
    await listening(settings, host, port, async () => {
      const probe = net.createServer();
      await new Promise<void>((resolve, reject) => {
        probe.once("error", reject);
        probe.listen({ host, port }, resolve);
      });
      await new Promise((resolve) => probe.close(resolve));
    });
  }
}

/** Runs `listen`; an address in use or not available stops the start naming the settings. */
async function listening<T>(settings: string, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new ConfigError(`${settings}: ${host}:${port} is in use by another process`);
    if (code === "EADDRNOTAVAIL" || code === "EACCES") throw new ConfigError(`${settings}: cannot listen on ${host}:${port} (${code})`);
    throw error;
  }
}

/**
 * What a first start prints. On a terminal: the owner's email, password and API key. Otherwise (a
 * service manager's journal, a container log, which others may read and which are kept) neither
 * secret: the password goes to a file (showGeneratedPassword), the API key is for the owner to
 * look up.
 */
function firstStartLines(config: Config, credentials: FirstStartCredentials): string[] {
  const terminal = process.stdout.isTTY === true;
  return [
    "",
    `Created the organization "${credentials.realmName}" and its owner. Save these; they are not shown again:`,
    `  email:    ${credentials.email}`,
    ...(credentials.generatedPassword ? [`  password: ${showGeneratedPassword(config.dataDir, credentials.generatedPassword)}`] : []),
    ...(terminal ? [`  API key:  ${credentials.apiKey}`] : []),
    `Open ${config.externalUrl}/ in a browser and log in with this email and password.`,
    terminal
      ? `Try: curl -u '${credentials.email}:${credentials.apiKey}' ${config.externalUrl}/api/v1/users/me`
      : `The owner's API key is not shown here (standard output is not a terminal): \`parley api-key --email ${credentials.email}\` prints it.`,
    "",
  ];
}

/**
 * The generated password goes to the terminal; when standard output is not one (a service
 * manager's journal, a container log), it goes to a file only this user may read instead, and
 * the output says where.
 */
function showGeneratedPassword(dataDir: string, password: string): string {
  if (process.stdout.isTTY) return password;
  const file = path.join(dataDir, FIRST_START_PASSWORD_FILE);
  fs.writeFileSync(file, password + "\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return `written to ${file} (readable by this user only; delete it once saved)`;
}
