import { useLayoutEffect, useRef } from "preact/hooks";
import { isVisitor } from "../visitor.js";
import { type Message, settings } from "../state.js";
import { page, view } from "../messages.js";
import { selectedId } from "../actions.js";
import { markAlertWords, showEmoji } from "../messageDecorations.js";
import { alertWords, mutedUsers } from "../personal.js";
import { RecipientBar, recipientKey } from "./RecipientBar.js";
import { MessageRow } from "./MessageRow.js";
import { UnreadCue } from "./UnreadCue.js";
import { STEP, useMessageWindow, useReadOnSight, WINDOW, windowStartId } from "./messageListHooks.js";

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });

const EDGE_PX = 300;
/** Room left above the message a view opens at (its first unread, or a permalink's target). */
const CONTEXT_PX = 60;

export function MessageList() {
  const v = view.value;
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  /** The first visible row and its distance from the top, kept in place when the window moves. */
  const keep = useRef<{ id: number; offset: number } | null>(null);
  /** Whether the list already reached the newest message: then, at the bottom, it follows new ones. */
  const hadNewest = useRef(false);
  /** An unread message to bring into view once the window of rows has moved to it (the cue's click). */
  const pendingJump = useRef<number | null>(null);
  const { all, startId, start, end, shown, moveTo } = useMessageWindow(v);
  const { outside, look } = useReadOnSight(scroller, atBottom);

  const firstVisible = (el: HTMLElement) => {
    for (const row of el.querySelectorAll<HTMLElement>(".message")) {
      if (row.offsetTop + row.offsetHeight > el.scrollTop) return { id: Number(row.dataset.id), offset: row.offsetTop - el.scrollTop };
    }
    return null;
  };

  const moveWindow = (el: HTMLElement, newStart: number) => {
    keep.current = firstVisible(el);
    moveTo(windowStartId(all, newStart));
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
      moveTo(windowStartId(all, Math.max(0, index - STEP / 2)));
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
          if (index > 0) moveTo(now[Math.max(0, index - STEP)]!.id);
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
      {/* A visitor's narrow outside the web-public channels is refused (Zulip's spectator wording). */}
      {v.error && <p class="status error">{isVisitor ? "This is not a publicly accessible conversation." : v.error}</p>}
      {!v.loading && !v.error && all.length === 0 && <p class="status">No messages here yet.</p>}
      {!v.loading && all.length > 0 && (
        <p class="status edge">{moreAbove ? (v.paging ? "Loading older messages…" : "") : "This is the beginning of the conversation."}</p>
      )}
      {rows}
      <UnreadCue where="below" outside={cue} onJump={() => jumpToUnread(1)} />
    </div>
  );
}
