import type yauzl from "yauzl";
import { lazy } from "../../util/lazy.js";
import { group } from "../../util/defined.js";

/** Loaded when a Slack archive is opened. */
const loadYauzl = lazy(async () => (await import("yauzl")).default);

/**
 * A Slack workspace export (Slack's "Export data": a .zip of users.json, channels.json and one
 * folder per channel of `<YYYY-MM-DD>.json` files, each a day's messages), read in place from the
 * zip: its directory is read once, each file is inflated when asked for, so memory holds one
 * day's messages at a time, never the export. Files of messages are found when the export holds
 * them under `__uploads/<file id>/<name>` (the layout of exports made with files); Slack's
 * `url_private` links cannot be downloaded offline.
 */
export type SlackRow = Record<string, unknown>;

export class SlackArchiveError extends Error {}

export interface SlackChannel extends SlackRow {
  id: string;
  name: string;
  members?: string[];
  /** From groups.json (a private channel), not channels.json. */
  is_private?: boolean;
}

/**
 * A direct-message conversation: dms.json (two people; its folder is named by its id) or
 * mpims.json (a group; its folder is named by its name).
 */
export interface SlackConversation {
  id: string;
  /** The folder of its day files. */
  folder: string;
  members: string[];
}

export interface SlackUser extends SlackRow {
  id: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  profile?: SlackRow;
}

export interface SlackDay {
  date: string;
  /** The day's files, one per channel or conversation (its folder) that has messages that day. */
  files: Array<{ channel: string; entry: string }>;
}

export interface SlackArchive {
  file: string;
  zip: yauzl.ZipFile;
  entries: Map<string, yauzl.Entry>;
  users: SlackUser[];
  channels: SlackChannel[];
  /** Direct-message conversations (dms.json and mpims.json, in exports that include them). */
  conversations: SlackConversation[];
  /** Days in order, each with its channels' and conversations' files. */
  days: SlackDay[];
  /** Files the export holds, by Slack file id: the zip entry's name. */
  uploads: Map<string, string>;
  messageCount: number;
  /** Senders that users.json lacks (integration bots, users of other workspaces): id → name. */
  extraSenders: Map<string, string>;
}

const DAY_FILE = /^([^/]+)\/(\d{4}-\d{2}-\d{2})\.json$/;
const UPLOAD_FILE = /^__uploads\/([^/]+)\/[^/]+$/;

async function openZip(file: string): Promise<yauzl.ZipFile> {
  const { open } = await loadYauzl();
  return new Promise((resolve, reject) =>
    open(file, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true }, (error, zip) =>
      error ? reject(new SlackArchiveError(`${file} is not a complete .zip archive (${error.message})`)) : resolve(zip),
    ),
  );
}

function listEntries(zip: yauzl.ZipFile, file: string): Promise<Map<string, yauzl.Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, yauzl.Entry>();
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith("/")) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on("end", () => resolve(entries));
    zip.on("error", (error: Error) => reject(new SlackArchiveError(`${file} is not a complete .zip archive (${error.message})`)));
    zip.readEntry();
  });
}

/** One file of the export, inflated. */
export function readEntry(archive: Pick<SlackArchive, "zip" | "entries" | "file">, name: string): Promise<Buffer> {
  const entry = archive.entries.get(name);
  if (!entry) return Promise.reject(new SlackArchiveError(`the export has no ${name}`));
  return new Promise((resolve, reject) => {
    archive.zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(new SlackArchiveError(`${name} in ${archive.file} cannot be read (${error.message})`));
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", (e: Error) => reject(new SlackArchiveError(`${name} in ${archive.file} is damaged (${e.message})`)));
      stream.on("end", () => resolve(Buffer.concat(chunks)));
    });
  });
}

async function readJson(archive: Pick<SlackArchive, "zip" | "entries" | "file">, name: string): Promise<unknown> {
  const bytes = await readEntry(archive, name);
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch (error) {
    throw new SlackArchiveError(`${name} is not valid JSON (${(error as Error).message})`);
  }
}

function checkList<T extends SlackRow>(value: unknown, name: string, check: (row: SlackRow) => boolean, what: string): T[] {
  if (!Array.isArray(value)) throw new SlackArchiveError(`${name} is not a list`);
  for (const [i, row] of value.entries()) {
    if (row === null || typeof row !== "object" || !check(row as SlackRow)) throw new SlackArchiveError(`${name}: entry ${i} lacks ${what}`);
  }
  return value as T[];
}

/** A day's messages of one channel, as the export has them (a list of message objects). */
export async function readDayFile(archive: SlackArchive, entry: string): Promise<SlackRow[]> {
  return checkList<SlackRow>(await readJson(archive, entry), entry, (m) => typeof m.ts === "string", 'a "ts"');
}

