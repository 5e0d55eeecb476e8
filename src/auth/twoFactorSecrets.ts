import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../appContext.js";
import { serverSecret } from "../lib/serverSecret.js";

/**
 * What two-factor authentication keeps, kept so that a database dump alone gives nothing away:
 * TOTP keys are encrypted (AES-256-GCM, bound to their user) and backup codes stored as keyed
 * hashes, both with keys derived from the server secret (`<data dir>/server-secret`, outside the
 * database). Losing that file makes the stored devices useless: their users sign in with a
 * password again only after an administrator removes them (docs/authentication.md).
 */

const VERSION = "v1";

function derivedKey(ctx: AppContext, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", serverSecret(ctx.config.dataDir), Buffer.alloc(0), `parley two-factor ${purpose}`, 32));
}

/** The TOTP key, encrypted for the user's row. */
export function sealSecret(ctx: AppContext, userId: number, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", derivedKey(ctx, "totp key"), iv);
  cipher.setAAD(Buffer.from(String(userId)));
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64url")}`;
}

/** The TOTP key of the row; null when it cannot be opened (another server secret, another user's row). */
export function openSecret(ctx: AppContext, userId: number, sealed: string): string | null {
  const [version, body] = sealed.split(".");
  if (version !== VERSION || !body) return null;
  const raw = Buffer.from(body, "base64url");
  try {
    const decipher = createDecipheriv("aes-256-gcm", derivedKey(ctx, "totp key"), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(String(userId)));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** Lowercase letters and digits without 0/o and 1/l: 32 symbols, 5 bits each. */
const BACKUP_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
export const BACKUP_CODE_COUNT = 10;
const BACKUP_CODE_LENGTH = 10;

/** Ten fresh backup codes of 50 random bits, written `xxxxx-xxxxx`. */
export function newBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, () => {
    let code = "";
    for (let i = 0; i < BACKUP_CODE_LENGTH; i++) code += BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** A typed backup code as stored: case, spaces and dashes do not matter; null if it cannot be one. */
export function normalBackupCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]/g, "");
  return code.length === BACKUP_CODE_LENGTH && [...code].every((c) => BACKUP_ALPHABET.includes(c)) ? code : null;
}

/** The keyed hash of a backup code (normalized), for the user. */
export function backupCodeHash(ctx: AppContext, userId: number, code: string): string {
  return createHmac("sha256", derivedKey(ctx, "backup codes"))
    .update(`${userId}:${normalBackupCode(code) ?? ""}`)
    .digest("hex");
}

/** The list of stored hashes without the one matching `hash` (compared in constant time); null if none matches. */
export function withoutBackupCode(hashes: readonly string[], hash: string): string[] | null {
  const wanted = Buffer.from(hash, "hex");
  let found = -1;
  hashes.forEach((stored, i) => {
    const candidate = Buffer.from(stored, "hex");
    if (candidate.length === wanted.length && timingSafeEqual(candidate, wanted)) found = i;
  });
  return found < 0 ? null : hashes.filter((_, i) => i !== found);
}
