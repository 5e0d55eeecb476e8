import { ConfigError, loadConfig } from "./config.js";
import { startServer } from "./server.js";

/** `parley <command>`: the command line. `serve` is the default. */
async function main(argv: string[]): Promise<number> {
  const [command = "serve"] = argv;
  const config = loadConfig();
  switch (command) {
    case "serve": {
      const server = await startServer(config);
      const shutdown = () => {
        void server.stop().then(() => process.exit(0));
      };
      process.once("SIGINT", shutdown);
      process.once("SIGTERM", shutdown);
      return -1;
    }
    default:
      process.stderr.write(`parley: unknown command "${command}"\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`parley: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
