import { VisibilityPolicy } from "../../src/contract/constants.js";
import { computed } from "@preact/signals";
import { isMutedConversation } from "./conversationFilters.js";
import { settings, unread } from "./state.js";
import { type Conversation, conversationKey } from "./unread.js";
import { badgeCount } from "./unreadBadge.js";
import { conversationFacts } from "./viewFilters.js";

/**
 * The unread counts the views show, derived from the unread index (reactive, unread.ts) and the
 * state that decides what counts (subscriptions and their muting, topic visibility, muted users,
 * the user's settings): computed once per change, whichever views read them.
 */

/** Unread counts per conversation key, with a sample conversation and the newest id each (Inbox, Recent, the sidebar, N and P). */
export const unreadConversations = computed(() => unread.conversations());

/** The unread count of one conversation (a topic compares case-insensitively). */
export function unreadIn(c: Conversation): number {
  return unreadConversations.value.get(conversationKey(c))?.count ?? 0;
}

export const unreadMentions = computed(() => unread.countMentions());

/**
 * The sidebar's counts, as Zulip counts them: a muted topic, or a topic of a muted channel that is
 * not unmuted or followed, counts neither in its channel's count nor in the views' totals.
 */
export const sidebarUnread = computed(() => {
  const facts = conversationFacts();
  let total = 0;
  const byChannel = new Map<number, number>();
  const byDm = new Map<string, number>();
  for (const { conversation, count } of unreadConversations.value.values()) {
    if (conversation.kind === "channel") {
      if (isMutedConversation(conversation, facts)) continue;
      byChannel.set(conversation.channelId, (byChannel.get(conversation.channelId) ?? 0) + count);
      total += count;
    } else {
      const key = conversation.userIds.join(",");
      byDm.set(key, (byDm.get(key) ?? 0) + count);
      total += count;
    }
  }
  return { total, byChannel, byDm };
});

/** The count of the tab's title, its favicon and Zulip's desktop app, per desktop_icon_count_display. */
export const badgeUnread = computed(() => {
  const facts = conversationFacts();
  return badgeCount(unread, Number(settings.value.desktop_icon_count_display ?? 1), {
    // A followed topic of a muted channel counts too, as an unmuted one (Zulip's is_muted_conversation).
    muted: (c) => isMutedConversation(c, facts),
    followed: (c) => facts.topicPolicy(c) === VisibilityPolicy.FOLLOWED,
  });
});

/** Whether any direct message is unread (the favicon's mark). */
export const unreadDms = computed(() => unread.count((c) => c.kind === "dm") > 0);
