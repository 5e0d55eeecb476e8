import { EmojiGlyph } from "./EmojiGlyph.js";
import { useRef } from "preact/hooks";
import { type Message } from "../state.js";
import { canMoveChannel, canRenameTopic, editHistoryVisible, readReceiptsEnabled } from "../permissions.js";
import { openTopicDialog } from "../topicEdit.js";
import { openEmojiPicker, picker } from "../emojiPicker.js";
import { MenuButton, type MenuItem, ownKeys } from "./Menu.js";
import { showEditHistory, showReadReceipts, showSource } from "./MessageDialogs.js";
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

/** Opens the emoji picker from a button; when it closes, focus goes back to that button. */
function pickReaction(button: HTMLElement, m: Message): void {
  openEmojiPicker(button, (emoji) => toggleReaction(m, emoji.name, emoji.code, emoji.type));
  const stop = picker.subscribe((open) => {
    if (open) return;
    queueMicrotask(() => stop());
    if (button.isConnected) button.focus();
  });
}

/** The message menu's items (Zulip's message actions popover), computed when it opens. */
function menuItems(m: Message, all: Message[], moreButton: () => HTMLElement | null): MenuItem[] {
  const own = m.sender_id === myUserId;
  const items: MenuItem[] = [
    { label: "Quote and reply", run: () => void quoteAndReply(m) },
    { label: "Copy link to message", run: () => void copyLink(m) },
    { label: "Mark as unread from here", run: () => markUnreadFrom(m, all) },
    ...QUICK_REACTIONS.slice(3).map(([name]) => ({ label: `React with :${name}:`, run: () => toggleReaction(m, name) })),
    {
      label: "Add emoji reaction…",
      run: () => {
        const button = moreButton();
        if (button) pickReaction(button, m);
      },
    },
  ];
  if (own) items.push({ label: "Edit message", run: () => void startEdit(m) });
  if (m.type === "stream" && (canRenameTopic(m.timestamp) || canMoveChannel(m.timestamp)))
    items.push({ label: "Move message…", run: () => openTopicDialog(m, "change_one") });
  if (editHistoryVisible(m)) items.push({ label: "View edit history", run: () => showEditHistory(m) });
  if (readReceiptsEnabled()) items.push({ label: "View read receipts", run: () => showReadReceipts(m) });
  items.push({ label: own ? "View message source" : "View original message", run: () => showSource(m) });
  if (own) items.push({ label: "Delete message", danger: true, run: () => deleteMessage(m) });
  return items;
}

/** The buttons shown on a message (quick reactions, emoji, star) and its "more actions" menu. */
export function Actions({ m, all }: { m: Message; all: Message[] }) {
  const starred = m.flags.includes("starred");
  const toolbar = useRef<HTMLDivElement>(null);
  // A toolbar is one tab stop (else each message would add six); arrows, Home and End move inside it.
  const onKeyDown = (e: KeyboardEvent) => {
    ownKeys(e);
    const bar = toolbar.current;
    const target = e.target as HTMLElement;
    if (!bar || target.parentElement !== bar) return;
    const controls = [...bar.children].filter((el): el is HTMLButtonElement => el instanceof HTMLButtonElement);
    const at = controls.indexOf(target as HTMLButtonElement);
    const n = controls.length;
    const next = { ArrowRight: (at + 1) % n, ArrowLeft: (at - 1 + n) % n, Home: 0, End: n - 1 }[e.key];
    if (next === undefined || at < 0) return;
    e.preventDefault();
    e.stopPropagation();
    controls.forEach((control, i) => (control.tabIndex = i === next ? 0 : -1));
    controls[next]?.focus();
  };
  return (
    <div class="actions" role="toolbar" aria-label="Message actions" ref={toolbar} onKeyDown={onKeyDown}>
      {QUICK_REACTIONS.slice(0, 3).map(([name, code], i) => (
        <button
          type="button"
          key={name}
          tabIndex={i === 0 ? 0 : -1}
          title={`React with :${name}:`}
          aria-label={`React with :${name}:`}
          onClick={() => toggleReaction(m, name)}
        >
          <EmojiGlyph name={name} code={code} type="unicode_emoji" />
        </button>
      ))}
      <button
        type="button"
        class="emoji-action"
        title="Add emoji reaction"
        aria-label="Add emoji reaction"
        data-action="react"
        tabIndex={-1}
        onClick={(e) => pickReaction(e.currentTarget, m)}
      >
        ☺+
      </button>
      <button
        type="button"
        title={starred ? "Unstar" : "Star"}
        aria-label={starred ? "Unstar this message" : "Star this message"}
        aria-pressed={starred}
        class="star-action"
        tabIndex={-1}
        onClick={() => toggleStar(m)}
      >
        {starred ? "★" : "☆"}
      </button>
      <MenuButton
        label="More actions"
        action="more"
        tabIndex={-1}
        className="more-dots"
        items={() => menuItems(m, all, () => toolbar.current?.querySelector<HTMLElement>("[data-action=more]") ?? null)}
      />
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
          if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
            ev.preventDefault();
            saveEdit();
          }
        }}
      />
      <button type="submit">Save</button>{" "}
      <button type="button" onClick={() => (editing.value = null)}>
        Cancel
      </button>
    </form>
  );
}
