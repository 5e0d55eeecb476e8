import { listOutbox, outboxDir, readOutboxEmail } from "../email/outbox.js";
import { type Command, CliError, print, stringOption, usageError } from "./command.js";

/** `parley emails [--limit N]` lists the outbox; `parley emails show FILE` prints one email. */
export const emailsCommand: Command = {
  name: "emails",
  summary: "List the emails in the outbox folder (where emails go when PARLEY_SMTP_URL is not set), or print one.",
  positionals: "[show FILE]",
  options: {
    limit: { type: "string", value: "N", help: "list the N newest emails (default 20)" },
  },
  async run(config, args) {
    const dir = outboxDir(config.dataDir);
    if (config.smtpUrl) process.stderr.write("Note: PARLEY_SMTP_URL is set, so new emails go to the SMTP server, not to the outbox.\n");
    const [action, file, ...rest] = args.positionals;
    if (action === "show") {
      if (!file || rest.length > 0) throw usageError("usage: parley emails show FILE");
      const raw = await readOutboxEmail(dir, file);
      if (raw === null) throw new CliError(`no email "${file}" in the outbox (${dir})`);
      process.stdout.write(raw.endsWith("\n") ? raw : `${raw}\n`);
      return 0;
    }
    if (action !== undefined) throw usageError(`unknown argument "${action}": use \`parley emails\` or \`parley emails show FILE\``);

    const limitText = stringOption(args, "limit") ?? "20";
    const limit = Number(limitText);
    if (!/^\d+$/.test(limitText) || limit < 1) throw usageError(`invalid --limit "${limitText}": use a positive whole number`);
    const entries = await listOutbox(dir, limit);
    if (entries.length === 0) {
      print(`The outbox is empty (${dir}).`);
      return 0;
    }
    const rows = [["TIME", "TO", "SUBJECT", "FILE"], ...entries.map((e) => [e.time, e.to, e.subject, e.file])];
    const widths = [0, 1, 2].map((i) => Math.min(60, Math.max(...rows.map((r) => (r[i] ?? "").length))));
    for (const row of rows) print(row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell)).join("  "));
    return 0;
  },
};
