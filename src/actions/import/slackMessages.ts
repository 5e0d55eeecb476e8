import { createHash } from "node:crypto";
import { canonicalNameForCode, emojiCodeForName } from "../../lib/emoji.js";
import { type SlackRow, messageSender } from "../../lib/import/slackArchive.js";
import { type SlackNames, slackEmojiName, slackToMarkdown } from "../../lib/import/slackMarkdown.js";
import { sanitizeFileName, uploadUrl } from "../../lib/uploadFiles.js";
import { MAX_TOPIC_LENGTH } from "../../models/limits.js";
import { truncate } from "../../lib/messageText.js";

/**
 * One Slack message as the importer writes it (Zulip's channel_message_to_zerver_message in
 * spirit): its sender, Markdown, topic (threads become topics), files and reactions, or why it
 * is skipped. Deterministic, so a continued import converts exactly as the interrupted one did.
 */
const UNTHREADED_TOPIC = "imported from Slack";

/** Notices Zulip's importer drops too: pins and Slack's join, leave and rename notices. */
const SKIPPED_SUBTYPES = new Set(["pinned_item", "unpinned_item", "channel_join", "channel_leave", "channel_name"]);
/** Subtypes that state an action: `/me` messages. */
const ME_SUBTYPES = new Set(["bot_add", "sh_room_created", "me_message"]);

export interface SlackFile {
  slackId: string;
  /** The zip entry holding it. */
  entry: string;
  pathId: string;
  fileName: string;
  size: number;
  contentType: string | null;
}

export interface ConvertedMessage {
  sender: string;
  content: string;
  topic: string;
  dateSent: number;
  files: SlackFile[];
  /** Files the export lacks (Slack links cannot be downloaded offline). */
  missingFiles: number;
  reactions: Array<{ emojiName: string; emojiCode: string; users: string[] }>;
  unknownEmoji: number;
}

export type Conversion = { skip: string } | ConvertedMessage;

/** An upload's path (<realm>/<xx>/<24 characters>/<name>), the same each time for a Slack file. */
function slackUploadPath(realmId: number, fileId: string, name: string): string {
  const digest = createHash("sha256").update(`${realmId}:slack:${fileId}`).digest();
  return `${realmId}/${digest.subarray(0, 1).toString("hex")}/${digest.subarray(1, 19).toString("base64url")}/${sanitizeFileName(name)}`;
}

/** Zulip's get_zulip_thread_topic_name: "<date> <start of the first message>", numbered when taken. */
export class ThreadTopics {
  private readonly byThread = new Map<string, string>();
  private readonly taken = new Map<string, number>();
  /** A thread's root sender by thread_ts, for replies that do not name it. */
  private readonly parents = new Map<string, string>();

  topicFor(message: SlackRow, sender: string, content: string): string {
    if (typeof message.thread_ts !== "string") return UNTHREADED_TOPIC;
    const root = message.root as SlackRow | undefined;
    const parent =
      message.subtype === "thread_broadcast" && root
        ? String(root.user ?? root.bot_id ?? sender)
        : message.thread_ts === message.ts
          ? sender
          : typeof message.parent_user_id === "string"
            ? message.parent_user_id
            : (this.parents.get(message.thread_ts) ?? sender);
    if (message.thread_ts === message.ts) this.parents.set(message.thread_ts, sender);
    const key = `${message.thread_ts}-${parent}`;
    const known = this.byThread.get(key);
    if (known !== undefined) return known;
    const date = new Date(Number(message.thread_ts) * 1000).toISOString().slice(0, 10);
    const text = `${date} ${content.replace(/\s+/g, " ")}`.trim();
    const base = truncate(text, MAX_TOPIC_LENGTH, "…");
    const collisions = this.taken.get(base) ?? 0;
    this.taken.set(base, collisions + 1);
    const count = collisions > 0 ? ` (${collisions + 1})` : "";
    const topic = truncate(text, MAX_TOPIC_LENGTH - count.length, "…") + count;
    this.byThread.set(key, topic);
    return topic;
  }
}

export function convertMessage(
  m: SlackRow,
  names: SlackNames,
  knownSender: (slackId: string) => boolean,
  uploads: ReadonlyMap<string, string>,
  realmId: number,
  threads: ThreadTopics,
): Conversion {
  const sender = messageSender(m);
  if (sender === undefined || sender === "U00") return { skip: "messages without a sender" };
  if (typeof m.subtype === "string" && SKIPPED_SUBTYPES.has(m.subtype)) return { skip: `Slack's ${m.subtype} notices` };
  if (m.mimetype === "application/vnd.slack-docs") return { skip: "Slack posts (HTML documents)" };
  if (!knownSender(sender)) return { skip: "messages from unknown senders" };

  let content = slackToMarkdown(typeof m.text === "string" ? m.text : "", names);
  if (typeof m.subtype === "string" && ME_SUBTYPES.has(m.subtype)) content = `/me ${content}`;

  // Files: those the export holds become uploads; links elsewhere (Google Drive…) stay links.
  const files: SlackFile[] = [];
  let missingFiles = 0;
  const links: string[] = [];
  const fileList = (m.subtype === "file_share" && m.file ? [m.file] : Array.isArray(m.files) ? m.files : []) as SlackRow[];
  for (const f of fileList) {
    if (f.mode === "tombstone" || f.mode === "hidden_by_limit") continue;
    if (f.file_access === "access_denied" || f.file_access === "file_not_found") continue;
    const id = String(f.id ?? "");
    const name = typeof f.name === "string" ? f.name : typeof f.title === "string" ? f.title : "file";
    const title = typeof f.title === "string" && f.title !== "" ? f.title : name;
    const entry = uploads.get(id);
    if (entry !== undefined) {
      const pathId = slackUploadPath(realmId, id, name);
      files.push({
        slackId: id,
        entry,
        pathId,
        fileName: name,
        size: typeof f.size === "number" ? f.size : 0,
        contentType: typeof f.mimetype === "string" ? f.mimetype : null,
      });
      links.push(`[${title}](${uploadUrl(pathId)})`);
      continue;
    }
    const url = typeof f.url_private === "string" ? f.url_private : "";
    if (url !== "" && !/^https:\/\/files\.slack\.com\//.test(url)) links.push(`[${title}](${url})`);
    else missingFiles += 1;
  }
  content = [content, ...links].filter((part) => part !== "").join("\n");
  if (content === "" && files.length === 0) {
    if (missingFiles > 0) return { skip: "messages whose only content is a file the export lacks" };
    return { skip: "empty messages" };
  }

  // Reactions: skin tones dropped and merged; Slack's names mapped to Zulip's.
  const merged = new Map<string, Set<string>>();
  for (const r of (Array.isArray(m.reactions) ? m.reactions : []) as SlackRow[]) {
    if (typeof r.name !== "string") continue;
    const name = slackEmojiName(r.name);
    const users = merged.get(name) ?? new Set<string>();
    for (const u of Array.isArray(r.users) ? r.users : []) if (typeof u === "string") users.add(u);
    merged.set(name, users);
  }
  const reactions: ConvertedMessage["reactions"] = [];
  let unknownEmoji = 0;
  for (const [name, users] of merged) {
    const code = emojiCodeForName(name);
    if (code === undefined) unknownEmoji += users.size;
    else reactions.push({ emojiName: canonicalNameForCode(code) ?? name, emojiCode: code, users: [...users] });
  }

  return {
    sender,
    content,
    topic: threads.topicFor(m, sender, content),
    dateSent: Math.floor(Number(m.ts)),
    files,
    missingFiles,
    reactions,
    unknownEmoji,
  };
}
