/**
 * The shortcuts the "?" list shows, grouped as Zulip's keyboard shortcuts overlay groups them.
 * Each row: its keys (alternatives, each a combination of keys) and what they do. Keep it in step
 * with the handlers in keyboard.ts: every key handled there is listed here.
 */
import { signal } from "@preact/signals";

/** Whether the "?" list is shown (the ? key, the desktop app's menu). */
export const showShortcuts = signal(false);

interface ShortcutRow {
  keys: string[][];
  what: string;
}
interface ShortcutGroup {
  title: string;
  rows: ShortcutRow[];
}

const k = (...alternatives: string[]): string[][] => alternatives.map((a) => a.split(" + "));

export const SHORTCUT_GROUPS: ShortcutGroup[] = [
  {
    title: "The basics",
    rows: [
      { keys: k("R", "Enter"), what: "Reply to message" },
      { keys: k("C"), what: "New channel message" },
      { keys: k("X"), what: "New direct message" },
      { keys: k("Esc", "Ctrl + ["), what: "Close what is open, leave a field, go to your home view" },
      { keys: k("D"), what: "View drafts" },
      { keys: k("N"), what: "Next unread topic" },
      { keys: k("Shift + N"), what: "Next unread followed topic" },
      { keys: k("P"), what: "Next unread direct message" },
      { keys: k("?"), what: "Toggle keyboard shortcuts view" },
    ],
  },
  {
    title: "Search",
    rows: [
      { keys: k("/", "Ctrl + K"), what: "Search messages" },
      { keys: k("Q"), what: "Filter channels" },
      { keys: k("W"), what: "Filter users" },
    ],
  },
  {
    title: "Scrolling",
    rows: [
      { keys: k("↑", "K"), what: "Previous message" },
      { keys: k("↓", "J"), what: "Next message" },
      { keys: k("PgUp", "Shift + K"), what: "Scroll up" },
      { keys: k("PgDn", "Shift + J", "Space"), what: "Scroll down" },
      { keys: k("Home"), what: "First message" },
      { keys: k("End", "Shift + G"), what: "Last message" },
    ],
  },
  {
    title: "Navigation",
    rows: [
      { keys: k("S"), what: "Go to the topic or direct message conversation, or from a topic to its channel" },
      { keys: k("Z"), what: "Zoom to message in conversation context" },
      { keys: k("Shift + A", "Shift + D"), what: "Previous / next channel" },
      { keys: k("Shift + I"), what: "Go to inbox" },
      { keys: k("T"), what: "Go to recent conversations" },
      { keys: k("A"), what: "Go to combined feed" },
      { keys: k("Shift + P"), what: "Go to direct message feed" },
      { keys: k("*"), what: "Go to starred messages" },
      { keys: k("↑", "↓", "K", "J"), what: "Previous / next conversation in the inbox or recent conversations" },
      { keys: k("←", "→", "H", "L"), what: "Previous / next button of that conversation's row" },
    ],
  },
  {
    title: "Composing messages",
    rows: [
      { keys: k("C"), what: "New channel message (new topic)" },
      { keys: k("X"), what: "New direct message" },
      { keys: k("R", "Enter"), what: "Reply to message" },
      { keys: k(">"), what: "Quote message" },
      { keys: k("Shift + R"), what: "Reply directly to sender" },
      { keys: k("@"), what: "Reply @-mentioning sender" },
      { keys: k("↑", "←"), what: "Edit your last message (in an empty compose box)" },
    ],
  },
  {
    title: "Message actions",
    rows: [
      { keys: k("←"), what: "Edit your last message" },
      { keys: k("E"), what: "Edit message" },
      { keys: k("U"), what: "Show sender's user card" },
      { keys: k("V"), what: "View image" },
      { keys: k("M"), what: "Move message" },
      { keys: k("Ctrl + S"), what: "Star message" },
      { keys: k("+"), what: "React with 👍" },
      { keys: k("="), what: "Toggle first emoji reaction" },
      { keys: k("Shift + U"), what: "Mark as unread from selected message" },
      { keys: k("Shift + H"), what: "View edit history" },
      { keys: k("Shift + V"), what: "View read receipts" },
      { keys: k("Shift + M"), what: "Toggle topic mute" },
    ],
  },
  {
    title: "Menus",
    rows: [
      { keys: k("?"), what: "Toggle shortcuts help" },
      { keys: k(":"), what: "Toggle emoji reactions menu" },
      { keys: k("I"), what: "Toggle message actions menu" },
    ],
  },
];
