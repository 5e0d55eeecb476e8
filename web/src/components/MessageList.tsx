import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Message, settings } from "../state.js";
import { page, view, viewUnreadTotal } from "../messages.js";
import { markSeen, readingNow } from "../reading.js";
import { selectedId } from "../actions.js";
import { markAlertWords, showEmoji } from "../messageDecorations.js";
import { alertWords, mutedUsers } from "../personal.js";
import { RecipientBar, recipientKey } from "./RecipientBar.js";
import { MessageRow } from "./MessageRow.js";
import { UnreadCue, type UnreadOutside } from "./UnreadCue.js";

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });

/** At most this many messages are in the DOM; scrolling moves the window, then pages the history. */
export const WINDOW = 300;
const STEP = 100;
const EDGE_PX = 300;
/** Room left above the message a view opens at (its first unread, or a permalink's target). */
const CONTEXT_PX = 60;

export function MessageList() {
  const v = view.value;
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  /** The window: from the message with this id (null: the last WINDOW messages, following new ones). */
  const [startId, setStartId] = useState<number | null>(null);
  /** The first visible row and its distance from the top, kept in place when the window moves. */
  const keep = useRef<{ id: number; offset: number } | null>(null);
  const opened = useRef<unknown>(null);
  /** Whether the list already reached the newest message: then, at the bottom, it follows new ones. */
  const hadNewest = useRef(false);
  /** The part of the list (scrollTop to bottom edge) on screen at the last look, for what was scrolled past since. */
  const lastSeen = useRef<{ top: number; bottom: number } | null>(null);
  /** An unread message to bring into view once the window of rows has moved to it (the cue's click). */
  const pendingJump = useRef<number | null>(null);
  const [outside, setOutside] = useState<UnreadOutside>({ above: 0, below: 0, more: false });

  const all = v.messages;
  let start = startId === null ? -1 : all.findIndex((m) => m.id >= startId);
  if (start < 0 || start > Math.max(0, all.length - WINDOW)) start = Math.max(0, all.length - WINDOW);
  const end = Math.min(all.length, start + WINDOW);
  const shown = all.slice(start, end);

  // A newly opened view starts around its anchor (the first unread message, or `near`).
  if (!v.loading && opened.current !== v.terms) {
    opened.current = v.terms;
    const index = all.findIndex((m) => m.id === v.anchorId);
    const wanted = index < 0 ? null : Math.max(0, index - STEP / 2);
    const id = wanted === null || wanted >= all.length - WINDOW ? null : all[wanted]!.id;
    if (id !== startId) setStartId(id);
  }

  const firstVisible = (el: HTMLElement) => {
    for (const row of el.querySelectorAll<HTMLElement>(".message")) {
      if (row.offsetTop + row.offsetHeight > el.scrollTop) return { id: Number(row.dataset.id), offset: row.offsetTop - el.scrollTop };
    }
    return null;
  };

  const moveWindow = (el: HTMLElement, newStart: number) => {
    keep.current = firstVisible(el);
    setStartId(newStart >= all.length - WINDOW ? null : all[newStart]!.id);
  };

  /**
   * Reads what is on screen, and what was scrolled past since the last look (a fast scroll jumps
   * over rows that were never painted: Zulip counts them read too, as the reader went past them).
   * A row counts when all of it was within the part looked at, or when it fills half the screen
   * (a message taller than the screen). Then counts the unread messages left above and below.
   */
  const look = (el: HTMLElement, scrolled: boolean) => {
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
  };

  /** The unread messages of the view not (wholly) on screen, for the cue: those before the first row on it, and after the last. */
  const countOutside = (firstOnScreen: number | null, lastOnScreen: number | null) => {
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
  };

  /** Brings the oldest unread message above the screen (or the first below it) near the top. */
  const jumpToUnread = (direction: -1 | 1) => {
    const el = scroller.current;
    if (!el) return;
    const rows = [...el.querySelectorAll<HTMLElement>(".message[data-unread]")];
    const target =
      direction < 0
        ? rows.find((row) => row.offsetTop + row.offsetHeight <= el.scrollTop)
        : rows.find((row) => row.offsetTop >= el.scrollTop + el.clientHeight);
    if (target) {
      el.scrollTop = Math.max(0, target.offsetTop - CONTEXT_PX);
      selectedId.value = Number(target.dataset.id);
      look(el, false); // a jump: what it went over was not seen
      return;
    }
    // Not in the window of rows shown: move the window there first.
    const all = view.value.messages;
    const ids = all.filter((m) => !m.local && !m.flags.includes("read")).map((m) => m.id);
    const id = direction < 0 ? ids[0] : ids.find((i) => i > Number(el.dataset.last ?? 0));
    if (id !== undefined) {
      const index = all.findIndex((m) => m.id === id);
      pendingJump.current = id;
      setStartId(Math.max(0, index - STEP / 2) >= all.length - WINDOW ? null : all[Math.max(0, index - STEP / 2)]!.id);
    } else if (direction > 0 && !view.value.foundNewest) {
      el.scrollTop = el.scrollHeight;
      look(el, false);
    }
  };

  const onScroll = (el: HTMLElement) => {
    look(el, true);
    if (v.loading || v.paging) return;
    if (el.scrollTop < EDGE_PX) {
      if (start > 0) moveWindow(el, Math.max(0, start - STEP));
      else if (!v.foundOldest) {
        const firstShown = shown[0]?.id;
        keep.current = firstVisible(el);
        void page(-1).then(() => {
          // Show some of what came, above where the reader is.
          const now = view.value.messages;
          const index = now.findIndex((m) => m.id === firstShown);
          keep.current = firstVisible(el);
          if (index > 0) setStartId(now[Math.max(0, index - STEP)]!.id);
        });
      }
    } else if (el.scrollHeight - el.scrollTop - el.clientHeight < EDGE_PX) {
      if (end < all.length) moveWindow(el, Math.min(all.length - WINDOW, start + STEP));
      else if (!v.foundNewest) void page(1);
    }
  };

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (v.loading) delete el.dataset.opened;
    showEmoji(el, settings.value.emojiset === "text");
    el.querySelectorAll<HTMLElement>(".message.alerted .content").forEach((content) => markAlertWords(content, alertWords.value));
    const kept = keep.current;
    keep.current = null;
    const row = kept && el.querySelector<HTMLElement>(`.message[data-id="${kept.id}"]`);
    const jumpRow = pendingJump.current !== null && el.querySelector<HTMLElement>(`.message[data-id="${pendingJump.current}"]`);
    /** Whether this render put the list somewhere new (rather than the reader scrolling there). */
    let placed = true;
    if (jumpRow) {
      pendingJump.current = null;
      el.scrollTop = Math.max(0, jumpRow.offsetTop - CONTEXT_PX);
      selectedId.value = Number(jumpRow.dataset.id);
    } else if (row) el.scrollTop = row.offsetTop - kept.offset;
    else if (v.anchorId !== null && el.dataset.opened !== String(v.anchorId)) {
      // First render of a view: the newest message at the bottom when all is read; otherwise its
      // anchor (the first unread message, a permalink's target) near the top, and selected (Zulip).
      el.dataset.opened = String(v.anchorId);
      const anchor = el.querySelector<HTMLElement>(`.message[data-id="${v.anchorId}"]`);
      const anchored = v.terms.some((t) => t.operator === "near" || t.operator === "with");
      const newest = all.at(-1);
      const allRead = v.foundNewest && newest?.id === v.anchorId && !newest.local && newest.flags.includes("read");
      if (anchor && (anchored || !allRead)) el.scrollTop = Math.max(0, anchor.offsetTop - (anchored ? el.clientHeight / 3 : CONTEXT_PX));
      else el.scrollTop = el.scrollHeight;
      selectedId.value = v.anchorId;
    } else if (atBottom.current && startId === null && hadNewest.current) el.scrollTop = el.scrollHeight;
    else placed = false; // (newer history paged in below is scrolled to, not jumped over)
    hadNewest.current = v.foundNewest;
    // The rows now on screen. Placed somewhere new, nothing was scrolled past on the way; otherwise
    // (new rows below, flags changed) a scroll the scroll event has not reported yet was.
    look(el, !placed);
    // Signals are read while rendering, so their values here are this render's.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when the rows on screen change; the view's other fields and `look` are read, not triggers
  }, [v.messages, start, settings.value.emojiset, alertWords.value, mutedUsers.value]);

  const lookNow = useRef(look);
  lookNow.current = look;
  useEffect(() => {
    // A window coming back to the front (or a tab shown again) reads what it shows.
    const onFocus = () => scroller.current && lookNow.current(scroller.current, false);
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onFocus);
    return () => {
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
    };
  }, []);

  const rows: preact.JSX.Element[] = [];
  let prev: Message | null = null;
  for (const m of shown) {
    const day = dayFormat.format(new Date(m.timestamp * 1000));
    const newDay = !prev || dayFormat.format(new Date(prev.timestamp * 1000)) !== day;
    const newRecipient = !prev || recipientKey(prev) !== recipientKey(m);
    if (newDay)
      rows.push(
        <div key={`d${m.id}`} class="date-divider">
          <span>{day}</span>
        </div>,
      );
    if (newRecipient || newDay) rows.push(<RecipientBar key={`r${m.id}`} m={m} />);
    const showSender = newRecipient || newDay || prev!.sender_id !== m.sender_id || m.timestamp - prev!.timestamp > 600;
    rows.push(<MessageRow key={m.local ? m.local.localId : m.id} m={m} showSender={showSender} all={all} />);
    prev = m;
  }
  const moreAbove = start > 0 || !v.foundOldest;
  const cue = !v.loading && !v.error && all.length > 0 ? outside : { above: 0, below: 0, more: false };
  return (
    <div class="message-list" ref={scroller} data-first={shown[0]?.id} data-last={shown.at(-1)?.id} onScroll={(e) => onScroll(e.currentTarget)}>
      <UnreadCue where="above" outside={cue} onJump={() => jumpToUnread(-1)} />
      {v.loading && <p class="status">Loading…</p>}
      {v.error && <p class="status error">{v.error}</p>}
      {!v.loading && !v.error && all.length === 0 && <p class="status">No messages here yet.</p>}
      {!v.loading && all.length > 0 && (
        <p class="status edge">{moreAbove ? (v.paging ? "Loading older messages…" : "") : "This is the beginning of the conversation."}</p>
      )}
      {rows}
      <UnreadCue where="below" outside={cue} onJump={() => jumpToUnread(1)} />
    </div>
  );
}
