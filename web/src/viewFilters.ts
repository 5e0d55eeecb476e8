import { signal, type Signal } from "@preact/signals";
import { type ConversationFacts, type InboxView, RECENT_DEFAULTS } from "./conversationFilters.js";
import type { Term } from "./hash.js";
import { mutedUsers } from "./personal.js";
import { subscriptions, topicKey, userName, userTopics } from "./state.js";
import type { Conversation } from "./unread.js";

/** A view's filter choices kept in localStorage across visits (as Zulip keeps them): a signal saved on change. */
function storedSignal<T extends object>(key: string, defaults: T): Signal<T> {
  let initial = defaults;
  try {
    const saved = JSON.parse(localStorage.getItem(key) ?? "null") as unknown;
    if (saved && typeof saved === "object") initial = { ...defaults, ...(saved as Partial<T>) };
  } catch {
    // unreadable: the defaults
  }
  const state = signal(initial);
  state.subscribe((value) => {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch {
      // storage full or forbidden: kept for this page
    }
  });
  return state;
}

/** The Inbox's choices: which topics (Zulip's unmuted / all / followed views) and the folded folders. */
export const inboxChoices = storedSignal<{ view: InboxView; collapsed: string[] }>("parley.inbox", { view: "unmuted", collapsed: [] });
/** Recent conversations' filter buttons. */
export const recentChoices = storedSignal("parley.recent", RECENT_DEFAULTS);
/** The search boxes' text: for this page only. */
export const inboxSearch = signal("");
export const recentSearch = signal("");

/** What the filters need to know of channels, topics and people, read from the app's state. */
export function conversationFacts(): ConversationFacts {
  const subs = subscriptions.value;
  const policies = userTopics.value;
  const muted = mutedUsers.value;
  return {
    channelName: (id) => subs.get(id)?.name ?? "unknown channel",
    channelMuted: (id) => !!subs.get(id)?.is_muted,
    topicPolicy: (c) => policies.get(topicKey(c.channelId, c.topic)) ?? 0,
    dmNames: (ids) => ids.map(userName).join(", "),
    userMuted: (id) => muted.includes(id),
  };
}

/** The narrow of a conversation (a channel's topic, or a DM), for the links of the Inbox and Recent views. */
export function conversationTerms(c: Conversation): Term[] {
  return c.kind === "channel"
    ? [
        { operator: "channel", operand: String(c.channelId), negated: false },
        { operator: "topic", operand: c.topic, negated: false },
      ]
    : [{ operator: "dm", operand: c.userIds.join(","), negated: false }];
}
