import crypto from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const API_KEY_LENGTH = 32;

/** 32 characters of [A-Za-z0-9] (~190 bits), the shape Zulip's mobile login flow expects. */
export function generateApiKey(): string {
  return randomString(API_KEY_LENGTH);
}

/** Uniform random text over [A-Za-z0-9] (rejection sampling, no modulo bias). */
export function randomString(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function isWellFormedApiKey(key: string): boolean {
  return key.length === API_KEY_LENGTH && /^[A-Za-z0-9]+$/.test(key);
}

/** Constant-time comparison of two API keys. */
export function apiKeysEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}
