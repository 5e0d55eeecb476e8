import { api } from "./api.js";
import { view } from "./messages.js";
import { unread } from "./state.js";

/**
 * Messages become read when they are seen: shown in the list (MessageList decides what was on
 * screen, however briefly) while the page is visible and focused, except in search views (as in
 * Zulip). Batched into one POST per 300 ms.
 */
const queued = new Set<number>();
/** After "mark as unread", the view stops marking messages read until another view opens. */
let pausedTerms: unknown = null;

export function pauseReading(): void {
  pausedTerms = view.value.terms;
}
let timer: ReturnType<typeof setTimeout> | null = null;

/** Whether what the open view shows now is being read: a focused, visible window, not a search, not paused. */
export function readingNow(): boolean {
  if (document.visibilityState !== "visible" || !document.hasFocus()) return false;
  return !view.value.terms.some((t) => t.operator === "search") && pausedTerms !== view.value.terms;
}

export function markSeen(id: number): void {
  if (!unread.isUnread(id) || queued.has(id) || !readingNow()) return;
  queued.add(id);
  timer ??= setTimeout(flush, 300);
}

async function flush(): Promise<void> {
  timer = null;
  const ids = [...queued];
  queued.clear();
  if (ids.length === 0) return;
  unread.remove(ids);
  view.value = {
    ...view.value,
    messages: view.value.messages.map((m) => (ids.includes(m.id) && !m.flags.includes("read") ? { ...m, flags: [...m.flags, "read"] } : m)),
  };
  try {
    // Sent again until the server answers (a restart in between loses nothing: changeQueue.ts).
    await api.post("/messages/flags", { messages: ids, op: "add", flag: "read" });
  } catch {
    // refused: the server's unread state wins at the next registration
  }
}
