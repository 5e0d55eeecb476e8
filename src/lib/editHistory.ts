import { z } from "zod";
import type { Message } from "../store/messages.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "./messagePayload.js";

/**
 * Message edit history as Zulip stores it (messages.edit_history: JSON list, newest first) and
 * as GET /messages/{id}/history shows it (snapshots, oldest first). Each stored entry has
 * user_id and timestamp, plus only the aspects that changed: prev_content and
 * prev_rendered_content, prev_topic and topic, prev_stream and stream.
 */
export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string | null;
  prev_topic?: string;
  topic?: string;
  prev_stream?: number;
  stream?: number;
}

const editHistorySchema = z.array(
  z.object({
    user_id: z.number().int().nullable(),
    timestamp: z.number(),
    prev_content: z.string().optional(),
    prev_rendered_content: z.string().nullable().optional(),
    prev_topic: z.string().optional(),
    topic: z.string().optional(),
    prev_stream: z.number().int().optional(),
    stream: z.number().int().optional(),
  }),
) satisfies z.ZodType<EditHistoryEntry[]>;

export interface HistorySnapshot {
  topic: string;
  content: string;
  rendered_content: string | null;
  timestamp: number;
  user_id: number | null;
  prev_topic?: string;
  prev_content?: string;
  prev_rendered_content?: string | null;
  content_html_diff?: string;
  prev_stream?: number;
  stream?: number;
}

export function parseEditHistory(json: string | null): EditHistoryEntry[] {
  return json === null ? [] : parseJsonColumn(editHistorySchema, json, "messages.edit_history");
}

/** The stored history with `entry` as its newest edit. */
export function withEditEntry(json: string | null, entry: EditHistoryEntry): string {
  return JSON.stringify([entry, ...parseEditHistory(json)]);
}

/**
 * Zulip's fill_edit_history_entries: walking back from the current state, one snapshot per edit
 * (the state right after it) and the original message; returned oldest first.
 */
export function editHistorySnapshots(message: Message, allowEmptyTopicName: boolean): HistorySnapshot[] {
  const topicName = (topic: string) => (topic === "" && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : topic);
  let content = message.content;
  let rendered = message.rendered_content;
  let topic = message.subject;
  const snapshots: HistorySnapshot[] = [];
  for (const entry of parseEditHistory(message.edit_history)) {
    const snapshot: HistorySnapshot = { content, rendered_content: rendered, timestamp: entry.timestamp, topic: topicName(topic), user_id: entry.user_id };
    if (entry.prev_topic !== undefined) {
      topic = entry.prev_topic;
      snapshot.prev_topic = topicName(topic);
    }
    if (entry.prev_content !== undefined) {
      snapshot.prev_content = entry.prev_content;
      snapshot.prev_rendered_content = entry.prev_rendered_content ?? null;
      snapshot.content_html_diff = htmlDiff(entry.prev_rendered_content ?? "", rendered ?? "");
      content = entry.prev_content;
      rendered = entry.prev_rendered_content ?? null;
    }
    if (entry.prev_stream !== undefined) {
      snapshot.prev_stream = entry.prev_stream;
      snapshot.stream = entry.stream;
    }
    snapshots.push(snapshot);
  }
  snapshots.push({ content, rendered_content: rendered, timestamp: message.date_sent, topic: topicName(topic), user_id: message.sender_id });
  return snapshots.reverse();
}

/** Above this many token pairs the diff marks the whole text as replaced (bounded work). */
const MAX_DIFF_CELLS = 4_000_000;

/**
 * Zulip's highlight_html_differences, word by word: text only in the new version is wrapped in
 * <span class="highlight_text_inserted">, text only in the old one in
 * <span class="highlight_text_deleted">; the new version's tags are kept.
 */
export function htmlDiff(before: string, after: string): string {
  const a = tokens(before);
  const b = tokens(after);
  const out: string[] = [];
  const emit = (text: string, kind: "same" | "inserted" | "deleted") => {
    const markup = /^(<[^>]*>|\s+)$/.test(text);
    if (kind === "same" || (kind === "inserted" && markup)) out.push(text);
    else if (!markup) out.push(`<span class="highlight_text_${kind}">${text}</span>`);
  };
  if (a.length * b.length > MAX_DIFF_CELLS) {
    for (const token of b) emit(token, "inserted");
    for (const token of a) emit(token, "deleted");
    return `<div>${out.join("")}</div>`;
  }
  // Longest common subsequence table, from the end.
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      emit(b[j], "same");
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      emit(b[j++], "inserted");
    } else {
      emit(a[i++], "deleted");
    }
  }
  return `<div>${out.join("")}</div>`;
}

function tokens(html: string): string[] {
  return html.match(/<[^>]*>|\s+|[^<\s]+/g) ?? [];
}
