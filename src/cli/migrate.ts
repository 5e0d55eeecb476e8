import { openMigratedDb } from "../db/migrate.js";
import { ensureWritableDataDir } from "../lib/dataDir.js";
import { prepareDataDirectory } from "../lib/dataDirectory.js";
import { type Command, print } from "./command.js";

/** `parley migrate`: applies pending migrations (the server also does at start) and names them. */
export const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply the pending database migrations and print their names.",
  options: {},
  async run(config) {
    ensureWritableDataDir(config.dataDir);
    prepareDataDirectory(config);
    const db = await openMigratedDb(config, {
      onApplied(applied) {
        if (applied.length === 0) print("The database is up to date: no pending migrations.");
        for (const name of applied) print(`Applied ${name}`);
      },
    });
    await db.close();
    return 0;
  },
};
