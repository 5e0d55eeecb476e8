import type { TopicsResponse } from "../../../src/contract/responses.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../../../src/contract/constants.js";
import { signal } from "@preact/signals";
import { api } from "../api.js";
import { channelId, content, dmTo, topic } from "../composeState.js";
import {
  applyCompletion,
  completionText,
  findToken,
  matchChannels,
  matchEmoji,
  matchMentions,
  matchTopics,
  type Group,
  type Suggestion,
  type Token,
} from "../composeTypeahead.js";
import { EmojiGlyph } from "./EmojiGlyph.js";
import { catalogue, loadCatalogue } from "../emojiPicker.js";
import { channelTopics, lookup, subscriptions, userGroups, users } from "../state.js";
import "./composeTools.css";

/** The organization's user groups (kept by state.ts from /register and user_group events), by name. */
function mentionableGroups(): Group[] {
  return [...userGroups.value.values()].flatMap((g) => (g.name ? [{ ...g, name: g.name }] : []));
}

/**
 * The typeahead menus of the compose box: under "@", "#", ":" in the message (composeTypeahead.ts
 * finds and completes the token) and the channel's recent topics in the topic field. Up/Down
 * choose, Tab/Enter insert, Esc closes.
 */
interface Menu {
  field: "message" | "topic";
  element: HTMLTextAreaElement | HTMLInputElement;
  token: Token | null;
  items: Suggestion[];
  index: number;
}
const menu = signal<Menu | null>(null);
/** After Esc, the menu stays closed until the text changes. */
let dismissedAt: string | null = null;

function close(): void {
  menu.value = null;
}

const fetchingTopics = new Set<number>();
function topicsOf(id: number, then: () => void): string[] {
  const known = channelTopics.value.get(id);
  if (known) return known.map((t) => t.name);
  if (!fetchingTopics.has(id)) {
    fetchingTopics.add(id);
    void api
      .get<TopicsResponse>(`/users/me/${id}/topics`)
      .then((result) => {
        const map = new Map(channelTopics.value);
        map.set(
          id,
          result.topics.map((t) => ({ name: t.name, max_id: t.max_id })),
        );
        channelTopics.value = map;
        then();
      })
      .catch(() => {})
      .finally(() => fetchingTopics.delete(id));
  }
  return [];
}

function suggestions(token: Token, again: () => void): Suggestion[] {
  switch (token.kind) {
    case "mention":
      return matchMentions(token.query, { people: users.value.values(), groups: mentionableGroups(), inChannel: dmTo.value === null, silent: token.silent });
    case "channel":
      return matchChannels(token.query, subscriptions.value.values());
    case "topic-link": {
      const id = lookup.channelIdByName(token.channel);
      if (id === undefined) return [];
      return matchTopics(token.query, topicsOf(id, again)).map((t) => ({ kind: "topic", channel: subscriptions.value.get(id)!.name, topic: t }));
    }
    case "emoji":
      if (!catalogue.value) {
        void loadCatalogue().then(again);
        return [];
      }
      return matchEmoji(token.query, catalogue.value);
  }
}

/** The message text or cursor changed: the menu for the token before the cursor, if any. */
export function updateMessageTypeahead(el: HTMLTextAreaElement): void {
  const before = el.value.slice(0, el.selectionStart);
  const token = el.selectionStart === el.selectionEnd ? findToken(before) : null;
  if (!token || dismissedAt === before) return close();
  dismissedAt = null;
  const items = suggestions(token, () => document.activeElement === el && updateMessageTypeahead(el));
  menu.value = items.length > 0 ? { field: "message", element: el, token, items, index: 0 } : null;
}

/** The topic field: the channel's topics (newest first) that match what is typed. */
export function updateTopicTypeahead(el: HTMLInputElement): void {
  const id = channelId.value;
  if (id === null || dismissedAt === `topic:${el.value}`) return close();
  dismissedAt = null;
  const topics = matchTopics(
    el.value,
    topicsOf(id, () => document.activeElement === el && updateTopicTypeahead(el)),
  );
  const items = topics.filter((t) => t !== el.value).map((t): Suggestion => ({ kind: "topic", channel: subscriptions.value.get(id)?.name ?? "", topic: t }));
  menu.value = items.length > 0 ? { field: "topic", element: el, token: null, items, index: 0 } : null;
}

