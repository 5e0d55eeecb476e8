import { widgetOf } from "../widgets.js";
import { withThumbnails } from "../lightbox/images.js";
import { Avatar } from "./Avatar.js";
import { Widget } from "./Widget.js";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { lookup, type Message, settings, subscriptions, topicKey, userName, userTopics, VISIBILITY_FOLLOWED } from "../state.js";
import { openUserCard } from "../userCard.js";
import { canRenameTopic, canResolve, canMoveChannel, isResolved } from "../permissions.js";
import { openTopicDialog, setFollowed, toggleResolved } from "../topicEdit.js";
import { openEmojiPicker } from "../emojiPicker.js";
import { EmojiGlyph } from "./EmojiGlyph.js";
import { myUserId } from "../api.js";
import { narrowHash } from "../hash.js";
import { page, view } from "../messages.js";
import { retry, discard } from "../outbox.js";
import { markSeen } from "../reading.js";
import {
  copyLink,
  deleteMessage,
  editing,
  markUnreadFrom,
  QUICK_REACTIONS,
  quoteAndReply,
  saveEdit,
  selectedId,
  startEdit,
  toggleReaction,
  toggleStar,
} from "../actions.js";
import { dmPeople } from "../unread.js";
import { markAlertWords, showEmoji } from "../messageDecorations.js";
import { alertWords, mutedUsers } from "../personal.js";

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });
const timeFormats = new Map<boolean, Intl.DateTimeFormat>();
/** Message times in the user's 12- or 24-hour style (twenty_four_hour_time). */
function timeFormat(): Intl.DateTimeFormat {
  const h24 = !!settings.value.twenty_four_hour_time;
  let format = timeFormats.get(h24);
  if (!format) timeFormats.set(h24, (format = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", hour12: !h24 })));
  return format;
}

function recipientKey(m: Message): string {
  return m.type === "stream"
    ? `c:${m.stream_id}:${m.subject.toLowerCase()}`
    : `dm:${dmPeople(Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [], myUserId).join(",")}`;
}

function RecipientBar({ m }: { m: Message }) {
  if (m.type === "stream") {
    const sub = subscriptions.value.get(m.stream_id!);
    const name = sub?.name ?? (typeof m.display_recipient === "string" ? m.display_recipient : "");
    const channelTerm = { operator: "channel", operand: String(m.stream_id), negated: false };
    return (
      <div class="recipient-bar" style={{ borderColor: sub?.color ?? "#999" }}>
        <a class="channel" href={narrowHash([channelTerm], lookup)}>
          #{name}
        </a>
        <span class="sep">›</span>
        <a class="topic" href={narrowHash([channelTerm, { operator: "topic", operand: m.subject, negated: false }], lookup)}>
          {m.subject === "" ? <i>general chat</i> : m.subject}
        </a>
        <TopicButtons m={m} />
      </div>
    );
  }
  const ids = dmPeople(Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [], myUserId);
  return (
    <div class="recipient-bar dm">
      <a href={narrowHash([{ operator: "dm", operand: ids.join(","), negated: false }], lookup)}>You and {ids.map(userName).join(", ")}</a>
    </div>
  );
}

/** Resolve, move and follow, on a topic's recipient bar (what the organization allows). */
function TopicButtons({ m }: { m: Message }) {
  const resolved = isResolved(m.subject);
  const followed = userTopics.value.get(topicKey(m.stream_id!, m.subject)) === VISIBILITY_FOLLOWED;
  return (
    <span class="topic-buttons">
      {canResolve() && (
        <button
          type="button"
          class={`resolve ${resolved ? "on" : ""}`}
          title={resolved ? "Mark as unresolved" : "Mark as resolved"}
          onClick={() => void toggleResolved(m)}
        >
          ✔
        </button>
      )}
      {(canRenameTopic(m.timestamp) || canMoveChannel(m.timestamp)) && (
        <button type="button" class="move-topic" title="Move topic" onClick={() => openTopicDialog(m, "change_all")}>
          ✎
        </button>
      )}
      <button
        type="button"
        class={`follow ${followed ? "on" : ""}`}
        title={followed ? "Unfollow topic" : "Follow topic"}
        aria-pressed={followed}
        onClick={() => setFollowed(m.stream_id!, m.subject, !followed)}
      >
        ◉
      </button>
    </span>
  );
}

function Reactions({ m }: { m: Message }) {
  if (m.reactions.length === 0) return null;
  const groups = new Map<string, { name: string; code: string; type: string; users: number[] }>();
  for (const r of m.reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const g = groups.get(key) ?? { name: r.emoji_name, code: r.emoji_code, type: r.reaction_type, users: [] };
    g.users.push(r.user_id);
    groups.set(key, g);
  }
  return (
    <div class="reactions">
      {[...groups.values()].map((g) => {
        const glyph = settings.value.emojiset === "text" ? `:${g.name}:` : <EmojiGlyph name={g.name} code={g.code} type={g.type} />;
        return (
          <button
            type="button"
            key={g.code}
            class={`reaction ${g.users.includes(myUserId) ? "mine" : ""}`}
            title={`${g.users.map(userName).join(", ")} reacted with :${g.name}:`}
            onClick={() => toggleReaction(m, g.name, g.code, g.type)}
          >
            {glyph} <span class="n">{g.users.length}</span>
          </button>
        );
      })}
    </div>
  );
}

function Actions({ m, all }: { m: Message; all: Message[] }) {
  const own = m.sender_id === myUserId;
  return (
    <div class="actions" role="toolbar" aria-label="Message actions">
      {QUICK_REACTIONS.slice(0, 3).map(([name, glyph]) => (
        <button type="button" key={name} title={`React with :${name}:`} onClick={() => toggleReaction(m, name)}>
          {glyph}
        </button>
      ))}
      <button
        type="button"
        class="emoji-action"
        title="Add emoji reaction"
        onClick={(e) => openEmojiPicker(e.currentTarget, (emoji) => toggleReaction(m, emoji.name, emoji.code, emoji.type))}
      >
        ☺+
      </button>
      <button type="button" title={m.flags.includes("starred") ? "Unstar" : "Star"} class="star-action" onClick={() => toggleStar(m)}>
        {m.flags.includes("starred") ? "★" : "☆"}
      </button>
      <details class="more">
        <summary title="More actions">⋯</summary>
        <div class="menu">
          <button type="button" onClick={() => quoteAndReply(m)}>
            Quote and reply
          </button>
          <button type="button" onClick={() => copyLink(m)}>
            Copy link to message
          </button>
          <button type="button" onClick={() => markUnreadFrom(m, all)}>
            Mark as unread from here
          </button>
          {QUICK_REACTIONS.slice(3).map(([name, glyph]) => (
            <button type="button" key={name} onClick={() => toggleReaction(m, name)}>
              {glyph} React :{name}:
            </button>
          ))}
          <button type="button" onClick={(e) => openEmojiPicker(e.currentTarget, (emoji) => toggleReaction(m, emoji.name, emoji.code, emoji.type))}>
            Add emoji reaction…
          </button>
          {own && (
            <button type="button" onClick={() => startEdit(m)}>
              Edit message
            </button>
          )}
          {m.type === "stream" && (canRenameTopic(m.timestamp) || canMoveChannel(m.timestamp)) && (
            <button type="button" onClick={() => openTopicDialog(m, "change_one")}>
              Move message…
            </button>
          )}
          {own && (
            <button type="button" class="danger" onClick={() => deleteMessage(m)}>
              Delete message
            </button>
          )}
        </div>
      </details>
    </div>
  );
}

function EditBox({ id }: { id: number }) {
  const e = editing.value!;
  return (
    <form class="edit" onSubmit={(ev) => (ev.preventDefault(), saveEdit())}>
      <textarea
        aria-label="Edit message"
        value={e.content}
        rows={3}
        ref={(el) => el?.focus()}
        onInput={(ev) => (editing.value = { id, content: ev.currentTarget.value })}
        onKeyDown={(ev) => {
          if (ev.key === "Escape") editing.value = null;
          if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) (ev.preventDefault(), saveEdit());
        }}
      />
      <button type="submit">Save</button>{" "}
      <button type="button" onClick={() => (editing.value = null)}>
        Cancel
      </button>
    </form>
  );
}

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

function MessageRow({ m, showSender, all }: { m: Message; showSender: boolean; all: Message[] }) {
  const [revealed, setRevealed] = useState(false);
  if (mutedUsers.value.includes(m.sender_id) && !revealed) return <MutedMessage m={m} showSender={showSender} reveal={() => setRevealed(true)} />;
  const unreadMark = !m.local && !m.flags.includes("read");
  const mentioned = m.flags.includes("mentioned") || m.flags.includes("wildcard_mentioned");
  const alerted = m.flags.includes("has_alert_word") && m.sender_id !== myUserId;
  return (
    <div
      class={`message ${showSender ? "first" : ""} ${mentioned ? "mentioned" : ""} ${alerted ? "alerted" : ""} ${m.local ? `local ${m.local.state}` : ""} ${selectedId.value === m.id ? "selected" : ""}`}
      data-id={m.id}
      data-unread={unreadMark ? "" : undefined}
      onClick={(ev) => !(ev.target as HTMLElement).closest("a, button, summary, textarea") && (selectedId.value = m.id)}
    >
      {showSender && (
        <div class="sender">
          <Avatar userId={m.sender_id} name={m.sender_full_name} onClick={(e) => openUserCard(m.sender_id, e.currentTarget)} />
          <span class="name" role="button" tabIndex={0} onClick={(e) => openUserCard(m.sender_id, e.currentTarget)}>
            {m.sender_full_name}
          </span>
        </div>
      )}
      <time class="time" dateTime={new Date(m.timestamp * 1000).toISOString()}>
        {timeFormat().format(new Date(m.timestamp * 1000))}
      </time>
      {m.flags.includes("starred") && (
        <span class="star" title="Starred">
          ★
        </span>
      )}
      {!m.local && <Actions m={m} all={all} />}
      {editing.value?.id === m.id ? (
        <EditBox id={m.id} />
      ) : widgetOf(m.submessages) ? (
        <Widget m={m} />
      ) : (
        <div class="content rendered_markdown" dangerouslySetInnerHTML={{ __html: withThumbnails(m.content) }} />
      )}
      {m.last_edit_timestamp && <span class="edited">(edited)</span>}
      <Reactions m={m} />
      {m.local?.state === "failed" && (
        <div class="send-failed" role="alert">
          Not sent: {m.local.error} <button onClick={() => retry(m.local!.localId)}>Retry</button>{" "}
          <button onClick={() => discard(m.local!.localId)}>Discard</button>
        </div>
      )}
    </div>
  );
}

/** A muted user's message: hidden until clicked (Zulip's "message from a muted user"). */
function MutedMessage({ m, showSender, reveal }: { m: Message; showSender: boolean; reveal: () => void }) {
  return (
    <div class={`message muted-sender ${showSender ? "first" : ""}`} data-id={m.id}>
      {showSender && (
        <div class="sender">
          <span class="avatar" aria-hidden="true">
            ?
          </span>
          <span class="name">Muted user</span>
        </div>
      )}
      <time class="time" dateTime={new Date(m.timestamp * 1000).toISOString()}>
        {timeFormat().format(new Date(m.timestamp * 1000))}
      </time>
      <button type="button" class="reveal-muted" onClick={reveal}>
        Message from a muted user. Click to reveal.
      </button>
    </div>
  );
}
