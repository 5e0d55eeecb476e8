import { selectedId } from "../actions.js";
import { narrowHash, parseHash, type Term } from "../hash.js";
import { lookup, subscriptions, channelTopics, type Subscription } from "../state.js";
import { unreadConversations } from "../unreadCounts.js";
import { conversationKey, type Conversation } from "../unread.js";
import { isMutedConversation } from "../conversationFilters.js";
import { conversationFacts, conversationTerms } from "../viewFilters.js";

/**
 * Moving through the message feed and between conversations by keyboard (Zulip's navigate.ts and
 * message_view's next-topic logic). The feed is read from the page: the rows a person sees (the
 * list is windowed), so a step never lands on a message that is not drawn.
 */

export function feed(): HTMLElement | null {
  return document.querySelector<HTMLElement>(".message-list");
}

function rows(list: HTMLElement): HTMLElement[] {
  return [...list.querySelectorAll<HTMLElement>(".message[data-id]:not(.local)")];
}

function select(row: HTMLElement): void {
  selectedId.value = Number(row.dataset.id);
}

function visible(list: HTMLElement, row: HTMLElement, fully = true): boolean {
  const box = list.getBoundingClientRect();
  const r = row.getBoundingClientRect();
  return fully ? r.top >= box.top - 1 && r.bottom <= box.bottom + 1 : r.bottom > box.top && r.top < box.bottom;
}

/** ↓/J (step 1) and ↑/K (step -1): the next or previous message, scrolled into view. */
export function step(direction: 1 | -1): void {
  const list = feed();
  if (!list) return;
  const all = rows(list);
  if (all.length === 0) return;
  const index = all.findIndex((r) => Number(r.dataset.id) === selectedId.value);
  let next: HTMLElement | undefined;
  if (index === -1) {
    // Nothing selected (or selected out of the drawn rows): start from what is on screen.
    const onScreen = all.filter((r) => visible(list, r, false));
    next = direction > 0 ? onScreen[0] : onScreen.at(-1);
    next ??= direction > 0 ? all[0] : all.at(-1);
  } else next = all[index + direction];
  if (!next) {
    // At the edge of what is drawn: scrolling there draws (or fetches) more.
    list.scrollTop = direction > 0 ? list.scrollHeight : 0;
    return;
  }
  select(next);
  next.scrollIntoView({ block: "nearest" });
}

/** Home: the first message drawn (scrolling to the top fetches older ones); End: the last. */
export function toEdge(direction: 1 | -1): void {
  const list = feed();
  if (!list) return;
  const all = rows(list);
  const row = direction > 0 ? all.at(-1) : all[0];
  if (row) select(row);
  list.scrollTop = direction > 0 ? list.scrollHeight : 0;
}

/** PgDn (1) / PgUp (-1): scroll by a screen less a little, and keep the selection on screen. */
export function pageBy(direction: 1 | -1): void {
  const list = feed();
  if (!list) return;
  const before = list.scrollTop;
  list.scrollTop = before + direction * Math.max(40, list.clientHeight - 60);
  const all = rows(list);
  if (all.length === 0) return;
  if (list.scrollTop === before) {
    // Already at the top or bottom: the first or last message.
    const edge = direction > 0 ? all.at(-1) : all[0];
    if (edge) select(edge);
    return;
  }
  const current = all.find((r) => Number(r.dataset.id) === selectedId.value);
  if (current && visible(list, current)) return;
  const onScreen = all.filter((r) => visible(list, r));
  const pick = (direction > 0 ? onScreen[0] : onScreen.at(-1)) ?? all.find((r) => visible(list, r, false));
  if (pick) select(pick);
}

/** The channels in the left sidebar's order: pinned first, then by name. */
export function sidebarChannels(): Subscription[] {
  return [...subscriptions.value.values()].sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name));
}

/** The open narrow, read from the address itself: a key pressed right after another sees where the last one went. */
function openTerms(): Term[] {
  const r = parseHash(location.hash, lookup);
  return r.kind === "narrow" ? r.terms : [];
}

function termOf(terms: Term[], operator: string): string | undefined {
  return terms.find((t) => t.operator === operator && !t.negated)?.operand;
}

