import { startServer } from "../server.js";
import type { Command } from "./command.js";

/** `parley serve` (the default command): runs until SIGINT or SIGTERM. */
export const serveCommand: Command = {
  name: "serve",
  summary: "Run the server (the default command). Configuration comes from PARLEY_* environment variables.",
  options: {},
  async run(config) {
    const server = await startServer(config);
    const shutdown = () => {
      void server.stop().then(() => process.exit(0));
    };
    process.once("SIGINT", shutdown);
    process.once("SIGTERM", shutdown);
    return -1;
  },
};
