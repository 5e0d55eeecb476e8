import { closeOverlay, overlayOpen } from "./overlay.js";
import { signal } from "@preact/signals";
import { selectedId, startEdit } from "./actions.js";
import { focusCompose, replyTo } from "./components/Compose.js";
import { narrowHash } from "./hash.js";
import { view } from "./messages.js";
import { lookup, unread } from "./state.js";

/** Zulip's basic keyboard shortcuts, listed under "?". */
export const SHORTCUTS: Array<[string, string]> = [
  ["↑ / k, ↓ / j", "Previous / next message"],
  ["r or Enter", "Reply to the selected message"],
  ["c", "New message in this conversation"],
  ["e", "Edit the selected message"],
  ["n", "Next unread topic"],
  ["d", "Drafts"],
  ["/", "Search"],
  ["Esc", "Close, cancel, leave the compose box"],
  ["?", "This list"],
];
export const showShortcuts = signal(false);

function move(step: number): void {
  const messages = view.value.messages.filter((m) => !m.local);
  if (messages.length === 0) return;
  const index = messages.findIndex((m) => m.id === selectedId.value);
  const next = messages[Math.max(0, Math.min(messages.length - 1, index === -1 ? messages.length - 1 : index + step))];
  selectedId.value = next.id;
  document.querySelector(`.message[data-id="${next.id}"]`)?.scrollIntoView({ block: "nearest" });
}

function nextUnreadTopic(): void {
  const current = location.hash;
  const rows = [...unread.conversations().values()].sort((a, b) => a.maxId - b.maxId);
  for (const { conversation: c } of rows) {
    const terms =
      c.kind === "channel"
        ? [
            { operator: "channel", operand: String(c.channelId), negated: false },
            { operator: "topic", operand: c.topic, negated: false },
          ]
        : [{ operator: "dm", operand: c.userIds.join(","), negated: false }];
    const hash = narrowHash(terms, lookup);
    if (hash !== current) return void (location.hash = hash);
  }
}

export function installKeyboard(): void {
  document.addEventListener("keydown", (e) => {
    const target = e.target as HTMLElement;
    const typing = target.closest("input, textarea, select, [contenteditable]");
    if (overlayOpen()) {
      // Settings and other overlays: no message-list shortcuts; Esc closes (after leaving a field).
      if (e.key === "Escape" && typing) (target as HTMLElement).blur();
      else if (e.key === "Escape" && !document.querySelector(".emoji-picker")) closeOverlay();
      return;
    }
    if (e.key === "Escape") {
      if (showShortcuts.value) showShortcuts.value = false;
      else if (typing) (target as HTMLElement).blur();
      else selectedId.value = null;
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    const selected = view.value.messages.find((m) => m.id === selectedId.value);
    const handlers: Record<string, () => void> = {
      ArrowUp: () => move(-1),
      k: () => move(-1),
      ArrowDown: () => move(1),
      j: () => move(1),
      r: () => (selected ? replyTo(selected) : focusCompose()),
      Enter: () => (selected ? replyTo(selected) : focusCompose()),
      c: () => focusCompose(),
      e: () => selected && void startEdit(selected),
      n: nextUnreadTopic,
      d: () => (location.hash = "#drafts"),
      "/": () => document.querySelector<HTMLInputElement>(".search input")?.focus(),
      "?": () => (showShortcuts.value = !showShortcuts.value),
    };
    const handler = handlers[e.key];
    if (!handler) return;
    e.preventDefault();
    handler();
  });
}
