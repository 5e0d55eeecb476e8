import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { lookup, type Message, subscriptions, userName } from "../state.js";
import { myUserId } from "../api.js";
import { narrowHash } from "../hash.js";
import { view } from "../messages.js";
import { retry, discard } from "../outbox.js";
import { markSeen } from "../reading.js";
import {
  copyLink, deleteMessage, editing, markUnreadFrom, QUICK_REACTIONS, quoteAndReply, saveEdit, selectedId, startEdit, toggleReaction, toggleStar,
} from "../actions.js";
import { dmPeople } from "../unread.js";

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });

function recipientKey(m: Message): string {
  return m.type === "stream" ? `c:${m.stream_id}:${m.subject.toLowerCase()}` : `dm:${dmPeople(Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [], myUserId).join(",")}`;
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
        const glyph = g.type === "unicode_emoji" ? String.fromCodePoint(...g.code.split("-").map((h) => parseInt(h, 16))) : `:${g.name}:`;
        return (
          <button type="button" key={g.code} class={`reaction ${g.users.includes(myUserId) ? "mine" : ""}`} title={`${g.users.map(userName).join(", ")} reacted with :${g.name}:`} onClick={() => toggleReaction(m, g.name, g.code, g.type)}>
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
        <button type="button" key={name} title={`React with :${name}:`} onClick={() => toggleReaction(m, name)}>{glyph}</button>
      ))}
      <button type="button" title={m.flags.includes("starred") ? "Unstar" : "Star"} class="star-action" onClick={() => toggleStar(m)}>{m.flags.includes("starred") ? "★" : "☆"}</button>
      <details class="more">
        <summary title="More actions">⋯</summary>
        <div class="menu">
          <button type="button" onClick={() => quoteAndReply(m)}>Quote and reply</button>
          <button type="button" onClick={() => copyLink(m)}>Copy link to message</button>
          <button type="button" onClick={() => markUnreadFrom(m, all)}>Mark as unread from here</button>
          {QUICK_REACTIONS.slice(3).map(([name, glyph]) => (
            <button type="button" key={name} onClick={() => toggleReaction(m, name)}>{glyph} React :{name}:</button>
          ))}
          {own && <button type="button" onClick={() => startEdit(m)}>Edit message</button>}
          {own && <button type="button" class="danger" onClick={() => deleteMessage(m)}>Delete message</button>}
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
      <button type="submit">Save</button> <button type="button" onClick={() => (editing.value = null)}>Cancel</button>
    </form>
  );
}

/**
 * The server writes a Unicode emoji as `<span class="emoji emoji-1f389">:tada:</span>` (Zulip's
 * web app draws it from a sprite sheet); the app shows the character itself instead.
 */
function showUnicodeEmoji(root: HTMLElement): void {
  root.querySelectorAll<HTMLElement>(".content span.emoji").forEach((span) => {
    const code = /\bemoji-([0-9a-f]+(?:-[0-9a-f]+)*)\b/.exec(span.className)?.[1];
    if (!code || !span.textContent?.startsWith(":")) return;
    try {
      span.textContent = String.fromCodePoint(...code.split("-").map((hex) => parseInt(hex, 16)));
    } catch {
      // not a code point: keep the name
    }
  });
}

export function MessageList() {
  const v = view.value;
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    showUnicodeEmoji(el);
    if (atBottom.current) el.scrollTop = el.scrollHeight;
  }, [v.messages]);
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
  }, [v.messages]);

  const rows: preact.JSX.Element[] = [];
  let prev: Message | null = null;
  for (const m of v.messages) {
    const day = dayFormat.format(new Date(m.timestamp * 1000));
    const newDay = !prev || dayFormat.format(new Date(prev.timestamp * 1000)) !== day;
    const newRecipient = !prev || recipientKey(prev) !== recipientKey(m);
    if (newDay) rows.push(<div key={`d${m.id}`} class="date-divider"><span>{day}</span></div>);
    if (newRecipient || newDay) rows.push(<RecipientBar key={`r${m.id}`} m={m} />);
    const showSender = newRecipient || newDay || prev!.sender_id !== m.sender_id || m.timestamp - prev!.timestamp > 600;
    const unreadMark = !m.local && !m.flags.includes("read");
    const mentioned = m.flags.includes("mentioned") || m.flags.includes("wildcard_mentioned");
    rows.push(
      <div
        key={m.local ? m.local.localId : m.id}
        class={`message ${showSender ? "first" : ""} ${mentioned ? "mentioned" : ""} ${m.local ? `local ${m.local.state}` : ""} ${selectedId.value === m.id ? "selected" : ""}`}
        data-id={m.id}
        data-unread={unreadMark ? "" : undefined}
        onClick={(ev) => !(ev.target as HTMLElement).closest("a, button, summary, textarea") && (selectedId.value = m.id)}
      >
        {showSender && (
          <div class="sender">
            <span class="avatar" aria-hidden="true">{m.sender_full_name.slice(0, 1)}</span>
            <span class="name">{m.sender_full_name}</span>
          </div>
        )}
        <time class="time" dateTime={new Date(m.timestamp * 1000).toISOString()}>{timeFormat.format(new Date(m.timestamp * 1000))}</time>
        {m.flags.includes("starred") && <span class="star" title="Starred">★</span>}
        {!m.local && <Actions m={m} all={v.messages} />}
        {editing.value?.id === m.id ? <EditBox id={m.id} /> : <div class="content rendered_markdown" dangerouslySetInnerHTML={{ __html: m.content }} />}
        {m.last_edit_timestamp && <span class="edited">(edited)</span>}
        <Reactions m={m} />
        {m.local?.state === "failed" && (
          <div class="send-failed" role="alert">
            Not sent: {m.local.error} <button onClick={() => retry(m.local!.localId)}>Retry</button> <button onClick={() => discard(m.local!.localId)}>Discard</button>
          </div>
        )}
      </div>,
    );
    prev = m;
  }
  return (
    <div
      class="message-list"
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {v.loading && <p class="status">Loading…</p>}
      {v.error && <p class="status error">{v.error}</p>}
      {!v.loading && !v.error && v.messages.length === 0 && <p class="status">No messages here yet.</p>}
      {rows}
    </div>
  );
}
