import { type Message } from "../state.js";
import { canRenameTopic, canMoveChannel } from "../permissions.js";
import { openTopicDialog } from "../topicEdit.js";
import { openEmojiPicker } from "../emojiPicker.js";
import { myUserId } from "../api.js";
import {
  copyLink,
  deleteMessage,
  editing,
  markUnreadFrom,
  QUICK_REACTIONS,
  quoteAndReply,
  saveEdit,
  startEdit,
  toggleReaction,
  toggleStar,
} from "../actions.js";

/** The buttons shown on a message (quick reactions, emoji, star) and its "more actions" menu. */
export function Actions({ m, all }: { m: Message; all: Message[] }) {
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

/** Editing a message in place. */
export function EditBox({ id }: { id: number }) {
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