/** The conversation the open view shows, if it is one topic or one DM conversation. */
function openConversation(): Conversation | null {
  const terms = openTerms();
  const channel = termOf(terms, "channel");
  const topic = termOf(terms, "topic");
  const dm = termOf(terms, "dm");
  if (channel && /^\d+$/.test(channel) && topic !== undefined) return { kind: "channel", channelId: Number(channel), topic };
  if (dm && /^\d+(,\d+)*$/.test(dm)) return { kind: "dm", userIds: dm.split(",").map(Number) };
  return null;
}

function go(c: Conversation): void {
  location.hash = narrowHash(conversationTerms(c), lookup);
}

/**
 * N: the next topic with unread messages, in the sidebar's order (channels as listed, a channel's
 * topics newest first) after the open one, muted topics left out; Shift+N only followed topics.
 * Returns false when there is none.
 */
export function nextUnreadTopic(followedOnly: boolean, isFollowed: (c: Conversation & { kind: "channel" }) => boolean): boolean {
  const facts = conversationFacts();
  const order = new Map(sidebarChannels().map((s, i) => [s.stream_id, i]));
  const recency = (c: Conversation & { kind: "channel" }, maxId: number) =>
    channelTopics.value.get(c.channelId)?.find((t) => t.name.toLowerCase() === c.topic.toLowerCase())?.max_id ?? maxId;
  const topics = [...unreadConversations.value.values()]
    .filter(
      (e): e is typeof e & { conversation: Conversation & { kind: "channel" } } =>
        e.conversation.kind === "channel" && order.has(e.conversation.channelId) && !isMutedConversation(e.conversation, facts),
    )
    .filter((e) => !followedOnly || isFollowed(e.conversation))
    .map((e) => ({ c: e.conversation, channel: order.get(e.conversation.channelId)!, recent: recency(e.conversation, e.maxId) }))
    .sort((a, b) => a.channel - b.channel || b.recent - a.recent);
  if (topics.length === 0) return false;
  const open = openConversation();
  const openKey = open ? conversationKey(open) : null;
  const index = topics.findIndex((t) => conversationKey(t.c) === openKey);
  let next: (typeof topics)[number] | undefined;
  if (index !== -1) next = topics[(index + 1) % topics.length];
  else {
    // In a channel (or nowhere): that channel's first unread topic, else the next channel's.
    const channel = Number(termOf(openTerms(), "channel"));
    const from = order.get(channel) ?? -1;
    next = topics.find((t) => t.channel >= from) ?? topics[0];
  }
  if (!next || conversationKey(next.c) === openKey) return false;
  go(next.c);
  return true;
}

/** P: the next direct message conversation with unread messages, newest first. */
export function nextUnreadDm(): boolean {
  const facts = conversationFacts();
  const dms = [...unreadConversations.value.values()]
    .filter((e) => e.conversation.kind === "dm" && !isMutedConversation(e.conversation, facts))
    .sort((a, b) => b.maxId - a.maxId)
    .map((e) => e.conversation);
  if (dms.length === 0) return false;
  const open = openConversation();
  const openKey = open ? conversationKey(open) : null;
  const index = dms.findIndex((c) => conversationKey(c) === openKey);
  const next = dms[(index + 1) % dms.length]!;
  if (conversationKey(next) === openKey) return false;
  go(next);
  return true;
}

/** Shift+A / Shift+D: the previous or next channel of the sidebar (muted ones skipped), from the open one. */
export function cycleChannel(direction: 1 | -1): void {
  const channels = sidebarChannels().filter((s) => !s.is_muted);
  if (channels.length === 0) return;
  const open = Number(termOf(openTerms(), "channel"));
  const index = channels.findIndex((s) => s.stream_id === open);
  const next = index === -1 ? (direction > 0 ? channels[0]! : channels.at(-1)!) : channels[(index + direction + channels.length) % channels.length]!;
  location.hash = narrowHash([{ operator: "channel", operand: String(next.stream_id), negated: false }], lookup);
}

/** S: from a topic to its channel; from a message elsewhere to its conversation. */
export function conversationOfView(): "topic" | "dm" | "other" {
  const terms = openTerms();
  if (termOf(terms, "channel") && termOf(terms, "topic") !== undefined && terms.length === 2) return "topic";
  if (termOf(terms, "dm") && terms.length === 1) return "dm";
  return "other";
}

/** The open view shows parts of conversations (a search, starred or someone's messages), not whole ones. */
export function partialConversations(): boolean {
  const whole = new Set(["channel", "topic", "dm", "near", "with", "channels", "in"]);
  return openTerms().some((t) => t.negated || !(whole.has(t.operator) || (t.operator === "is" && t.operand === "dm")));
}
