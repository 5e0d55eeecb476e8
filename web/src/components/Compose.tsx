import "./Compose.css";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../../../src/contract/constants.js";
import { signal } from "@preact/signals";
import { focusCompose, focusField, moveTo, replyTo, routeConversation } from "../composeOpen.js";
import { useEffect, useRef } from "preact/hooks";
import { myUserId } from "../api.js";
import { type Destination, discard, retry, send, unsent } from "../outbox.js";
import { conversationOf, route, settings, subscriptions, typing, userName } from "../state.js";
import { conversationKey } from "../unread.js";
import { openEmojiPicker } from "../emojiPicker.js";
import { channelId, composeOpen, content, destination, destinationKey, dmTo, editingScheduled, topic } from "../composeState.js";
import { draftSent, noteDraftChange, saveDraftNow } from "../composeDrafts.js";
import { scheduledMessages } from "../composeData.js";
import { formatForKey } from "../composeFormat.js";
import { cancelScheduledEdit, scheduleCompose } from "../composeScheduled.js";
import { closeTypeahead, typeaheadKeyDown, TypeaheadMenu, updateMessageTypeahead, updateTopicTypeahead } from "./ComposeTypeahead.js";
import { FormatBar, formatCompose, Preview, preview, SendLaterButton } from "./ComposeTools.js";
import { notice, selectedId } from "../actions.js";
import { view } from "../messages.js";
import { formatScheduledTime } from "../sendLater.js";
import { mutedUsers } from "../personal.js";
import { noteTyping, stopTyping } from "../typing.js";
import { RecipientPills } from "./RecipientPills.js";
import { AttachButton, isDragging, pasteFiles, UploadProgress, useDropTarget } from "../upload/ComposeUploads.js";
import type { UploadTarget } from "../upload/uploads.js";

/**
 * The compose box, kept in signals outside the message view so that navigation, reconnection and
 * re-registration never lose what is typed. Closed by default, as Zulip's (a bar of buttons); its
 * destination follows the open conversation (followRoute).
 */
const error = signal("");

function hasText(): boolean {
  return content.value.trim() !== "";
}

/** Closes the compose box; what is typed stays, saved as the conversation's draft (composeDrafts.ts). */
function closeCompose(): void {
  if (!composeOpen.value) return;
  stopTyping();
  closeTypeahead();
  preview.value = null;
  error.value = "";
  if (editingScheduled.value === null) void saveDraftNow();
  composeOpen.value = false;
}

/**
 * Follows the open view, as Zulip's compose box does: a DM conversation opens the box for it; a
 * topic fills the destination (an open box for another channel, with nothing typed, closes); any
 * other view closes an empty box. A box with text keeps it: it moves to the new conversation's
 * destination only for a conversation view, and the text becomes the old one's draft.
 */
export function followRoute(): void {
  const c = routeConversation();
  preview.value = null;
  if (!c) {
    if (!hasText()) closeCompose();
    return;
  }
  if (c.kind === "dm") {
    moveTo(() => (dmTo.value = c.userIds));
    composeOpen.value = true;
    return;
  }
  const otherChannel = dmTo.value !== null || channelId.value !== c.channelId;
  if (composeOpen.value && !hasText() && (c.topic === null || otherChannel)) closeCompose();
  moveTo(() => {
    dmTo.value = null;
    channelId.value = c.channelId;
    if (c.topic !== null) topic.value = c.topic;
    else if (otherChannel) topic.value = "";
  });
}

/** Inserts text at the compose box's cursor (an emoji's :name:), with a space before it when needed. */
function insertText(el: HTMLTextAreaElement | null, text: string): void {
  const value = content.value;
  const start = el ? el.selectionStart : value.length;
  const end = el ? el.selectionEnd : value.length;
  const before = value.slice(0, start);
  const spaced = before === "" || /\s$/.test(before) ? text : ` ${text}`;
  content.value = before + spaced + value.slice(end);
  noteDraftChange();
  if (el) {
    el.value = content.value;
    el.focus();
    el.selectionStart = el.selectionEnd = start + spaced.length;
  }
}

function scheduledAt(id: number): number | undefined {
  return scheduledMessages.value.find((m) => m.scheduled_message_id === id)?.scheduled_delivery_timestamp;
}

function describe(d: Destination): string {
  return d.kind === "channel"
    ? `#${subscriptions.value.get(d.channelId)?.name ?? "?"} › ${d.topic || EMPTY_TOPIC_DISPLAY_NAME}`
    : d.userIds.map(userName).join(", ");
}

