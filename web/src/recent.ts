import type { MessagesResponse } from "../../src/contract/responses.js";
import { signal } from "@preact/signals";
import { api, myUserId } from "./api.js";
import { visitorNarrow } from "./visitor.js";
import { conversationOf, type Message } from "./state.js";
import { type Conversation, conversationKey, dmPeople } from "./unread.js";

/**
 * Recent conversations (Zulip's recent_view): the newest topics and direct-message conversations
 * with who took part and when, built from one page of the newest messages (GET /messages, no
 * narrow) plus /register's recent DM conversations, then kept current by message, move and
 * delete events. Only a bounded amount is kept per conversation: its newest messages.
 */
interface RecentConversation {
  key: string;
  conversation: Conversation;
  /** The newest messages known (id, sender, time), newest last; at most KEEP. */
  messages: Array<{ id: number; sender: number; timestamp: number }>;
  /** For a DM known only from /register: its newest message id. */
  maxId: number;
}

const KEEP = 20;
export const PAGE = 400;
export const recent = signal(new Map<string, RecentConversation>());
export const recentState = signal<{ loaded: boolean; loading: boolean; foundOldest: boolean; oldestId: number | null; error: string | null }>({
  loaded: false,
  loading: false,
  foundOldest: false,
  oldestId: null,
  error: null,
});

function add(map: Map<string, RecentConversation>, conversation: Conversation, entry: { id: number; sender: number; timestamp: number }): void {
  const key = conversationKey(conversation);
  const current = map.get(key);
  const messages = (current?.messages ?? []).filter((m) => m.id !== entry.id);
  messages.push(entry);
  messages.sort((a, b) => a.id - b.id);
  map.set(key, { key, conversation: current?.conversation ?? conversation, messages: messages.slice(-KEEP), maxId: Math.max(current?.maxId ?? 0, entry.id) });
}

/** /register's recent_private_conversations: DMs known by their newest id only (until their messages come). */
export function noteRecentDms(list: Array<{ user_ids: number[]; max_message_id: number }>): void {
  const map = new Map(recent.value);
  for (const p of list) {
    const conversation: Conversation = { kind: "dm", userIds: dmPeople(p.user_ids, myUserId) };
    const key = conversationKey(conversation);
    const current = map.get(key);
    map.set(key, { key, conversation, messages: current?.messages ?? [], maxId: Math.max(current?.maxId ?? 0, p.max_message_id) });
  }
  recent.value = map;
}

/** The first page, or the next older one ("Load more"). */
export async function loadRecent(): Promise<void> {
  const state = recentState.value;
  if (state.loading || (state.loaded && state.foundOldest)) return;
  recentState.value = { ...state, loading: true, error: null };
  try {
    const result = await api.get<MessagesResponse>("/messages", {
      narrow: visitorNarrow([]),
      anchor: state.oldestId ?? "newest",
      include_anchor: state.oldestId === null,
      num_before: PAGE,
      num_after: 0,
      apply_markdown: false,
      client_gravatar: true,
    });
    const map = new Map(recent.value);
    for (const m of result.messages) add(map, conversationOf(m), { id: m.id, sender: m.sender_id, timestamp: m.timestamp });
    recent.value = map;
    const oldest = result.messages[0]?.id ?? state.oldestId;
    recentState.value = { loaded: true, loading: false, foundOldest: result.found_oldest, oldestId: oldest, error: null };
  } catch (error) {
    recentState.value = { ...recentState.value, loading: false, error: (error as Error).message };
  }
}

export function noteRecentMessage(m: Message): void {
  const map = new Map(recent.value);
  add(map, conversationOf(m), { id: m.id, sender: m.sender_id, timestamp: m.timestamp });
  recent.value = map;
}

/** Messages moved to another topic or channel: they leave the old conversation (gone when empty). */
export function noteRecentMove(ids: number[], fromChannel: number, fromTopic: string | undefined, toChannel: number, toTopic: string): void {
  if (fromTopic === undefined) return;
  const map = new Map(recent.value);
  const from = map.get(conversationKey({ kind: "channel", channelId: fromChannel, topic: fromTopic }));
  if (!from) return;
  const moved = new Set(ids);
  const leaving = from.messages.filter((m) => moved.has(m.id));
  const staying = from.messages.filter((m) => !moved.has(m.id));
  if (staying.length === 0) map.delete(from.key);
  else map.set(from.key, { ...from, messages: staying, maxId: staying.at(-1)!.id });
  for (const m of leaving) add(map, { kind: "channel", channelId: toChannel, topic: toTopic }, m);
  recent.value = map;
}

export function noteRecentDelete(ids: number[]): void {
  const gone = new Set(ids);
  const map = new Map(recent.value);
  let changed = false;
  for (const [key, entry] of map) {
    if (!entry.messages.some((m) => gone.has(m.id))) continue;
    changed = true;
    const messages = entry.messages.filter((m) => !gone.has(m.id));
    if (messages.length === 0) map.delete(key);
    else map.set(key, { ...entry, messages, maxId: messages.at(-1)!.id });
  }
  if (changed) recent.value = map;
}

/** Newest first. */
export function recentRows(): RecentConversation[] {
  return [...recent.value.values()].sort((a, b) => b.maxId - a.maxId);
}

/** Who wrote in the conversation, most recent first. */
export function participants(entry: RecentConversation): number[] {
  const out: number[] = [];
  for (const message of [...entry.messages].reverse()) if (!out.includes(message.sender)) out.push(message.sender);
  return out;
}
