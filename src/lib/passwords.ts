import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * Passwords are hashed with scrypt (memory-hard). Production cost: N=2^17, r=8, p=1 (128 MiB,
 * OWASP's minimum for scrypt). The parameters are stored with the hash, so old hashes still
 * verify, and a login with a hash below the current cost stores a new one (needsRehash). Test
 * suites may use N=2^10 (PARLEY_INSECURE_FAST_HASHING).
 */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;

/**
 * Zulip's PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH and PASSWORD_MIN_GUESSES: its development
 * settings (PARLEY_DEV=1 here) set the minimums to 0, so any password up to the maximum is
 * accepted (Zulip's API examples create a user with the password "temp").
 */
export function passwordRules(dev: boolean): { minLength: number; maxLength: number; minGuesses: number } {
  return dev
    ? { minLength: 0, maxLength: PASSWORD_MAX_LENGTH, minGuesses: 0 }
    : { minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, minGuesses: 10000 };
}

/** Zulip's check_password_strength on length: counted in characters (code points). */
export function passwordLengthAllowed(password: string, dev: boolean): boolean {
  const { minLength, maxLength } = passwordRules(dev);
  const length = [...password].length;
  return length >= minLength && length <= maxLength;
}

const PRODUCTION = { N: 2 ** 17, r: 8, p: 1 };
const FAST_FOR_TESTS = { N: 2 ** 10, r: 8, p: 1 };
const KEY_LENGTH = 32;

export async function hashPassword(password: string, fast = false): Promise<string> {
  const params = fast ? FAST_FOR_TESTS : PRODUCTION;
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...params, maxmem: 128 * params.N * params.r * 2 });
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const [scheme, n, r, pp, saltB64, keyB64] = stored.split("$");
  if (scheme !== "scrypt" || saltB64 === undefined || !keyB64) return false;
  const expected = Buffer.from(keyB64, "base64");
  const N = Number(n);
  const params = { N, r: Number(r), p: Number(pp), maxmem: 128 * N * Number(r) * 2 };
  const actual = await scrypt(password.normalize("NFKC"), Buffer.from(saltB64, "base64"), expected.length, params);
  return crypto.timingSafeEqual(actual, expected);
}

/** Whether a hash that verified should be replaced: its cost is below what hashPassword uses now. */
export function needsRehash(stored: string, fast = false): boolean {
  const target = fast ? FAST_FOR_TESTS : PRODUCTION;
  const [scheme, n, r, pp, , keyB64] = stored.split("$");
  if (scheme !== "scrypt" || !keyB64) return true;
  return Number(n) < target.N || Number(r) < target.r || Number(pp) < target.p || Buffer.from(keyB64, "base64").length < KEY_LENGTH;
}

/** A random password for first-start owners and CLI-created users. */
export function generatePassword(): string {
  return crypto.randomBytes(15).toString("base64url");
}