/** Messages that were not sent (also from before a reload), wherever the reader is: retry or discard. */
function Unsent() {
  const list = unsent.value;
  if (list.length === 0) return null;
  return (
    <div class="unsent" role="alert">
      <strong>{list.length === 1 ? "1 message not sent" : `${list.length} messages not sent`}</strong>
      <ul>
        {list.map((e) => (
          <li key={e.localId} data-local-id={e.localId}>
            <span class="to">{describe(e.destination)}:</span> <span class="text">{e.content.length > 80 ? `${e.content.slice(0, 80)}…` : e.content}</span>{" "}
            <span class="why">({e.error})</span>{" "}
            <button type="button" onClick={() => retry(e.localId)}>
              Retry
            </button>{" "}
            <button type="button" onClick={() => discard(e.localId)}>
              Discard
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Uploads write their links into the compose text. */
const uploadTarget: UploadTarget = {
  get: () => content.value,
  set: (text) => {
    content.value = text;
    composeOpen.value = true;
  },
  textarea: () => document.querySelector<HTMLTextAreaElement>(".compose textarea"),
};

export function Compose() {
  const textarea = useRef<HTMLTextAreaElement>(null);
  useDropTarget(uploadTarget);
  const dest = destination();
  const submit = () => {
    const d = destination();
    const text = content.value;
    if (!d) return void (error.value = "Choose a channel or a person first.");
    if (text.trim() === "") return;
    error.value = "";
    closeTypeahead();
    preview.value = null;
    if (editingScheduled.value !== null) {
      // Editing a scheduled message: the button saves it (PATCH), at its time.
      scheduleCompose(null).then(
        () => ((notice.value = "Scheduled message saved"), setTimeout(() => (notice.value = ""), 4000)),
        (e) => (error.value = (e as Error).message),
      );
      return;
    }
    content.value = "";
    stopTyping();
    draftSent();
    void send(d, text);
    textarea.current?.focus();
  };
  // Read while rendering, so a new route renders the box again and runs the effect below.
  const currentRoute = route.value;
  useEffect(() => {
    // Inbox, Recent conversations, the feed: a reading view, where an empty box closes (Zulip).
    const kind = currentRoute.kind;
    if ((kind === "inbox" || kind === "recent" || kind === "feed" || kind === "home") && !hasText()) closeCompose();
  }, [currentRoute]);
  if (!composeOpen.value) return <ClosedCompose />;
  const channels = [...subscriptions.value.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    // eslint-disable-next-line jsx-a11y-x/no-noninteractive-element-interactions -- Esc anywhere in the compose box closes it (Zulip); its controls keep their own keys
    <form
      class={`compose compose-open ${isDragging() ? "drop-target" : ""}`}
      aria-label="Compose"
      onSubmit={(e) => (e.preventDefault(), submit())}
      onKeyDown={(e) => {
        // Esc leaves the box closed, its text kept as a draft (a menu open inside takes Esc first).
        if (e.key !== "Escape" || e.defaultPrevented || document.querySelector(".emoji-picker, .send-later-menu, .snippets-menu")) return;
        e.preventDefault();
        closeCompose();
      }}
    >
      <Unsent />
      <Typing />
      <div class="destination">
        <select
          aria-label="Channel"
          value={dmTo.value !== null ? "dm" : (channelId.value ?? "")}
          onChange={(e) => {
            const v = e.currentTarget.value;
            if (v === "dm") {
              dmTo.value = [];
              setTimeout(() => focusField("recipient"), 0);
            } else {
              dmTo.value = null;
              channelId.value = Number(v) || null;
            }
            if (content.value) noteDraftChange();
          }}
        >
          <option value="">Channel…</option>
          <option value="dm">Direct message</option>
          {channels.map((s) => (
            <option key={s.stream_id} value={s.stream_id}>
              #{s.name}
            </option>
          ))}
        </select>
        {dmTo.value !== null ? (
          <RecipientPills />
        ) : (
          <span class="topic-field">
            <input
              aria-label="Topic"
              placeholder="Topic"
              value={topic.value}
              autocomplete="off"
              onInput={(e) => {
                topic.value = e.currentTarget.value;
                updateTopicTypeahead(e.currentTarget);
                if (content.value) noteDraftChange();
              }}
              onFocus={(e) => updateTopicTypeahead(e.currentTarget)}
              onBlur={closeTypeahead}
              onKeyDown={(e) => typeaheadKeyDown(e, "topic")}
              maxLength={60}
            />
            <TypeaheadMenu field="topic" />
          </span>
        )}
        <button type="button" class="compose-close" title="Close (Esc)" aria-label="Close the compose box" onClick={closeCompose}>
          ×
        </button>
      </div>
      {editingScheduled.value !== null && (
        <div class="editing-scheduled">
          Editing a scheduled message
          {(() => {
            const at = scheduledAt(editingScheduled.value);
            return at ? ` (${formatScheduledTime(at)})` : "";
          })()}
          <button type="button" class="link" onClick={cancelScheduledEdit}>
            cancel
          </button>
        </div>
      )}
      <FormatBar textarea={textarea} />
      <div class={`editor ${preview.value ? "previewing" : ""}`}>
        <TypeaheadMenu field="message" />
        <Preview />
        <textarea
          ref={textarea}
          aria-label="Message"
          placeholder={
            dest
              ? dest.kind === "channel"
                ? `Message #${subscriptions.value.get(dest.channelId)?.name ?? ""} > ${dest.topic || EMPTY_TOPIC_DISPLAY_NAME}`
                : `Message ${dest.userIds.map(userName).join(", ")}`
              : "Choose where to send"
          }
          value={content.value}
          rows={2}
          onInput={(e) => {
            content.value = e.currentTarget.value;
            noteTyping(destination(), content.value);
            noteDraftChange();
            updateMessageTypeahead(e.currentTarget);
          }}
          onClick={(e) => updateMessageTypeahead(e.currentTarget)}
          onBlur={closeTypeahead}
          onPaste={(e) => pasteFiles(e, uploadTarget)}
          onKeyDown={(e) => {
            if (typeaheadKeyDown(e, "message")) return;
            const format = formatForKey(e);
            if (format) return void (e.preventDefault(), formatCompose(e.currentTarget, format));
            if (e.key !== "Enter" || e.isComposing) return;
            const sends = settings.value.enter_sends ? !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey : e.ctrlKey || e.metaKey;
            if (sends) {
              e.preventDefault();
              submit();
            }
          }}
        />
        <button
          type="button"
          class="emoji-button"
          title="Add emoji"
          aria-label="Add emoji"
          onClick={(e) => openEmojiPicker(e.currentTarget, (emoji) => insertText(textarea.current, `:${emoji.name}:`))}
        >
          ☺
        </button>
        <AttachButton target={uploadTarget} />
        <span class="send-group">
          <button type="submit" class="send">
            {editingScheduled.value !== null ? "Save" : "Send"}
          </button>
          <SendLaterButton
            onError={(message) => (error.value = message)}
            onScheduled={(at) => {
              error.value = "";
              notice.value = at === null ? "Scheduled message saved" : `Scheduled for ${formatScheduledTime(at)}`;
              setTimeout(() => (notice.value = ""), 4000);
            }}
          />
        </span>
      </div>
      <UploadProgress />
      {error.value && (
        <div class="error" role="alert">
          {error.value}
        </div>
      )}
    </form>
  );
}

/** "X is typing…" for the conversation on screen (or the one the box is for), whether the box is open or not. */
function Typing() {
  const c = routeConversation();
  const dest = destination();
  const key =
    c && (c.kind === "dm" || c.topic !== null)
      ? conversationKey(c.kind === "dm" ? c : { kind: "channel", channelId: c.channelId, topic: c.topic ?? "" })
      : dest && composeOpen.value
        ? conversationKey(dest)
        : "";
  const typists = (typing.value.get(key) ?? []).filter((id) => id !== myUserId && !mutedUsers.value.includes(id));
  if (typists.length === 0) return null;
  return (
    <div class="typing" aria-live="polite">
      {typists.map(userName).join(", ")} {typists.length === 1 ? "is" : "are"} typing…
    </div>
  );
}

/**
 * The closed box, as Zulip's: reply to the conversation on screen (or, in a view of several, to
 * the selected message's), start a new one, or a new DM.
 */
function ClosedCompose() {
  const c = routeConversation();
  const selected = c ? undefined : view.value.messages.find((m) => m.id === selectedId.value && !m.local);
  let reply = "";
  if (c?.kind === "dm") reply = `Message ${c.userIds.map(userName).join(", ")}`;
  else if (c?.kind === "channel") {
    const name = subscriptions.value.get(c.channelId)?.name ?? "";
    reply = c.topic === null ? `Message #${name}` : `Message #${name} > ${c.topic || EMPTY_TOPIC_DISPLAY_NAME}`;
  } else if (selected) {
    const m = conversationOf(selected);
    reply =
      m.kind === "channel"
        ? `Message #${subscriptions.value.get(m.channelId)?.name ?? ""} > ${m.topic || EMPTY_TOPIC_DISPLAY_NAME}`
        : `Message ${m.userIds.map(userName).join(", ")}`;
  }
  return (
    <div class="compose compose-closed">
      <Unsent />
      <Typing />
      <div class="compose-buttons">
        {reply && (
          <button type="button" class="reply-button" onClick={() => (selected ? replyTo(selected) : focusCompose())}>
            <span class="reply-label">{reply}</span>
            {c && hasText() && destinationKey() === destinationKey(c.kind === "dm" ? c : { ...c, topic: c.topic ?? "" }) && (
              <span class="reply-draft"> (draft)</span>
            )}
          </button>
        )}
        <button
          type="button"
          class="new-topic-button"
          title="Start new conversation (c)"
          aria-label="Start new conversation"
          onClick={() => focusCompose("channel")}
        >
          <span class="icon" aria-hidden="true">
            +
          </span>
          <span class="label">Start new conversation</span>
        </button>
        <button type="button" class="new-dm-button" title="New direct message (x)" aria-label="New direct message" onClick={() => focusCompose("dm")}>
          <span class="icon" aria-hidden="true">
            ✉
          </span>
          <span class="label">New direct message</span>
        </button>
      </div>
    </div>
  );
}
