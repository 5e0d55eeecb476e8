import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Message, settings } from "../state.js";
import { page, view } from "../messages.js";
import { markSeen } from "../reading.js";
import { markAlertWords, showEmoji } from "../messageDecorations.js";
import { alertWords, mutedUsers } from "../personal.js";
import { RecipientBar, recipientKey } from "./RecipientBar.js";
import { MessageRow } from "./MessageRow.js";

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });

/** At most this many messages are in the DOM; scrolling moves the window, then pages the history. */
export const WINDOW = 300;
const STEP = 100;
const EDGE_PX = 300;

export function MessageList() {
  const v = view.value;
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  /** The window: from the message with this id (null: the last WINDOW messages, following new ones). */
  const [startId, setStartId] = useState<number | null>(null);
  /** The first visible row and its distance from the top, kept in place when the window moves. */
  const keep = useRef<{ id: number; offset: number } | null>(null);
  const opened = useRef<unknown>(null);

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
    const id = wanted === null || wanted >= all.length - WINDOW ? null : all[wanted].id;
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
    setStartId(newStart >= all.length - WINDOW ? null : all[newStart].id);
  };

  const onScroll = (el: HTMLElement) => {
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
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
          if (index > 0) setStartId(now[Math.max(0, index - STEP)].id);
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
    if (row) el.scrollTop = row.offsetTop - kept!.offset;
    else if (v.anchorId !== null && el.dataset.opened !== String(v.anchorId)) {
      // First render of a view: its anchor message near the top, or the bottom when it is the newest.
      el.dataset.opened = String(v.anchorId);
      const anchor = el.querySelector<HTMLElement>(`.message[data-id="${v.anchorId}"]`);
      if (anchor && anchor.offsetTop + anchor.offsetHeight > el.clientHeight) el.scrollTop = Math.max(0, anchor.offsetTop - 80);
      else el.scrollTop = el.scrollHeight;
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    } else if (atBottom.current && startId === null) el.scrollTop = el.scrollHeight;
  }, [v.messages, start, settings.value.emojiset, alertWords.value, mutedUsers.value]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) if (entry.isIntersecting) markSeen(Number((entry.target as HTMLElement).dataset.id));
      },
      { root: el, threshold: 0.5 },
    );
    el.querySelectorAll(".message[data-unread]").forEach((row) => observer.observe(row));
    return () => observer.disconnect();
  }, [v.messages, start]);

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
  return (
    <div class="message-list" ref={scroller} data-first={shown[0]?.id} data-last={shown.at(-1)?.id} onScroll={(e) => onScroll(e.currentTarget)}>
      {v.loading && <p class="status">Loading…</p>}
      {v.error && <p class="status error">{v.error}</p>}
      {!v.loading && !v.error && all.length === 0 && <p class="status">No messages here yet.</p>}
      {!v.loading && all.length > 0 && (
        <p class="status edge">{moreAbove ? (v.paging ? "Loading older messages…" : "") : "This is the beginning of the conversation."}</p>
      )}
      {rows}
    </div>
  );
}
