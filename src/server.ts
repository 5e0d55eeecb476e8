import type { FastifyInstance } from "fastify";
import { buildApp, createContext } from "./app.js";
import { ensureOrganization } from "./bootstrap.js";
import type { Config } from "./config.js";

/** Starts a server: migrate, first-start setup, HTTP, background jobs. Returns a stopper. */
export async function startServer(config: Config): Promise<{ app: FastifyInstance; stop: () => Promise<void> }> {
  const ctx = await createContext(config);
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
      `Try: curl -u '${credentials.email}:${credentials.apiKey}' ${config.externalUrl}/api/v1/users/me`,
      "",
    ];
    process.stdout.write(lines.join("\n") + "\n");
  }
  ctx.log.info({ url: config.externalUrl, database: config.database.kind, dev: config.dev }, "Parley is listening");
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await ctx.jobs.stop();
      await ctx.db.close();
    })());
  return { app, stop };
}
