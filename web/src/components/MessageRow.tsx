import { useState } from "preact/hooks";
import { widgetOf } from "../widgets.js";
import { withThumbnails } from "../lightbox/images.js";
import { Avatar } from "./Avatar.js";
import { Widget } from "./Widget.js";
import { type Message, settings } from "../state.js";
import { openUserCard } from "../userCard.js";
import { myUserId } from "../api.js";
import { retry, discard } from "../outbox.js";
import { editing, selectedId } from "../actions.js";
import { mutedUsers } from "../personal.js";
import { permalinkTarget, searchHighlight } from "../messages.js";
import { Actions, EditBox } from "./MessageActions.js";
import { Reactions } from "./Reactions.js";
import { isVisitor } from "../visitor.js";

const timeFormats = new Map<boolean, Intl.DateTimeFormat>();
/** Message times in the user's 12- or 24-hour style (twenty_four_hour_time). */
function timeFormat(): Intl.DateTimeFormat {
  const h24 = !!settings.value.twenty_four_hour_time;
  let format = timeFormats.get(h24);
  if (!format) timeFormats.set(h24, (format = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", hour12: !h24 })));
  return format;
}

/** One message: sender (when it starts a run), time, actions, content, reactions. */
export function MessageRow({ m, showSender, all }: { m: Message; showSender: boolean; all: Message[] }) {
  const [revealed, setRevealed] = useState(false);
  if (mutedUsers.value.includes(m.sender_id) && !revealed) return <MutedMessage m={m} showSender={showSender} reveal={() => setRevealed(true)} />;
  const unreadMark = !m.local && !m.flags.includes("read");
  const mentioned = m.flags.includes("mentioned") || m.flags.includes("wildcard_mentioned");
  const alerted = m.flags.includes("has_alert_word") && m.sender_id !== myUserId;
  return (
    // A click selects the message; from the keyboard, the arrow keys and j/k move the selection (keyboard.ts).
    <div
      role="presentation"
      class={`message ${showSender ? "first" : ""} ${mentioned ? "mentioned" : ""} ${alerted ? "alerted" : ""} ${m.local ? `local ${m.local.state}` : ""} ${selectedId.value === m.id ? "selected" : ""} ${permalinkTarget.value === m.id ? "permalink-target" : ""}`}
      data-id={m.id}
      data-unread={unreadMark ? "" : undefined}
      onClick={(ev) => !(ev.target as HTMLElement).closest("a, button, summary, textarea") && (selectedId.value = m.id)}
    >
      {showSender && (
        <div class="sender">
          <Avatar userId={m.sender_id} name={m.sender_full_name} onClick={(e) => openUserCard(m.sender_id, e.currentTarget)} />
          <button type="button" class="name" aria-haspopup="dialog" onClick={(e) => openUserCard(m.sender_id, e.currentTarget)}>
            {m.sender_full_name}
          </button>
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
      {!m.local && !isVisitor && <Actions m={m} all={all} />}
      {editing.value?.id === m.id ? (
        <EditBox id={m.id} />
      ) : widgetOf(m.submessages) ? (
        <Widget m={m} />
      ) : (
        <div class="content rendered_markdown" dangerouslySetInnerHTML={{ __html: withThumbnails(searchHighlight(m) ?? m.content) }} />
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