export function closeTypeahead(): void {
  close();
}

function pick(index: number): void {
  const m = menu.value;
  const chosen = m?.items[index];
  if (!m || !chosen) return;
  close();
  if (m.field === "topic" && chosen.kind === "topic") {
    topic.value = chosen.topic;
    m.element.value = chosen.topic;
    m.element.focus();
    return;
  }
  if (!m.token) return;
  const el = m.element;
  const result = applyCompletion(el.value, el.selectionStart ?? el.value.length, m.token, completionText(m.token, chosen, users.value.values()));
  content.value = result.text;
  el.value = result.text;
  el.focus();
  el.selectionStart = el.selectionEnd = result.cursor;
  // "#**channel>" continues with the channel's topics.
  if (m.field === "message") updateMessageTypeahead(el as HTMLTextAreaElement);
}

/** Keys while a menu is open: true when the key was the menu's (and must not also send or close the compose box). */
export function typeaheadKeyDown(e: KeyboardEvent, field: Menu["field"]): boolean {
  const m = menu.value;
  if (!m || m.field !== field || e.isComposing) return false;
  const n = m.items.length;
  switch (e.key) {
    case "ArrowDown":
      menu.value = { ...m, index: (m.index + 1) % n };
      break;
    case "ArrowUp":
      menu.value = { ...m, index: (m.index - 1 + n) % n };
      break;
    case "Tab":
    case "Enter":
      if (e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return false;
      pick(m.index);
      break;
    case "Escape":
      dismissedAt = field === "topic" ? `topic:${m.element.value}` : m.element.value.slice(0, m.element.selectionStart ?? 0);
      close();
      break;
    default:
      return false;
  }
  e.preventDefault();
  e.stopPropagation();
  return true;
}

function Item({ item }: { item: Suggestion }) {
  switch (item.kind) {
    case "person":
      return (
        <>
          <span class="ta-name">{item.person.full_name}</span> <span class="ta-detail">{item.person.email}</span>
        </>
      );
    case "group":
      return (
        <>
          <span class="ta-name">{item.group.name}</span> <span class="ta-detail">{item.group.description}</span>
        </>
      );
    case "wildcard":
      return (
        <>
          <span class="ta-name">{item.name}</span> <span class="ta-detail">{item.description}</span>
        </>
      );
    case "channel":
      return <span class="ta-name">#{item.channel.name}</span>;
    case "topic":
      return <span class="ta-name">{item.topic || EMPTY_TOPIC_DISPLAY_NAME}</span>;
    case "emoji":
      return (
        <>
          <span class="ta-emoji">
            <EmojiGlyph {...item.emoji} />
          </span>{" "}
          <span class="ta-name">:{item.emoji.name}:</span>
        </>
      );
  }
}

function key(item: Suggestion): string {
  switch (item.kind) {
    case "person":
      return `p${item.person.user_id}`;
    case "group":
      return `g${item.group.id}`;
    case "wildcard":
      return `w${item.name}`;
    case "channel":
      return `c${item.channel.stream_id}`;
    case "topic":
      return `t${item.topic}`;
    case "emoji":
      return `e${item.emoji.type}${item.emoji.code}${item.emoji.name}`;
  }
}

/** The open menu, shown above its field (the compose box is at the bottom of the screen). */
export function TypeaheadMenu({ field }: { field: Menu["field"] }) {
  const m = menu.value;
  if (!m || m.field !== field) return null;
  return (
    <ul class={`compose-typeahead for-${field}`} role="listbox" aria-label="Suggestions">
      {m.items.map((item, i) => (
        <li
          key={key(item)}
          role="option"
          aria-selected={i === m.index}
          class={i === m.index ? "active" : ""}
          data-kind={item.kind}
          onMouseDown={(e) => (e.preventDefault(), pick(i))}
        >
          <Item item={item} />
        </li>
      ))}
    </ul>
  );
}
