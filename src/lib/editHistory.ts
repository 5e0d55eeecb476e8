import { diffArrays } from "diff";
import * as z from "zod";
import type { Message } from "../store/messages.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";

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

/** Above this many inserted plus deleted tokens the diff marks the whole text as replaced. */
const MAX_EDIT_LENGTH = 1000;

/**
 * Zulip's highlight_html_differences, word by word: text only in the new version is wrapped in
 * <span class="highlight_text_inserted">, text only in the old one in
 * <span class="highlight_text_deleted">; the new version's tags are kept. A Myers diff (the
 * `diff` package): time and memory grow with the size of the change, not the product of the
 * two lengths, and stop at MAX_EDIT_LENGTH.
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
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDIT_LENGTH }) ?? [
    { value: b, added: true, removed: false, count: b.length },
    { value: a, added: false, removed: true, count: a.length },
  ];
  // Within each changed stretch, the inserted text comes before the deleted text.
  let deleted: string[] = [];
  for (const change of changes) {
    if (change.removed) {
      deleted.push(...change.value);
      continue;
    }
    if (!change.added) {
      for (const token of deleted) emit(token, "deleted");
      deleted = [];
    }
    for (const token of change.value) emit(token, change.added ? "inserted" : "same");
  }
  for (const token of deleted) emit(token, "deleted");
  return `<div>${out.join("")}</div>`;
}

function tokens(html: string): string[] {
  return html.match(/<[^>]*>|\s+|[^<\s]+/g) ?? [];
}
