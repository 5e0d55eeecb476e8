import { signal } from "@preact/signals";
import { myUserId } from "./api.js";
import { mutedUsers } from "./personal.js";
import type { Message } from "./state.js";

/**
 * What the page's polite live region says: new messages arriving in the open view, for people who
 * use a screen reader ("New message from Othello in #Verona > lunch"). Not one's own messages,
 * not muted senders', and not while the tab is in the background (notifications cover that).
 */
export const announcement = signal("");

export function announceMessage(message: Message): void {
  if (message.sender_id === myUserId || document.visibilityState !== "visible") return;
  // Only where a message list is shown (not under Inbox or Recent conversations).
  if (!document.querySelector("main .message-list")) return;
  if (mutedUsers.value.includes(message.sender_id)) return;
  const text =
    message.type === "stream"
      ? `New message from ${message.sender_full_name} in #${typeof message.display_recipient === "string" ? message.display_recipient : ""} > ${message.subject}`
      : `New direct message from ${message.sender_full_name}`;
  // The same words twice in a row are still a change (a trailing space), so they are read again.
  announcement.value = announcement.value === text ? `${text} ` : text;
}
