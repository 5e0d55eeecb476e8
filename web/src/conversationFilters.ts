import { VisibilityPolicy } from "../../src/contract/constants.js";
import type { Conversation } from "./unread.js";

/**
 * Filters of the Inbox and Recent conversations views (Zulip's inbox_ui.ts and recent_view_ui.ts),
 * as pure functions: what the views list for the user's choices. The views keep the choices in
 * localStorage (filterStorage.ts).
 */
type ChannelConversation = Conversation & { kind: "channel" };

export interface ConversationFacts {
  channelName(channelId: number): string;
  channelMuted(channelId: number): boolean;
  /** 0 inherit, 1 muted, 2 unmuted, 3 followed. */
  topicPolicy(c: ChannelConversation): number;
  dmNames(userIds: readonly number[]): string;
  /** The user muted this person (muted_users). */
  userMuted(userId: number): boolean;
}

/** Every word of the query (any case) appears in the conversation's channel and topic, or its people. */
function matchesSearch(c: Conversation, query: string, facts: ConversationFacts): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = (c.kind === "channel" ? `${facts.channelName(c.channelId)} ${c.topic}` : facts.dmNames(c.userIds)).toLowerCase();
  return words.every((w) => text.includes(w));
}

/**
 * A muted topic, or a topic of a muted channel that is not unmuted or followed; a direct message
 * conversation whose other people are all muted users (Zulip hides those as it hides muted topics).
 */
export function isMutedConversation(c: Conversation, facts: ConversationFacts): boolean {
  if (c.kind === "dm") return c.userIds.length > 0 && c.userIds.every((id) => facts.userMuted(id));
  const policy = facts.topicPolicy(c);
  if (policy === VisibilityPolicy.MUTED) return true;
  return facts.channelMuted(c.channelId) && policy !== VisibilityPolicy.UNMUTED && policy !== VisibilityPolicy.FOLLOWED;
}

// Inbox.

export type InboxView = "unmuted" | "all" | "followed";
interface InboxRow {
  key: string;
  conversation: Conversation;
  count: number;
  maxId: number;
}
export interface InboxFolder {
  /** "dm" or "channel:<id>". */
  key: string;
  channelId: number | null;
  rows: InboxRow[];
  count: number;
}

/** Which rows the Inbox lists, in folders: direct messages first, then channels by name; newest first inside. */
export function inboxFolders(rows: Iterable<InboxRow>, view: InboxView, query: string, facts: ConversationFacts): InboxFolder[] {
  const folders = new Map<string, InboxFolder>();
  for (const row of rows) {
    const c = row.conversation;
    if (view === "followed" && (c.kind === "dm" || facts.topicPolicy(c) !== VisibilityPolicy.FOLLOWED)) continue;
    if (view === "unmuted" && isMutedConversation(c, facts)) continue;
    if (!matchesSearch(c, query, facts)) continue;
    const key = c.kind === "dm" ? "dm" : `channel:${c.channelId}`;
    let folder = folders.get(key);
    if (!folder) folders.set(key, (folder = { key, channelId: c.kind === "dm" ? null : c.channelId, rows: [], count: 0 }));
    folder.rows.push(row);
    folder.count += row.count;
  }
  const list = [...folders.values()];
  for (const folder of list) folder.rows.sort((a, b) => b.maxId - a.maxId);
  return list.sort((a, b) =>
    a.channelId === null ? -1 : b.channelId === null ? 1 : facts.channelName(a.channelId).localeCompare(facts.channelName(b.channelId)),
  );
}

// Recent conversations.

export interface RecentFilters {
  unreadOnly: boolean;
  participated: boolean;
  includeDms: boolean;
  includeMuted: boolean;
}
export const RECENT_DEFAULTS: RecentFilters = { unreadOnly: false, participated: false, includeDms: true, includeMuted: false };

interface RecentRowFacts {
  conversation: Conversation;
  unreadCount: number;
  /** Whether the user wrote in it (among the messages known). */
  participated: boolean;
}

export function recentRowShown(row: RecentRowFacts, filters: RecentFilters, query: string, facts: ConversationFacts): boolean {
  const c = row.conversation;
  if (filters.unreadOnly && row.unreadCount === 0) return false;
  if (filters.participated && !row.participated) return false;
  if (!filters.includeDms && c.kind === "dm") return false;
  if (!filters.includeMuted && isMutedConversation(c, facts)) return false;
  return matchesSearch(c, query, facts);
}
