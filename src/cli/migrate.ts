import { openDb } from "../db/connect.js";
import { migrateToLatest } from "../db/migrate.js";
import { prepareDataDirectory } from "../lib/dataDirectory.js";
import { type Command, print } from "./command.js";

/** `parley migrate`: applies pending migrations (the server also does at start) and names them. */
export const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply the pending database migrations and print their names.",
  options: {},
  async run(config) {
    prepareDataDirectory(config);
    const db = openDb(config.database);
    try {
      const applied = await migrateToLatest(db.kysely, db.dialect);
      if (applied.length === 0) print("The database is up to date: no pending migrations.");
      for (const name of applied) print(`Applied ${name}`);
      return 0;
    } finally {
      await db.close();
    }
  },
};
