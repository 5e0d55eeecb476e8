import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "../config.js";

/**
 * Makes sure the data directory exists and this process can write in it (database, uploads,
 * outbox, saved event queues), so that a wrong path or owner stops the start with a message
 * naming it rather than failing later on the first upload.
 */
export function ensureWritableDataDir(dataDir: string): void {
  const probe = path.join(dataDir, `.write-test-${process.pid}`);
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(probe, "");
    fs.rmSync(probe);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`PARLEY_DATA_DIR: cannot write to ${dataDir} (${reason}); make it a directory this user may write in`);
  }
}
