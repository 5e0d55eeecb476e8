import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeRealmExport } from "../lib/export/realmExport.js";
import { ExportType, type ExportTypeCode } from "../models/realmExport.js";
import { type Command, CliError, print, stringOption, usageError } from "./command.js";
import { resolveRealm, withContext } from "./context.js";

/**
 * `parley export [--output FILE] [--type full|consent|public] [--realm STRING_ID]`: an
 * organization's data export, the same tarball as POST /export/realm makes (lib/export/), in the
 * layout of Zulip's `manage.py export`. Made while the server runs; no limits apply.
 */
const TYPES: Record<string, ExportTypeCode> = {
  full: ExportType.FULL_WITHOUT_CONSENT,
  consent: ExportType.FULL_WITH_CONSENT,
  public: ExportType.PUBLIC,
};

export const exportCommand: Command = {
  name: "export",
  summary: "Export an organization's data into a .tar.gz in the layout of Zulip's `manage.py export`.",
  options: {
    output: { type: "string", value: "FILE", help: "the tarball to write (default: ./zulip-export-<organization>-<time>.tar.gz)" },
    type: { type: "string", value: "TYPE", help: "full (everything, the default), consent (public data plus that of users who allow it) or public" },
    realm: { type: "string", value: "STRING_ID", help: "the organization (default: the only one)" },
  },
  async run(config, args) {
    const typeName = stringOption(args, "type") ?? "full";
    const type = TYPES[typeName];
    if (type === undefined) throw usageError(`invalid --type "${typeName}": use one of ${Object.keys(TYPES).join(", ")}`);
    return withContext(config, async (ctx) => {
      const realm = await resolveRealm(ctx, stringOption(args, "realm"));
      const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
      const output = path.resolve(stringOption(args, "output") ?? `zulip-export-${realm.string_id || "root"}-${stamp}.tar.gz`);
      if (fs.existsSync(output)) throw new CliError(`${output} exists already: choose a new file name`);
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-export-"));
      const partial = `${output}.partial`;
      try {
        fs.mkdirSync(path.dirname(output), { recursive: true });
        const stats = await writeRealmExport({ q: ctx.db.kysely, blobs: ctx.blobs, dataDir: config.dataDir }, realm.id, type, partial, workDir);
        fs.renameSync(partial, output);
        const messages = Object.entries(stats)
          .filter(([name]) => name.startsWith("messages-"))
          .reduce((sum, [, tables]) => sum + ((tables as Record<string, number>).zerver_message ?? 0), 0);
        print(`Exported organization "${realm.string_id}" (${typeName}: ${messages} messages) to ${output}`);
        return 0;
      } finally {
        fs.rmSync(workDir, { recursive: true, force: true });
        fs.rmSync(partial, { force: true });
      }
    });
  },
};
