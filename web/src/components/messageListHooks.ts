import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Term } from "../hash.js";
import type { Message } from "../state.js";
import { type View, view, viewUnreadTotal } from "../messages.js";
import { markSeen, readingNow } from "../reading.js";
import type { UnreadOutside } from "./UnreadCue.js";

/** At most this many messages are in the DOM; scrolling moves the window, then pages the history. */
export const WINDOW = 300;
export const STEP = 100;

/** The id a window starting at `index` is kept by (null: the last WINDOW messages, following new ones). */
export function windowStartId(all: readonly Message[], index: number): number | null {
  return index >= all.length - WINDOW ? null : all[index]!.id;
}

/** A newly opened view's window: around its anchor (the first unread message, or `near`). */
function openingStartId(all: readonly Message[], anchorId: number | null): number | null {
  const index = all.findIndex((m) => m.id === anchorId);
  return index < 0 ? null : windowStartId(all, Math.max(0, index - STEP / 2));
}

/**
 * The window of rows drawn out of the view's messages. A view opened (loaded) since the window
 * last moved starts around its anchor: derived while rendering, and kept by an effect (not by a
 * state change during render) so that later messages do not move it.
 */
export function useMessageWindow(v: View) {
  const [moved, setMoved] = useState<{ terms: readonly Term[] | null; startId: number | null }>({ terms: null, startId: null });
  const all = v.messages;
  const opening = !v.loading && moved.terms !== v.terms;
  const startId = opening ? openingStartId(all, v.anchorId) : moved.startId;
  useLayoutEffect(() => {
    if (opening) setMoved({ terms: v.terms, startId });
  }, [opening, v.terms, startId]);

  let start = startId === null ? -1 : all.findIndex((m) => m.id >= startId);
  if (start < 0 || start > Math.max(0, all.length - WINDOW)) start = Math.max(0, all.length - WINDOW);
  const end = Math.min(all.length, start + WINDOW);
  const terms = v.terms;
  /** Moves the window to start at this message (null: the newest WINDOW, following new ones). */
  const moveTo = useCallback((id: number | null) => setMoved({ terms, startId: id }), [terms]);
  return { all, startId, start, end, shown: all.slice(start, end), moveTo };
}

/**
 * Read-on-sight: `look` reads what is on screen, and what was scrolled past since the last look
 * (a fast scroll jumps over rows that were never painted: Zulip counts them read too, as the
 * reader went past them). A row counts when all of it was within the part looked at, or when it
 * fills half the screen (a message taller than the screen). Then it counts the unread messages
 * left above and below, for the cue (`outside`). It is called from effects and event handlers,
 * never while rendering; a window coming back to the front (or a tab shown again) looks too.
 */
export function useReadOnSight(scroller: { readonly current: HTMLDivElement | null }, atBottom: { current: boolean }) {
  /** The part of the list (scrollTop to bottom edge) on screen at the last look, for what was scrolled past since. */
  const lastSeen = useRef<{ top: number; bottom: number } | null>(null);
  const [outside, setOutside] = useState<UnreadOutside>({ above: 0, below: 0, more: false });

  /** The unread messages of the view not (wholly) on screen, for the cue: those before the first row on it, and after the last. */
  const countOutside = useCallback((firstOnScreen: number | null, lastOnScreen: number | null) => {
    const now = view.value;
    let above = 0;
    let below = 0;
    let unreadUpToScreen = 0;
    if (firstOnScreen === null || lastOnScreen === null) return setOutside({ above: 0, below: 0, more: false });
    for (const m of now.messages) {
      if (m.local || m.flags.includes("read")) continue;
      if (m.id < firstOnScreen) above++;
      else if (m.id > lastOnScreen) below++;
      if (m.id <= lastOnScreen) unreadUpToScreen++;
    }
    let more = false;
    if (!now.foundNewest) {
      // Unread messages newer than those loaded: the unread index knows how many, for a conversation.
      const total = viewUnreadTotal(now.terms);
      if (total === null) more = below > 0;
      else below = Math.max(below, total - unreadUpToScreen);
    }
    setOutside((o) => (o.above === above && o.below === below && o.more === more ? o : { above, below, more }));
  }, []);

  const look = useCallback(
    (el: HTMLElement, scrolled: boolean) => {
      const top = el.scrollTop;
      const bottom = top + el.clientHeight;
      const previous = scrolled ? lastSeen.current : null;
      lastSeen.current = { top, bottom };
      // Whether the list follows new messages at its next render (rows added below move this).
      atBottom.current = el.scrollHeight - bottom < 40;
      const reading = readingNow();
      const from = reading && previous ? Math.min(previous.top, top) : top;
      const to = reading && previous ? Math.max(previous.bottom, bottom) : bottom;
      // The first and last rows wholly on screen (or, for a message taller than it, in part).
      let first: number | null = null;
      let last: number | null = null;
      let firstPart: number | null = null;
      let lastPart: number | null = null;
      for (const row of el.querySelectorAll<HTMLElement>(".message[data-id]")) {
        const rowTop = row.offsetTop;
        const rowBottom = rowTop + row.offsetHeight;
        if (rowBottom > top && rowTop < bottom) {
          firstPart ??= Number(row.dataset.id);
          lastPart = Number(row.dataset.id);
          if (rowTop >= top - 1 && rowBottom <= bottom + 1) {
            first ??= Number(row.dataset.id);
            last = Number(row.dataset.id);
          }
        }
        if (!reading || row.dataset.unread === undefined || rowBottom <= from || rowTop >= to) continue;
        const whole = rowTop >= from - 1 && rowBottom <= to + 1;
        const fills = Math.min(rowBottom, bottom) - Math.max(rowTop, top) >= el.clientHeight / 2;
        if (whole || fills) markSeen(Number(row.dataset.id));
      }
      countOutside(first ?? firstPart, last ?? lastPart);
    },
    [atBottom, countOutside],
  );

  useEffect(() => {
    const onFocus = () => scroller.current && look(scroller.current, false);
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onFocus);
    return () => {
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
    };
  }, [scroller, look]);

  return { outside, look };
}
