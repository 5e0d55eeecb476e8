import type { Conversation, UnreadIndex } from "./unread.js";

/**
 * The unread count of the browser tab's title, its favicon and Zulip's desktop app, per the
 * user's desktop_icon_count_display (Zulip's unread.calculate_notifiable_count and title.ts).
 */
const COUNT_DMS_MENTIONS_FOLLOWED = 2;
const COUNT_DMS_MENTIONS = 3;
const COUNT_NONE = 4;

interface ConversationState {
  /** A muted channel (topic not unmuted) or a muted topic: left out of "all unread messages". */
  muted(c: Conversation & { kind: "channel" }): boolean;
  followed(c: Conversation & { kind: "channel" }): boolean;
}

export function badgeCount(index: UnreadIndex, display: number, state: ConversationState): number {
  switch (display) {
    case COUNT_NONE:
      return 0;
    case COUNT_DMS_MENTIONS:
      return index.countWith((c, mentioned) => c.kind === "dm" || mentioned);
    case COUNT_DMS_MENTIONS_FOLLOWED:
      return index.countWith((c, mentioned) => c.kind === "dm" || mentioned || state.followed(c));
    default: // 1, all unread messages
      return index.countWith((c) => c.kind === "dm" || !state.muted(c));
  }
}

/** Zulip's "(3) #Verona > lunch - Zulip Dev - Zulip", with Parley's name. */
export function pageTitle(count: number, viewTitle: string, realmName: string): string {
  return `${count > 0 ? `(${count}) ` : ""}${viewTitle}${realmName ? ` - ${realmName}` : ""} - Parley`;
}

/** The favicon's badge text: 1–99 as is, then 99+ (Zulip writes 1K, 1M… in its own font). */
export function badgeText(count: number): string {
  return count <= 0 ? "" : count > 99 ? "99+" : String(count);
}
