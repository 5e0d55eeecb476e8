import fs from "node:fs/promises";
import path from "node:path";

/**
 * The outbox folder: where emails go when no SMTP server is configured (development, first
 * installs). One RFC 822 `.eml` file per email, named so that names sort by time:
 * `<UTC time>-<job id>-<template>.eml`. `parley emails` lists it.
 */
export function outboxDir(dataDir: string): string {
  return path.join(dataDir, "outbox");
}

export function outboxFileName(createdAtSeconds: number, jobId: number, template: string): string {
  const time = new Date(createdAtSeconds * 1000)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replaceAll(":", "-");
  const tag = template.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 40) || "email";
  return `${time}-${String(jobId).padStart(8, "0")}-${tag}.eml`;
}

/** Writes the file whole or not at all (temporary file + rename), so a listing never sees half an email. */
export async function writeOutboxEmail(dir: string, fileName: string, raw: Buffer): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const target = path.join(dir, fileName);
  const temporary = `${target}.${process.pid}.tmp`;
  await fs.writeFile(temporary, raw);
  await fs.rename(temporary, target);
  return target;
}

export interface OutboxEntry {
  file: string;
  /** From the Date header, as ISO 8601 UTC. */
  time: string;
  to: string;
  subject: string;
}

/** The newest `limit` emails of the outbox, oldest first. */
export async function listOutbox(dir: string, limit: number): Promise<OutboxEntry[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((name) => name.endsWith(".eml")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const entries: OutboxEntry[] = [];
  for (const file of names.slice(-limit)) {
    const headers = parseHeaders(await fs.readFile(path.join(dir, file), "utf8"));
    entries.push({ file, time: isoTime(headers.get("date")), to: headers.get("to") ?? "", subject: headers.get("subject") ?? "" });
  }
  return entries;
}

function isoTime(date: string | undefined): string {
  const time = date ? new Date(date) : null;
  return time && !Number.isNaN(time.getTime()) ? time.toISOString().replace(/\.\d{3}Z$/, "Z") : "";
}

/** The raw text of one outbox email, or null if `file` is not a file of the outbox. */
export async function readOutboxEmail(dir: string, file: string): Promise<string | null> {
  const name = path.basename(file);
  if (name !== file || !name.endsWith(".eml")) return null;
  try {
    return await fs.readFile(path.join(dir, name), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The header block of a message: unfolded, names lower-cased, encoded words decoded. */
function parseHeaders(raw: string): Map<string, string> {
  const block = (raw.split(/\r?\n\r?\n/, 1)[0] ?? "").replace(/\r?\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeEncodedWords(line.slice(colon + 1).trim()));
  }
  return headers;
}

/** RFC 2047 `=?charset?B|Q?text?=` words (as nodemailer writes non-ASCII subjects), UTF-8 only. */
function decodeEncodedWords(value: string): string {
  return value.replace(/(\?=)\s+(=\?)/g, "$1$2").replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (word, charset: string, encoding: string, text: string) => {
    if (!/^utf-?8$/i.test(charset)) return word;
    if (encoding.toUpperCase() === "B") return Buffer.from(text, "base64").toString("utf8");
    const bytes = text
      .replace(/%/g, "%25")
      .replace(/_/g, " ")
      .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => `%${hex}`);
    try {
      return decodeURIComponent(bytes);
    } catch {
      return word;
    }
  });
}
