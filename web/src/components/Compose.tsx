import { signal } from "@preact/signals";
import { useRef } from "preact/hooks";
import { myUserId } from "../api.js";
import { type Destination, discard, retry, send, unsent } from "../outbox.js";
import { type Message, route, settings, subscriptions, typing, userName, users } from "../state.js";
import { conversationKey } from "../unread.js";
import { api } from "../api.js";
import { openEmojiPicker } from "../emojiPicker.js";
import { channelId, content, destination, dmTo, editingScheduled, topic } from "../composeState.js";
import { draftSent, noteDraftChange, switchConversation } from "../composeDrafts.js";
import { scheduledMessages } from "../composeData.js";
import { formatForKey } from "../composeFormat.js";
import { cancelScheduledEdit, scheduleCompose } from "../composeScheduled.js";
import { closeTypeahead, typeaheadKeyDown, TypeaheadMenu, updateMessageTypeahead, updateTopicTypeahead } from "./ComposeTypeahead.js";
import { FormatBar, formatCompose, Preview, preview, SendLaterButton } from "./ComposeTools.js";
import { notice } from "../actions.js";
import { formatScheduledTime } from "../sendLater.js";
import { mutedUsers } from "../personal.js";
import { AttachButton, isDragging, pasteFiles, UploadProgress, useDropTarget } from "../upload/ComposeUploads.js";
import type { UploadTarget } from "../upload/uploads.js";

/**
 * The compose box, kept in signals outside the message view so that navigation, reconnection and
 * re-registration never lose what is typed. The destination follows the open narrow.
 */
const error = signal("");
const dmListed = signal(false);

/** Follows the open view: a topic or channel fills the destination, a DM the recipients. */
export function followRoute(): void {
  const r = route.value;
  if (r.kind !== "narrow") return;
  const channel = r.terms.find((t) => t.operator === "channel" && !t.negated);
  const topicTerm = r.terms.find((t) => t.operator === "topic" && !t.negated);
  const dm = r.terms.find((t) => t.operator === "dm" && !t.negated);
  // Another conversation: the text typed so far becomes its conversation's draft (composeDrafts.ts).
  preview.value = null;
  switchConversation(() => {
    if (channel && /^\d+$/.test(channel.operand)) {
      channelId.value = Number(channel.operand);
      dmTo.value = null;
      if (topicTerm) topic.value = topicTerm.operand;
    } else if (dm && /^\d+(,\d+)*$/.test(dm.operand)) {
      dmTo.value = dm.operand.split(",").map(Number);
    }
  });
}

/** Reply to a message's conversation (r, Enter, quote-and-reply), optionally adding text. */
export function replyTo(m: Message, text = ""): void {
  switchConversation(() => {
    if (m.type === "stream") {
      dmTo.value = null;
      channelId.value = m.stream_id!;
      topic.value = m.subject;
    } else {
      const ids = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).filter((id) => id !== myUserId) : [];
      dmTo.value = ids.length > 0 ? ids : [myUserId];
    }
  });
  if (text) content.value = content.value ? `${content.value}\n${text}` : text;
  setTimeout(focusCompose, 0);
}

let typingSentAt = 0;
function noteTyping(destination: Destination | null): void {
  if (!destination || Date.now() - typingSentAt < 10_000) return;
  typingSentAt = Date.now();
  const params =
    destination.kind === "channel"
      ? { type: "stream", stream_id: destination.channelId, topic: destination.topic, op: "start" }
      : { type: "direct", to: destination.userIds, op: "start" };
  api.once.post("/typing", params).catch(() => {});
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

/** Puts the cursor in the compose box; `kind` asks for a new channel message or direct message. */
export function focusCompose(_kind?: "channel" | "dm"): void {
  document.querySelector<HTMLTextAreaElement>(".compose textarea")?.focus();
}

function describe(d: Destination): string {
  return d.kind === "channel" ? `#${subscriptions.value.get(d.channelId)?.name ?? "?"} › ${d.topic || "general chat"}` : d.userIds.map(userName).join(", ");
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
  set: (text) => (content.value = text),
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
    typingSentAt = 0;
    draftSent();
    void send(d, text);
    textarea.current?.focus();
  };
  const typingKey = dest ? conversationKey(dest.kind === "channel" ? dest : { kind: "dm", userIds: dest.userIds }) : "";
  const typists = (typing.value.get(typingKey) ?? []).filter((id) => id !== myUserId && !mutedUsers.value.includes(id));
  const channels = [...subscriptions.value.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <form class={`compose ${isDragging() ? "drop-target" : ""}`} onSubmit={(e) => (e.preventDefault(), submit())}>
      <Unsent />
      {typists.length > 0 && (
        <div class="typing">
          {typists.map(userName).join(", ")} {typists.length === 1 ? "is" : "are"} typing…
        </div>
      )}
      <div class="destination">
        {dmTo.value ? (
          <span class="dm-to">
            To: {dmTo.value.map(userName).join(", ")}
            <button type="button" class="link" onClick={() => (dmTo.value = null)}>
              change
            </button>
          </span>
        ) : (
          <>
            <select aria-label="Channel" value={channelId.value ?? ""} onChange={(e) => (channelId.value = Number(e.currentTarget.value) || null)}>
              <option value="">Channel…</option>
              {channels.map((s) => (
                <option key={s.stream_id} value={s.stream_id}>
                  #{s.name}
                </option>
              ))}
            </select>
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
            <select
              aria-label="Direct message to"
              value=""
              onFocus={() => (dmListed.value = true)}
              onMouseDown={() => (dmListed.value = true)}
              onChange={(e) => e.currentTarget.value && (dmTo.value = [Number(e.currentTarget.value)])}
            >
              <option value="">DM…</option>
              {/* A large organization's people are listed when the list is first opened, not at start. */}
              {dmListed.value &&
                [...users.value.values()]
                  .filter((u) => !u.is_bot && u.user_id !== myUserId)
                  .map((u) => (
                    <option key={u.user_id} value={u.user_id}>
                      {u.full_name}
                    </option>
                  ))}
            </select>
          </>
        )}
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
                ? `Message #${subscriptions.value.get(dest.channelId)?.name ?? ""} > ${dest.topic || "general chat"}`
                : `Message ${dest.userIds.map(userName).join(", ")}`
              : "Choose where to send"
          }
          value={content.value}
          rows={2}
          onInput={(e) => {
            content.value = e.currentTarget.value;
            noteTyping(destination());
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
