import type { FastifyInstance } from "fastify";
import { buildApp, createContext } from "./app.js";
import { ensureOrganization } from "./bootstrap.js";
import type { Config } from "./config.js";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "./models/version.js";

/** Starts a server: migrate, first-start setup, HTTP, background jobs. Returns a stopper. */
export async function startServer(config: Config): Promise<{ app: FastifyInstance; stop: () => Promise<void> }> {
  const ctx = await createContext(config);
  const restoredQueues = await ctx.eventQueues.restore(ctx.db.kysely);
  ctx.eventQueues.announceRestart({
    type: "restart",
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    server_generation: Math.floor(Date.now() / 1000),
  });
  const credentials = await ensureOrganization(ctx);
  const app = await buildApp(ctx);
  await app.listen({ host: config.host, port: config.port });
  ctx.jobs.start();
  if (credentials) {
    const lines = [
      "",
      `Created the organization "${credentials.realmName}" and its owner. Save these; they are not shown again:`,
      `  email:    ${credentials.email}`,
      ...(credentials.generatedPassword ? [`  password: ${credentials.generatedPassword}`] : []),
      `  API key:  ${credentials.apiKey}`,
      `Open ${config.externalUrl}/ in a browser and log in with this email and password.`,
      `Try: curl -u '${credentials.email}:${credentials.apiKey}' ${config.externalUrl}/api/v1/users/me`,
      "",
    ];
    process.stdout.write(lines.join("\n") + "\n");
  }
  ctx.log.info({ url: config.externalUrl, database: config.database.kind, dev: config.dev, restoredQueues }, "Parley is listening");
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Event queues outlive a graceful restart: polls are answered, then queues are saved last.
      ctx.eventQueues.close();
      await app.close();
      await ctx.jobs.stop();
      ctx.eventQueues.detach();
      const savedQueues = await ctx.eventQueues.save(ctx.db.kysely);
      ctx.log.info({ savedQueues }, "Parley stopped");
      await ctx.db.close();
    })());
  return { app, stop };
}
