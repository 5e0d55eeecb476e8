import { type Command, CliError, commandHelp, parseCommandArgs, print } from "./cli/command.js";
import { backupCommand, restoreCommand } from "./cli/backup.js";
import { emailsCommand } from "./cli/emails.js";
import { exportCommand } from "./cli/export.js";
import { importCommand } from "./cli/import.js";
import { jobsCommand } from "./cli/jobs.js";
import { ldapSyncCommand } from "./cli/ldapSync.js";
import { migrateCommand } from "./cli/migrate.js";
import { createOrganizationCommand, deactivateOrganizationCommand, reactivateOrganizationCommand, setOrganizationLimitsCommand } from "./cli/organizations.js";
import { serveCommand } from "./cli/serve.js";
import { apiKeyCommand, changeRoleCommand, createUserCommand, resetPasswordCommand } from "./cli/users.js";
import { ConfigError, loadConfig } from "./config.js";
import { NewerDatabaseError } from "./db/migrate.js";

/**
 * `parley <command> [options]`: the command line (`npx parley`, `npm run parley --`). `serve` is
 * the default. Exit codes: 0 done, 1 the request failed (unknown user, duplicate email, ...),
 * 2 the command line is wrong (unknown command or option, missing or invalid value).
 */
const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  createOrganizationCommand,
  deactivateOrganizationCommand,
  reactivateOrganizationCommand,
  setOrganizationLimitsCommand,
  createUserCommand,
  changeRoleCommand,
  apiKeyCommand,
  resetPasswordCommand,
  emailsCommand,
  jobsCommand,
  backupCommand,
  restoreCommand,
  exportCommand,
  importCommand,
  ldapSyncCommand,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Usage: parley <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "`parley <command> --help` lists a command's options.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name = "serve", ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    const command = COMMANDS.find((c) => c.name === rest[0]);
    print(command ? commandHelp(command) : overview());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new CliError(`unknown command "${name}"\n\n${overview()}`, 2);
  const args = parseCommandArgs(command, rest);
  if (args === null) return 0;
  return command.run(loadConfig(), args);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    if (error instanceof CliError) process.stderr.write(`parley: ${error.message}\n`);
    else if (error instanceof ConfigError || error instanceof NewerDatabaseError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`parley: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(error instanceof CliError ? error.exitCode : 1);
  },
);
