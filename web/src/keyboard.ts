import { VisibilityPolicy } from "../../src/contract/constants.js";
import { closeOverlay, overlayOpen } from "./overlay.js";
import { markUnreadFrom, notice, quoteAndReply, selectedId, startEdit, toggleReaction, toggleStar } from "./actions.js";
import { focusCompose, replyTo } from "./composeOpen.js";
import { showEditHistory, showReadReceipts } from "./components/MessageDialogs.js";
import { narrowHash } from "./hash.js";
import { view } from "./messages.js";
import { conversationOf, lookup, route, settings, topicKey, userTopics, type Message } from "./state.js";
import { myUserId } from "./api.js";
import { closeEmojiPicker, picker } from "./emojiPicker.js";
import { closeUserCard, openUserCard, userCard } from "./userCard.js";
import { openTopicDialog, setTopicVisibility } from "./topicEdit.js";
import { canMoveChannel, canRenameTopic, editHistoryVisible, readReceiptsEnabled } from "./permissions.js";
import { conversationTerms } from "./viewFilters.js";
import { hotkeyOf } from "./keyboard/keys.js";
import { listViewFilterKey, listViewKey } from "./keyboard/rows.js";
import { conversationOfView, cycleChannel, feed, nextUnreadDm, nextUnreadTopic, pageBy, partialConversations, step, toEdge } from "./keyboard/navigation.js";

export { SHORTCUT_GROUPS } from "./keyboard/shortcuts.js";
import { showShortcuts } from "./keyboard/shortcuts.js";

/**
 * Zulip's keyboard shortcuts (its hotkey.ts and help/keyboard-shortcuts.md), listed under "?"
 * (keyboard/shortcuts.ts). Keys are named as Zulip names them (keyboard/keys.ts): "J", "Shift+I",
 * "Ctrl+S", "+". Nothing fires while a field has the focus, except Esc, Ctrl+K, Ctrl+S and the
 * arrows of an empty compose box, as in Zulip.
 */
function say(text: string): void {
  notice.value = text;
  setTimeout(() => notice.value === text && (notice.value = ""), 3000);
}

/** Something that Esc should close first: a dialog, a menu, a picker, a popup. */
const POPUPS = "[role=dialog], dialog[open], .lightbox, .emoji-picker, .user-card, .suggestions, [role=menu], [role=listbox], .send-later-menu";
function popupOpen(): boolean {
  return [...document.querySelectorAll(POPUPS)].some((el) => el.getClientRects().length > 0);
}

function isField(el: Element | null): boolean {
  return !!el?.closest("input, textarea, select, [contenteditable]:not([contenteditable=false])");
}

function selectedMessage(): Message | undefined {
  const id = selectedId.value;
  return id === null ? undefined : view.value.messages.find((m) => m.id === id && !m.local);
}

function selectedRow(): HTMLElement | null {
  return document.querySelector<HTMLElement>(".message-list .message.selected");
}

/** ← (or ↑ in an empty compose box): the newest of my messages in the view, selected and opened for editing. */
function editLastMessage(): boolean {
  const mine = view.value.messages.filter((m) => !m.local && m.sender_id === myUserId && !m.submessages?.length);
  const m = mine.at(-1);
  if (!m) return false;
  selectedId.value = m.id;
  document.querySelector(`.message-list .message[data-id="${m.id}"]`)?.scrollIntoView({ block: "nearest" });
  void startEdit(m);
  return true;
}

function focusFirst(...selectors: string[]): boolean {
  for (const selector of selectors) {
    const el = [...document.querySelectorAll<HTMLElement>(selector)].find((e) => e.getClientRects().length > 0);
    if (el) {
      el.focus();
      return true;
    }
  }
  return false;
}

function focusSearch(): boolean {
  const box = document.querySelector<HTMLInputElement>(".search input");
  if (!box) return false;
  box.focus();
  box.select();
  return true;
}

/** A view (not an overlay), or, when it is already open, the search box of that view. */
function openView(hash: string, kind: "inbox" | "recent", search: string): void {
  const r = route.value;
  const home = settings.value.web_home_view;
  const showing = r.kind === kind || (r.kind === "home" && home === (kind === "recent" ? "recent_topics" : kind));
  if (showing && focusFirst(search)) return;
  location.hash = hash;
}

