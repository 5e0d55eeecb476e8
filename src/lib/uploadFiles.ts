import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import type mime from "mime-types";
import { lazyRequire } from "../util/lazy.js";
import { group } from "../util/defined.js";

/** Loaded when a file's type is first guessed from its name. */
const loadMime = lazyRequire<typeof mime>("mime-types");

/**
 * Names, paths and content rules for uploaded files (SECURITY.md, "Uploads"):
 * - a path_id is `<realm_id>/<2 hex>/<24 base64url chars = 144 random bits>/<sanitised name>`;
 * - the URL is `/user_uploads/<path_id>` with the name percent-encoded;
 * - files are shown inline only for a short allow-list of types; everything else, and anything
 *   that could run script (HTML, SVG, XML), is a download.
 */

const PATH_ID = /^(\d{1,15})\/([0-9a-f]{2})\/([A-Za-z0-9_-]{24})\/([^/\\\u0000]{1,255})$/;

/** The name as the user gave it, without directories or control characters; "uploaded-file" when nothing is left. */
export function displayFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? "";
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "uploaded-file" : cleaned.slice(0, 255);
}

/**
 * Zulip's sanitize_name: the name safe for a file system, a bucket key and a URL. Letters,
 * digits, "_", "." and "-" stay; runs of spaces and dashes become one "-".
 */
export function sanitizeFileName(raw: string): string {
  let name = displayFileName(raw).normalize("NFKC");
  name = name.replace(/[^\p{L}\p{N}_\s.-]/gu, "").trim();
  name = name.replace(/[-\s]+/g, "-");
  if (name === "" || /^\.+$/.test(name)) return "uploaded-file";
  if (name.length > 200) {
    const ext = path.extname(name).slice(0, 20);
    name = name.slice(0, 200 - ext.length) + ext;
  }
  return name;
}

export function newPathId(realmId: number, fileName: string): string {
  const bucket = randomBytes(1).toString("hex");
  const random = randomBytes(18).toString("base64url");
  return `${realmId}/${bucket}/${random}/${sanitizeFileName(fileName)}`;
}

/**
 * A path_id of this module's form for an imported upload whose path_id is not (Zulip makes the
 * second part 1 or 2 hex digits; old servers other forms): derived from the old one, so that an
 * interrupted import that runs again derives the same.
 */
export function importedPathId(realmId: number, oldPathId: string): string {
  const digest = createHash("sha256").update(oldPathId).digest();
  const fileName = sanitizeFileName(oldPathId.slice(oldPathId.lastIndexOf("/") + 1));
  return `${realmId}/${digest.subarray(0, 1).toString("hex")}/${digest.subarray(1, 19).toString("base64url")}/${fileName}`;
}

/** The path_id's parts, or undefined for anything this module never makes. */
export function parsePathId(pathId: string): { realmId: number; fileName: string } | undefined {
  const match = PATH_ID.exec(pathId);
  if (!match) return undefined;
  const fileName = group(match, 4);
  if (fileName === "." || fileName === "..") return undefined;
  return { realmId: Number(match[1]), fileName };
}

export function uploadUrl(pathId: string): string {
  return `/user_uploads/${pathId.split("/").map(encodeURIComponent).join("/")}`;
}

/** The path_id a link names, with its percent-encoding undone (links carry the URL form). */
export function pathIdFromLinkedPath(linked: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(linked);
  } catch {
    return undefined;
  }
  return parsePathId(decoded) ? decoded : undefined;
}

/** The client's declared type when it is a well-formed MIME type, else one guessed from the name. */
export function contentTypeFor(declared: string | undefined, fileName: string): string {
  const type = ((declared ?? "").split(";")[0] ?? "").trim().toLowerCase();
  if (/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type) && type !== "application/octet-stream") return type;
  return loadMime().lookup(fileName) || "application/octet-stream";
}

/** Zulip's INLINE_MIME_TYPES: shown in the browser; never HTML, SVG or XML. */
const INLINE_TYPES = new Set([
  "application/pdf",
  "audio/aac",
  "audio/flac",
  "audio/mp4",
  "audio/mpeg",
  "audio/ogg",
  "audio/wav",
  "audio/webm",
  "audio/x-wav",
  "image/apng",
  "image/avif",
  "image/bmp",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "text/plain",
  "video/mp4",
  "video/ogg",
  "video/quicktime",
  "video/webm",
]);

export function servedInline(contentType: string): boolean {
  return INLINE_TYPES.has(contentType);
}

/** The type a download is served as: the stored one when inline-safe, else a plain download. */
export function servedContentType(contentType: string): string {
  if (!servedInline(contentType)) return "application/octet-stream";
  return contentType === "text/plain" ? "text/plain; charset=utf-8" : contentType;
}

/** RFC 6266 Content-Disposition with the RFC 8187 form for non-ASCII names (as Zulip's). */
export function contentDisposition(fileName: string, inline: boolean): string {
  const kind = inline ? "inline" : "attachment";
  if (/^[\x20-\x7e]*$/.test(fileName)) return `${kind}; filename="${fileName.replace(/["\\]/g, "\\$&")}"`;
  return `${kind}; filename*=utf-8''${encodeURIComponent(fileName)}`;
}

/** Raster images sharp can thumbnail (never SVG). */
export function isThumbnailable(contentType: string): boolean {
  return ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/tiff"].includes(contentType);
}

export const THUMBNAIL_SIZE = "840x560";
export function thumbnailKey(pathId: string): string {
  return `thumbnail/${pathId}/${THUMBNAIL_SIZE}.webp`;
}