/** The sender Slack names (Zulip's get_message_sending_user). */
export function messageSender(m: SlackRow): string | undefined {
  if (typeof m.user === "string") return m.user;
  const file = m.file as SlackRow | undefined;
  if (file && typeof file.user === "string") return file.user;
  if (typeof m.bot_id === "string") return m.bot_id;
  return undefined;
}

/**
 * Opens the export and checks it completely before anything is written: a readable zip with
 * users.json and channels.json in Slack's shape, and every day file valid JSON (counted, and
 * their senders unknown to users.json collected).
 */
export async function readSlackArchive(file: string): Promise<SlackArchive> {
  const zip = await openZip(file);
  try {
    const all = await listEntries(zip, file);
    // The export's files at the zip's root, or in one folder (a re-zipped export).
    let prefix = "";
    if (!all.has("users.json")) {
      const nested = [...all.keys()].find((n) => /^[^/]+\/users\.json$/.test(n));
      if (nested) prefix = nested.slice(0, -"users.json".length);
    }
    const entries = new Map<string, yauzl.Entry>();
    for (const [name, entry] of all) if (name.startsWith(prefix)) entries.set(name.slice(prefix.length), entry);
    for (const required of ["users.json", "channels.json"])
      if (!entries.has(required)) throw new SlackArchiveError(`the export has no ${required}: is it a Slack export?`);
    const base = { zip, entries, file };
    const users = checkList<SlackUser>(await readJson(base, "users.json"), "users.json", (u) => typeof u.id === "string", 'an "id"');
    const channelList = async (name: string) =>
      checkList<SlackChannel>(
        await readJson(base, name),
        name,
        (c) => typeof c.id === "string" && typeof c.name === "string" && c.name !== "",
        'an "id" and a "name"',
      );
    // Public channels, then private ones (groups.json, in exports that include them): each has a
    // folder of day files named after it (Slack's names are unique across both).
    const channels = [
      ...(await channelList("channels.json")),
      ...(entries.has("groups.json") ? (await channelList("groups.json")).map((c) => ({ ...c, is_private: true })) : []),
    ];
    const conversations: SlackConversation[] = [];
    for (const [name, folderOf] of [
      ["dms.json", (c: SlackRow) => c.id],
      ["mpims.json", (c: SlackRow) => c.name],
    ] as const) {
      if (!entries.has(name)) continue;
      const list = checkList<SlackRow>(
        await readJson(base, name),
        name,
        (c) => typeof c.id === "string" && typeof folderOf(c) === "string" && Array.isArray(c.members) && c.members.every((m) => typeof m === "string"),
        name === "dms.json" ? 'an "id" and "members"' : 'an "id", a "name" and "members"',
      );
      for (const c of list) conversations.push({ id: c.id as string, folder: folderOf(c) as string, members: c.members as string[] });
    }

    // The folders of day files: a channel's is named after it, a conversation's as above.
    const folders = new Set([...channels.map((c) => c.name), ...conversations.map((c) => c.folder)]);
    const byDate = new Map<string, SlackDay>();
    const uploads = new Map<string, string>();
    for (const name of entries.keys()) {
      const day = DAY_FILE.exec(name);
      if (day && folders.has(group(day, 1))) {
        const date = group(day, 2);
        const list = byDate.get(date) ?? { date, files: [] };
        list.files.push({ channel: group(day, 1), entry: name });
        byDate.set(date, list);
      }
      const upload = UPLOAD_FILE.exec(name);
      if (upload) uploads.set(group(upload, 1), name);
    }
    const days = [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    for (const d of days) d.files.sort((a, b) => (a.channel < b.channel ? -1 : 1));

    const archive: SlackArchive = { file, zip, entries, users, channels, conversations, days, uploads, messageCount: 0, extraSenders: new Map() };
    // A bot's messages name its bot id (`bot_id`) rather than its user id.
    const known = new Set(users.flatMap((u) => [u.id, ...(typeof u.profile?.bot_id === "string" ? [u.profile.bot_id] : [])]));
    for (const d of days) {
      for (const f of d.files) {
        const messages = await readDayFile(archive, f.entry);
        archive.messageCount += messages.length;
        for (const m of messages) {
          const sender = messageSender(m);
          if (sender === undefined || known.has(sender) || archive.extraSenders.has(sender) || sender === "U00") continue;
          const profile = m.bot_profile as SlackRow | undefined;
          const name = typeof m.username === "string" ? m.username : typeof profile?.name === "string" ? profile.name : `Slack user ${sender}`;
          archive.extraSenders.set(sender, name);
        }
      }
    }
    return archive;
  } catch (error) {
    zip.close();
    throw error;
  }
}

export function closeSlackArchive(archive: SlackArchive): void {
  archive.zip.close();
}
