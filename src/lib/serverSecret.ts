import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A random key kept in `<dataDir>/server-secret` (made on first use, readable by the owner
 * only), for signing short-lived tokens such as temporary file URLs. Processes that share a data
 * directory share it.
 */
const cache = new Map<string, Buffer>();

export function serverSecret(dataDir: string): Buffer {
  const cached = cache.get(dataDir);
  if (cached) return cached;
  const file = path.join(dataDir, "server-secret");
  let secret: Buffer;
  try {
    secret = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
  } catch {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    secret = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
  }
  if (secret.length < 32) throw new Error(`${file} does not hold a usable secret`);
  cache.set(dataDir, secret);
  return secret;
}
