import { signal } from "@preact/signals";
import type { ClientEvent } from "../../src/contract/events.js";

/**
 * What the compose tools show besides messages, from /register and kept by events: the user's
 * drafts (Zulip's drafts API), scheduled messages, saved snippets, and the user groups' names
 * (for "@" mentions; state.ts keeps only their members).
 */
export interface Draft {
  id: number;
  type: "stream" | "private" | "";
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

export interface ScheduledMessage {
  scheduled_message_id: number;
  type: "stream" | "private";
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
}

export interface Snippet {
  id: number;
  title: string;
  content: string;
  date_created: number;
}

/** Newest first. */
export const drafts = signal<Draft[]>([]);
/** Soonest first. */
export const scheduledMessages = signal<ScheduledMessage[]>([]);
export const snippets = signal<Snippet[]>([]);

const newestFirst = (a: Draft, b: Draft) => b.timestamp - a.timestamp || b.id - a.id;
const soonestFirst = (a: ScheduledMessage, b: ScheduledMessage) =>
  a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id;

export function upsertDrafts(list: Draft[]): void {
  const ids = new Set(list.map((d) => d.id));
  drafts.value = [...list, ...drafts.value.filter((d) => !ids.has(d.id))].sort(newestFirst);
}

export function removeDraft(id: number): void {
  drafts.value = drafts.value.filter((d) => d.id !== id);
}

function upsertScheduled(list: ScheduledMessage[]): void {
  const ids = new Set(list.map((m) => m.scheduled_message_id));
  scheduledMessages.value = [...list, ...scheduledMessages.value.filter((m) => !ids.has(m.scheduled_message_id))].sort(soonestFirst);
}

function upsertSnippet(s: Snippet): void {
  snippets.value = [...snippets.value.filter((x) => x.id !== s.id), s].sort((a, b) => a.title.localeCompare(b.title));
}

/** Local drafts (when the user does not synchronize them) come from localStorage: see composeDrafts.ts. */
/** What /register says of these. */
interface ComposeState {
  user_settings?: { enable_drafts_synchronization?: unknown };
  drafts?: unknown[];
  scheduled_messages?: unknown[];
  saved_snippets?: unknown[];
}

export function loadComposeData(state: ComposeState, localDrafts: () => Draft[]): void {
  const synchronized = state.user_settings?.enable_drafts_synchronization !== false;
  drafts.value = (synchronized ? ((state.drafts ?? []) as Draft[]) : localDrafts()).slice().sort(newestFirst);
  scheduledMessages.value = ((state.scheduled_messages ?? []) as ScheduledMessage[]).slice().sort(soonestFirst);
  snippets.value = ((state.saved_snippets ?? []) as Snippet[]).slice().sort((a, b) => a.title.localeCompare(b.title));
}

/** Applies drafts, scheduled_messages and saved_snippets events (true when it was one of them). */
export function applyComposeEvent(event: ClientEvent): boolean {
  switch (event.type) {
    case "drafts":
      if (event.op === "add") upsertDrafts(event.drafts as Draft[]);
      else if (event.op === "update") upsertDrafts([event.draft as Draft]);
      else if (event.op === "remove") removeDraft(event.draft_id);
      return true;
    case "scheduled_messages":
      if (event.op === "add") upsertScheduled(event.scheduled_messages as ScheduledMessage[]);
      else if (event.op === "update") upsertScheduled([event.scheduled_message as ScheduledMessage]);
      else if (event.op === "remove") scheduledMessages.value = scheduledMessages.value.filter((m) => m.scheduled_message_id !== event.scheduled_message_id);
      return true;
    case "saved_snippets":
      if (event.op === "add" || event.op === "update") upsertSnippet(event.saved_snippet as Snippet);
      else if (event.op === "remove") snippets.value = snippets.value.filter((s) => s.id !== event.saved_snippet_id);
      return true;
    default:
      return false;
  }
}
