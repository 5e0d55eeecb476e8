import type { MessageResponse } from "../../src/contract/responses.js";
import { needsAccount } from "./visitor.js";
import { signal } from "@preact/signals";
import { api, myUserId } from "./api.js";
import { narrowHash } from "./hash.js";
import { conversationOf, lookup, type Message } from "./state.js";
import { replyTo } from "./composeOpen.js";
import { pauseReading } from "./reading.js";

/**
 * What a person can do to a message (Zulip's message actions): star, react, quote and reply,
 * copy a link, edit and delete their own. Every change goes through the API; the screen changes
 * when the event comes back, so every open client sees the same thing.
 */
export const selectedId = signal<number | null>(null);
export const editing = signal<{ id: number; content: string } | null>(null);
export const notice = signal("");

/** The reactions a message offers at once: Zulip's emoji name and code (drawn by EmojiGlyph). */
export const QUICK_REACTIONS: Array<[name: string, code: string]> = [
  ["+1", "1f44d"],
  ["heart", "2764"],
  ["smile", "1f642"],
  ["tada", "1f389"],
  ["working_on_it", "1f6e0"],
  ["thinking", "1f914"],
];

function report(error: unknown): void {
  notice.value = (error as Error).message;
  setTimeout(() => (notice.value = ""), 5000);
}

export function toggleStar(m: Message): void {
  if (needsAccount()) return;
  const op = m.flags.includes("starred") ? "remove" : "add";
  api.post("/messages/flags", { messages: [m.id], op, flag: "starred" }).catch(report);
}

export function toggleReaction(m: Message, emojiName: string, emojiCode?: string, reactionType?: string): void {
  if (needsAccount()) return;
  const mine = m.reactions.some(
    (r) => r.user_id === myUserId && (emojiCode ? r.emoji_code === emojiCode && r.reaction_type === reactionType : r.emoji_name === emojiName),
  );
  const params = emojiCode ? { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType } : { emoji_name: emojiName };
  (mine ? api.del(`/messages/${m.id}/reactions`, params) : api.post(`/messages/${m.id}/reactions`, params)).catch(report);
}

async function rawContent(id: number): Promise<string> {
  const result = await api.get<MessageResponse>(`/messages/${id}`, { apply_markdown: false });
  return result.raw_content ?? result.message.content;
}

function messageLink(m: Message): string {
  const c = conversationOf(m);
  const terms =
    c.kind === "channel"
      ? [
          { operator: "channel", operand: String(c.channelId), negated: false },
          { operator: "topic", operand: c.topic, negated: false },
        ]
      : [{ operator: "dm", operand: c.userIds.join(","), negated: false }];
  return `${location.origin}/${narrowHash([...terms, { operator: "near", operand: String(m.id), negated: false }], lookup)}`;
}

export async function quoteAndReply(m: Message): Promise<void> {
  if (needsAccount()) return;
  try {
    const raw = await rawContent(m.id);
    const fence = raw.includes("```") ? "````" : "```";
    replyTo(m, `@_**${m.sender_full_name}|${m.sender_id}** [said](${messageLink(m)}):\n${fence}quote\n${raw}\n${fence}\n`);
  } catch (error) {
    report(error);
  }
}

export async function copyLink(m: Message): Promise<void> {
  try {
    await navigator.clipboard.writeText(messageLink(m));
    notice.value = "Link copied";
    setTimeout(() => (notice.value = ""), 2000);
  } catch (error) {
    report(error);
  }
}

export async function startEdit(m: Message): Promise<void> {
  if (needsAccount()) return;
  try {
    editing.value = { id: m.id, content: await rawContent(m.id) };
  } catch (error) {
    report(error);
  }
}

export function saveEdit(): void {
  const e = editing.value;
  if (!e) return;
  editing.value = null;
  api.patch(`/messages/${e.id}`, { content: e.content }).catch(report);
}

export function deleteMessage(m: Message): void {
  if (!confirm("Delete this message?")) return;
  api.del(`/messages/${m.id}`).catch(report);
}

export function markUnreadFrom(m: Message, messages: Message[]): void {
  if (needsAccount()) return;
  const ids = messages.filter((x) => x.id >= m.id && !x.local).map((x) => x.id);
  pauseReading();
  api.post("/messages/flags", { messages: ids, op: "remove", flag: "read" }).catch(report);
}

type ApiTerm = { operator: string; operand: string | number | number[]; negated?: boolean };

/**
 * Marks every unread message of a narrow as read, as Zulip's unread_ops does: POST
 * /messages/flags/narrow over `narrow` + is:unread from the oldest, in batches, each batch
 * starting after the last one the server processed, until it reports the newest. Counts change
 * when the update_message_flags events come back.
 */
export async function markNarrowRead(narrow: ApiTerm[]): Promise<void> {
  let anchor = "oldest";
  let includeAnchor = true;
  try {
    for (let batch = 0; batch < 100; batch++) {
      const result = await api.post<{ found_newest: boolean; last_processed_id: number | null }>("/messages/flags/narrow", {
        anchor,
        include_anchor: includeAnchor,
        num_before: 0,
        num_after: 1000,
        narrow: [...narrow, { operator: "is", operand: "unread" }],
        op: "add",
        flag: "read",
      });
      if (result.found_newest || result.last_processed_id === null) return;
      anchor = String(result.last_processed_id);
      includeAnchor = false;
    }
  } catch (error) {
    report(error);
  }
}

export const markAllRead = () => markNarrowRead([]);
export const markChannelRead = (channelId: number) => markNarrowRead([{ operator: "channel", operand: channelId }]);
export const markTopicRead = (channelId: number, topic: string) =>
  markNarrowRead([
    { operator: "channel", operand: channelId },
    { operator: "topic", operand: topic },
  ]);
export const markDmRead = (userIds: number[]) => markNarrowRead([{ operator: "dm", operand: userIds }]);

/** Mute or unmute a channel (the subscription's is_muted property). */
export function setChannelMuted(channelId: number, muted: boolean): void {
  api.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: channelId, property: "is_muted", value: muted }] }).catch(report);
}

/** Copies a link (to a channel, a topic) and says so. */
export async function copyText(text: string, done = "Link copied"): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    notice.value = done;
    setTimeout(() => (notice.value = ""), 2000);
  } catch (error) {
    report(error);
  }
}

export { rawContent };
