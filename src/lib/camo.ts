import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Zulip's camo-compatible media proxy URLs (zerver/lib/camo.py with CAMO_URI
 * "/external_content/"): an external image or video in a message is shown through this server,
 * so readers' addresses never reach third-party hosts. The path carries the URL in hex and an
 * HMAC-SHA1 of it under a per-installation key, so the proxy fetches only URLs this server wrote.
 */
const CAMO_PREFIX = "/external_content/";

let camoKey: Buffer | null = null;

/** Set once at start (createContext) from the installation's secret; without it URLs stay as they are. */
export function setCamoKey(key: Buffer): void {
  camoKey = key;
}

function digestOf(key: Buffer, url: string): string {
  return createHmac("sha1", key).update(url, "utf8").digest("hex");
}

/** The proxied form of an external URL. */
export function camoUrl(url: string): string {
  if (!camoKey) return url;
  return `${CAMO_PREFIX}${digestOf(camoKey, url)}/${Buffer.from(url, "utf8").toString("hex")}`;
}

/** The URL a proxy path names, or null when its digest is not ours (compared in constant time). */
export function urlFromCamoPath(digest: string, hex: string): string | null {
  if (!camoKey || !/^[0-9a-f]{40}$/.test(digest) || !/^(?:[0-9a-f]{2})+$/.test(hex)) return null;
  const url = Buffer.from(hex, "hex").toString("utf8");
  const expected = Buffer.from(digestOf(camoKey, url), "hex");
  const given = Buffer.from(digest, "hex");
  return expected.length === given.length && timingSafeEqual(expected, given) ? url : null;
}
