import { startServer } from "../server.js";
import { collectStartupGarbage } from "../util/startupGarbage.js";
import type { Command } from "./command.js";

/**
 * `parley serve` (the default command): runs until SIGINT or SIGTERM, then stops gracefully (polls
 * answered, event queues saved). A second signal while stopping exits at once.
 */
export const serveCommand: Command = {
  name: "serve",
  summary: "Run the server (the default command). Configuration comes from PARLEY_* environment variables.",
  options: {},
  async run(config) {
    const server = await startServer(config);
    collectStartupGarbage();
    let stopping = false;
    const shutdown = () => {
      if (stopping) process.exit(1);
      stopping = true;
      void server.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          server.app.log.error({ err: error }, "stopping Parley failed");
          process.exit(1);
        },
      );
    };
    process.on("SIGINT", shutdown);
    process.on("SIGTERM", shutdown);
    return -1;
  },
};