/** Esc: close what is open, else leave the field, else go to the home view (Zulip's process_escape_key). */
function escape(e: KeyboardEvent, popupAtKeydown: boolean, ctrlBracket: boolean): boolean {
  if (showShortcuts.value) {
    showShortcuts.value = false;
    return true;
  }
  if (picker.value) {
    closeEmojiPicker();
    return true;
  }
  if (userCard.value) {
    closeUserCard();
    return true;
  }
  // A dialog or popup of another part of the app (a typeahead, a dialog's form) closes itself on
  // Esc and keeps its focus; the search box closes its suggestions and is left, as in Zulip.
  const target = e.target as HTMLElement;
  if (popupAtKeydown && !target.closest(".search")) return false;
  if (isField(target)) {
    target.blur();
    return true;
  }
  if (selectedId.value !== null && !ctrlBracket && settings.value.web_escape_navigates_to_home_view === false) {
    selectedId.value = null;
    return true;
  }
  if (ctrlBracket || settings.value.web_escape_navigates_to_home_view !== false) {
    if (route.value.kind !== "home" && location.hash !== "#") {
      location.hash = "#";
      return true;
    }
  }
  return false;
}

/** The shortcuts that act on the selected message of the feed. */
function messageAction(key: string, m: Message): boolean {
  const row = selectedRow();
  switch (key) {
    case "Ctrl+S":
      toggleStar(m);
      return true;
    case "E":
      void startEdit(m);
      return true;
    case "+":
      toggleReaction(m, "+1");
      return true;
    case "=": {
      const first = m.reactions[0];
      if (first) toggleReaction(m, first.emoji_name, first.emoji_code, first.reaction_type);
      return true;
    }
    case ":":
      row?.querySelector<HTMLElement>('[data-action="react"]')?.click();
      return true;
    case "I": {
      const more = row?.querySelector<HTMLElement>('[data-action="more"]');
      more?.click();
      // The menu's first item takes the focus, so arrows and Enter choose an action.
      setTimeout(() => {
        const first = document.querySelector<HTMLElement>("[role=menu] [role=menuitem], [role=menu] button");
        first?.focus();
      }, 0);
      return true;
    }
    case "Shift+U":
      markUnreadFrom(m, view.value.messages);
      return true;
    case "Shift+H":
      if (editHistoryVisible(m)) showEditHistory(m);
      return true;
    case "Shift+V":
      if (readReceiptsEnabled()) showReadReceipts(m);
      return true;
    case "Shift+R":
      // A direct reply to the sender: the message's conversation seen as a DM with its sender.
      replyTo({ ...m, type: "private", display_recipient: [{ id: m.sender_id, email: "", full_name: m.sender_full_name }] });
      return true;
    case "@":
      replyTo(m, `@**${m.sender_full_name}|${m.sender_id}** `);
      return true;
    case ">":
      void quoteAndReply(m);
      return true;
    case "U": {
      const anchor = row?.querySelector<HTMLElement>(".sender .name") ?? row;
      if (anchor) openUserCard(m.sender_id, anchor);
      return true;
    }
    case "V": {
      const image = row?.querySelector<HTMLElement>(".message_inline_image > a, .message_inline_image img");
      image?.click();
      return !!image;
    }
    case "M":
      if (m.type !== "stream" || !(canRenameTopic(m.timestamp) || canMoveChannel(m.timestamp))) return false;
      openTopicDialog(m, "change_one");
      return true;
    case "Shift+M": {
      if (m.type !== "stream") return false;
      const muted = userTopics.value.get(topicKey(m.stream_id!, m.subject)) === 1;
      setTopicVisibility(m.stream_id!, m.subject, muted ? 0 : 1);
      say(muted ? `Unmuted ${m.subject}` : `Muted ${m.subject}`);
      return true;
    }
    case "Z":
      location.hash = narrowHash([...conversationTerms(conversationOf(m)), { operator: "near", operand: String(m.id), negated: false }], lookup);
      return true;
    case "S": {
      const where = conversationOfView();
      if (where === "dm") return false;
      const terms = conversationTerms(conversationOf(m));
      location.hash = narrowHash(where === "topic" ? terms.slice(0, 1) : terms, lookup);
      return true;
    }
  }
  return false;
}

