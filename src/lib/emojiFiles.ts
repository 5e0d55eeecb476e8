import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Custom emoji image files: `<dataDir>/uploads/emoji/<realm_id>/<random>.<ext>`. Every path is
 * built here from a realm id and a file name that must match FILE_NAME, and is checked to
 * resolve inside the emoji root, so no caller can read or write elsewhere.
 */
const FILE_NAME = /^[A-Za-z0-9_-]{16,64}\.(png|gif|jpg|webp)$/;

/** Image types accepted for custom emoji (images that are safe to show inline; never SVG). */
const EMOJI_CONTENT_TYPES = {
  png: "image/png",
  gif: "image/gif",
  jpg: "image/jpeg",
  webp: "image/webp",
} as const;
export type EmojiExtension = keyof typeof EMOJI_CONTENT_TYPES;

/** The image type of `data` from its signature (the client's claimed type is not trusted). */
export function sniffEmojiImage(data: Buffer): EmojiExtension | undefined {
  const ascii = (start: number, end: number) => data.subarray(start, end).toString("latin1");
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (data.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return "gif";
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return "jpg";
  if (data.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  return undefined;
}

function emojiRoot(dataDir: string): string {
  return path.resolve(dataDir, "uploads", "emoji");
}

/** The absolute path of a realm's emoji file, or undefined for a name this module never makes. */
/** Whether `fileName` is one of the names this module makes. */
export const isEmojiFileName = (fileName: string): boolean => FILE_NAME.test(fileName);

export function emojiFilePath(dataDir: string, realmId: number, fileName: string): string | undefined {
  if (!Number.isSafeInteger(realmId) || realmId <= 0 || !FILE_NAME.test(fileName)) return undefined;
  const root = emojiRoot(dataDir);
  const full = path.resolve(root, String(realmId), fileName);
  return full.startsWith(root + path.sep) ? full : undefined;
}

/** Stores the image under a new random name and returns that name. */
export async function writeEmojiFile(dataDir: string, realmId: number, ext: EmojiExtension, data: Buffer): Promise<string> {
  const fileName = `${randomBytes(18).toString("base64url")}.${ext}`;
  const full = emojiFilePath(dataDir, realmId, fileName);
  if (!full) throw new Error("invalid emoji file path");
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, data, { flag: "wx" });
  return fileName;
}

export async function removeEmojiFile(dataDir: string, realmId: number, fileName: string): Promise<void> {
  const full = emojiFilePath(dataDir, realmId, fileName);
  if (full) await rm(full, { force: true });
}

export function contentTypeForEmojiFile(fileName: string): string {
  return EMOJI_CONTENT_TYPES[path.extname(fileName).slice(1) as EmojiExtension];
}
