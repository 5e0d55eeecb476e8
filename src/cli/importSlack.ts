import path from "node:path";
import { SlackImportError, importSlackArchive } from "../actions/import/slack.js";
import type { Config } from "../config.js";
import { type SlackArchive, SlackArchiveError, closeSlackArchive, readSlackArchive } from "../lib/import/slackArchive.js";
import { CliError, print, usageError } from "./command.js";
import { withContext } from "./context.js";
import { importProgress } from "./progress.js";

/**
 * `parley import slack <export.zip> [--string-id ID] [--name NAME] [--batch-size N]`: a Slack
 * workspace export as a new organization (actions/import/slack.ts). The zip is read in place
 * and checked completely first; the organization stays deactivated until the import completes;
 * running the same command again after an interruption continues the import.
 */
export interface SlackCliOptions {
  stringId: string | undefined;
  name: string | undefined;
  batchSize: number;
  failAfter: string | undefined;
}

/** The default string id: the zip's name ("Acme Slack export.zip" → "acme-slack-export"). */
function defaultStringId(file: string): string {
  const id = path
    .basename(file, path.extname(file))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return id.length >= 3 ? id : "slack";
}

export async function importSlack(config: Config, source: string, options: SlackCliOptions): Promise<number> {
  const stringId = options.stringId ?? defaultStringId(source);
  if (!/^[a-z0-9-]{3,40}$/.test(stringId) || stringId.startsWith("-") || stringId.endsWith("-"))
    throw usageError(`invalid --string-id "${stringId}": use 3 to 40 lowercase letters, digits and '-'`);
  const name = options.name?.trim();
  if (name !== undefined && (name.length === 0 || name.length > 40)) throw usageError("invalid --name: an organization name has 1 to 40 characters");
  let archive: SlackArchive;
  try {
    print(`Reading ${source}…`);
    archive = await readSlackArchive(source);
  } catch (error) {
    if (error instanceof SlackArchiveError) throw new CliError(`cannot import: ${error.message}. Nothing was imported.`);
    throw error;
  }
  try {
    print(
      `The export holds ${archive.users.length} users, ${archive.channels.filter((c) => !c.is_private).length} public and ${archive.channels.filter((c) => c.is_private).length} private channels, ${archive.conversations.length} direct-message conversations, ${archive.messageCount} messages in ${archive.days.length} days, ${archive.uploads.size} files.`,
    );
    return await withContext(config, async (ctx) => {
      const started = Date.now();
      const progress = importProgress();
      let report;
      try {
        report = await importSlackArchive(ctx, archive, {
          stringId,
          name,
          batchSize: options.batchSize,
          progress,
          failAfterBatches: options.failAfter === undefined ? undefined : Number(options.failAfter),
        });
      } catch (error) {
        if (error instanceof SlackImportError || error instanceof SlackArchiveError) throw new CliError(`cannot import: ${error.message}`);
        throw error;
      } finally {
        progress.stop();
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      print(`Imported organization "${report.stringId}" (id ${report.realmId})${report.resumed ? ", continuing an interrupted import," : ""} in ${seconds}s:`);
      for (const [what, count] of Object.entries(report.imported)) print(`  ${what}: ${count}`);
      print("Not imported:");
      for (const s of report.skipped) print(`  ${s.what}${s.count > 0 ? ` (${s.count})` : ""}: ${s.why}`);
      return 0;
    });
  } finally {
    closeSlackArchive(archive);
  }
}