function handle(key: string, e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement;
  // Enter and Space on a link or button are theirs.
  if ((key === "Enter" || key === " ") && target.closest("a, button, summary, [role=button], [tabindex]")) return false;
  switch (key) {
    case "/":
    case "Ctrl+K":
      return focusSearch();
    case "?":
      showShortcuts.value = !showShortcuts.value;
      return true;
    case "Q":
      return focusFirst(".sidebar input", ".sidebar .channels a");
    case "W":
      return focusFirst(".user-list input", ".user-list li a");
    case "N":
      if (!nextUnreadTopic(false, () => true)) say("You have no more unread topics.");
      return true;
    case "Shift+N":
      if (!nextUnreadTopic(true, (c) => userTopics.value.get(topicKey(c.channelId, c.topic)) === VisibilityPolicy.FOLLOWED))
        say("You have no more unread followed topics.");
      return true;
    case "P":
      if (!nextUnreadDm()) say("You have no more unread direct messages.");
      return true;
    case "Shift+P":
      location.hash = "#narrow/is/dm";
      return true;
    case "Shift+I":
      openView("#inbox", "inbox", ".inbox input");
      return true;
    case "T":
      openView("#recent", "recent", ".recent input");
      return true;
    case "A":
      location.hash = "#feed";
      return true;
    case "*":
      location.hash = "#narrow/is/starred";
      return true;
    case "D":
      location.hash = "#drafts";
      return true;
    case "Shift+A":
      cycleChannel(-1);
      return true;
    case "Shift+D":
      cycleChannel(1);
      return true;
    case "C":
      focusCompose("channel");
      return true;
    case "X":
      focusCompose("dm");
      return true;
  }
  // Inbox and Recent conversations: the arrows and J/K/H/L move through their rows.
  if (listViewKey(key)) return true;
  // The rest need the message feed.
  if (!feed()) return false;
  const m = selectedMessage();
  switch (key) {
    case "Enter":
      // In a search or another view that mixes conversations, Enter opens the message's own
      // conversation around it (Zulip); in a conversation it replies, as R does.
      if (m && partialConversations()) {
        location.hash = narrowHash([...conversationTerms(conversationOf(m)), { operator: "near", operand: String(m.id), negated: false }], lookup);
        return true;
      }
      if (m) replyTo(m);
      else focusCompose();
      return true;
    case "R":
      if (m) replyTo(m);
      else focusCompose();
      return true;
    case "ArrowDown":
    case "J":
      step(1);
      return true;
    case "ArrowUp":
    case "K":
      step(-1);
      return true;
    case "Home":
      toEdge(-1);
      return true;
    case "End":
    case "Shift+G":
      toEdge(1);
      return true;
    case "PageDown":
    case "Shift+J":
    case " ":
      pageBy(1);
      return true;
    case "PageUp":
    case "Shift+K":
    case "Shift+ ":
      pageBy(-1);
      return true;
    case "ArrowLeft":
      return editLastMessage();
  }
  return m ? messageAction(key, m) : false;
}

export function installKeyboard(): void {
  // Whether a popup was open when the key went down, before its own handler closed it: that Esc
  // was the popup's, not a request for the home view.
  let popupAtKeydown = false;
  window.addEventListener("keydown", () => (popupAtKeydown = popupOpen()), true);
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.isComposing) return;
    const key = hotkeyOf(e);
    if (!key) return;
    const target = e.target as HTMLElement;
    const typing = isField(target);
    if (key === "Escape" || key === "Ctrl+[") {
      if (overlayOpen()) {
        // Settings and other overlays: Esc leaves a field first, then closes the overlay.
        if (typing) target.blur();
        else if (!document.querySelector(".emoji-picker")) closeOverlay();
        return;
      }
      // Esc in the filter box of the Inbox or Recent conversations: back to the rows (Zulip).
      if (typing && !popupAtKeydown && listViewFilterKey(key, target)) e.preventDefault();
      else if (escape(e, popupAtKeydown, key === "Ctrl+[")) e.preventDefault();
      return;
    }
    if (overlayOpen()) {
      // No message-view shortcuts behind an overlay; D closes the drafts it opened.
      if (key === "D" && !typing && route.value.kind === "overlay" && route.value.name === "drafts") {
        e.preventDefault();
        closeOverlay();
      }
      return;
    }
    if (typing) {
      const compose = target.closest<HTMLTextAreaElement>(".compose textarea");
      const handled =
        key === "Ctrl+K"
          ? focusSearch()
          : key === "Ctrl+S"
            ? !!selectedMessage() && (toggleStar(selectedMessage()!), true)
            : (key === "ArrowUp" || key === "ArrowLeft") && compose?.value === ""
              ? editLastMessage()
              : listViewFilterKey(key, target);
      if (handled) e.preventDefault();
      return;
    }
    if (handle(key, e)) e.preventDefault();
  });
}
