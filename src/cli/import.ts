import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ImportError, importZulipArchive } from "../actions/import/zulip.js";
import { ImportArchiveError, type ZulipArchive, exportRoot, extractArchive, readZulipArchive } from "../lib/import/zulipArchive.js";
import { type Command, CliError, print, stringOption, usageError } from "./command.js";
import { withContext } from "./context.js";
import { importProgress } from "./progress.js";
import { importSlack } from "./importSlack.js";
import { bulkJobDatabase } from "../db/dialect.js";

/**
 * `parley import zulip <export.tar.gz | directory> [--string-id ID] [--batch-size N]`: an
 * organization from an export in the layout of Zulip's `manage.py export` (also what `parley
 * export` writes), as a new organization of this server (actions/import/zulip.ts). The archive
 * is checked completely first; the organization stays deactivated until the import completes;
 * running the same command again after an interruption continues the import.
 */
const KINDS = ["zulip", "slack"];

export const importCommand: Command = {
  name: "import",
  summary: "Import an organization from a Zulip export (.tar.gz or directory) or a Slack export (.zip); re-run to continue an interrupted import.",
  positionals: "zulip <export.tar.gz | directory> | slack <export.zip>",
  options: {
    "string-id": { type: "string", value: "ID", help: "the new organization's string id (default: the export's)" },
    "batch-size": { type: "string", value: "N", help: "messages (and reactions, uploads) per transaction (default 5000)" },
    name: { type: "string", value: "NAME", help: "slack: the new organization's name (default: its string id)" },
  },
  async run(config, args) {
    const [kind, input, ...extra] = args.positionals;
    if (kind === undefined || !KINDS.includes(kind)) throw usageError(`the first argument is the kind of export: ${KINDS.join(", ")}`);
    if (input === undefined || extra.length > 0) throw usageError("give one export: a .tar.gz file or a directory");
    const batchText = stringOption(args, "batch-size");
    const batchSize = batchText === undefined ? 5000 : Number(batchText);
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 100_000) throw usageError(`invalid --batch-size "${batchText}": use 1 to 100000`);
    const source = path.resolve(input);
    if (!fs.existsSync(source)) throw new CliError(`no such file or directory: ${source}`);
    const failAfter = process.env.PARLEY_IMPORT_TEST_FAIL_AFTER_BATCHES;
    if (kind === "slack")
      return importSlack(config, source, { stringId: stringOption(args, "string-id"), name: stringOption(args, "name"), batchSize, failAfter });

    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-import-"));
    try {
      let archive: ZulipArchive;
      try {
        let root: string;
        if (fs.statSync(source).isDirectory()) root = exportRoot(source);
        else {
          print(`Reading ${source}…`);
          await extractArchive(source, workDir);
          root = exportRoot(workDir);
        }
        print("Checking the export…");
        archive = await readZulipArchive(root, print);
      } catch (error) {
        if (error instanceof ImportArchiveError) throw new CliError(`cannot import: ${error.message}. Nothing was imported.`);
        throw error;
      }
      print(
        `The export holds ${archive.realm.zerver_userprofile?.length ?? 0} users, ${archive.realm.zerver_stream?.length ?? 0} channels, ${archive.messageCount} messages, ${archive.attachmentCount} uploads.`,
      );
      // SQLite: synchronous=NORMAL for the import's connection (WAL stays consistent; a power cut
      // may lose the last committed batches, and the import's state row with them, so running
      // the command again redoes them). Saves an fsync per batch.
      const importConfig = { ...config, database: bulkJobDatabase(config.database) };
      return await withContext(importConfig, async (ctx) => {
        const started = Date.now();
        const progress = importProgress();
        let report;
        try {
          report = await importZulipArchive(ctx, archive, {
            stringId: stringOption(args, "string-id"),
            batchSize,
            progress,
            failAfterBatches: failAfter === undefined ? undefined : Number(failAfter),
          });
        } catch (error) {
          if (error instanceof ImportError) throw new CliError(`cannot import: ${error.message}`);
          throw error;
        } finally {
          progress.stop();
        }
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        print(
          `Imported organization "${report.stringId}" (id ${report.realmId})${report.resumed ? ", continuing an interrupted import," : ""} in ${seconds}s:`,
        );
        for (const [what, count] of Object.entries(report.imported)) print(`  ${what}: ${count}`);
        if (report.skipped.length > 0) print("Not imported:");
        for (const s of report.skipped) print(`  ${s.what}${s.count > 0 ? ` (${s.count})` : ""}: ${s.why}`);
        return 0;
      });
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  },
};
