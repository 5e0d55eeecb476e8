import { myUserId } from "./api.js";
import { needsAccount } from "./visitor.js";
import { switchConversation } from "./composeDrafts.js";
import { channelId, composeOpen, content, destinationKey, dmTo, topic } from "./composeState.js";
import { type Message, route } from "./state.js";
import { stopTyping } from "./typing.js";

/**
 * Opening the compose box and moving it to a conversation (reply, new topic, new DM): what the
 * keyboard, the message actions and the box itself (components/Compose.tsx) share. No component
 * here, so that data modules (actions.ts) can open the box without importing components.
 */

/** The conversation the open view shows, if it is one: a channel (and topic) or a DM. */
type RouteConversation = { kind: "channel"; channelId: number; topic: string | null } | { kind: "dm"; userIds: number[] } | null;
export function routeConversation(): RouteConversation {
  const r = route.value;
  if (r.kind !== "narrow") return null;
  const positive = r.terms.filter((t) => !t.negated && t.operator !== "near" && t.operator !== "with");
  const channel = positive.find((t) => t.operator === "channel");
  const topicTerm = positive.find((t) => t.operator === "topic");
  const dm = positive.find((t) => t.operator === "dm");
  if (channel && /^\d+$/.test(channel.operand) && positive.length === (topicTerm ? 2 : 1))
    return { kind: "channel", channelId: Number(channel.operand), topic: topicTerm ? topicTerm.operand : null };
  if (dm && positive.length === 1 && /^\d+(,\d+)*$/.test(dm.operand)) return { kind: "dm", userIds: dm.operand.split(",").map(Number) };
  return null;
}

/** The box moves to another conversation: its text becomes the old one's draft, and typing there stops. */
export function moveTo(change: () => void): void {
  const before = destinationKey();
  switchConversation(change);
  if (destinationKey() !== before) stopTyping();
}

/** Reply to a message's conversation (r, Enter, quote-and-reply), optionally adding text. */
export function replyTo(m: Message, text = ""): void {
  if (needsAccount()) return;
  moveTo(() => {
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
  composeOpen.value = true;
  setTimeout(() => focusField("message"), 0);
}

/** The cursor into the open box: the first field still empty (channel, recipients, topic) or the message. */
export function focusField(field: "message" | "topic" | "recipient"): void {
  const form = document.querySelector(".compose");
  if (!form) return;
  let el: HTMLElement | null = null;
  if (dmTo.value !== null) {
    if (field === "recipient" || dmTo.value.length === 0) el = form.querySelector("input[aria-label='Direct message recipients']");
  } else if (channelId.value === null) el = form.querySelector("select[aria-label='Channel']");
  else if (field === "topic") el = form.querySelector("input[aria-label='Topic']");
  (el ?? form.querySelector<HTMLTextAreaElement>("textarea"))?.focus();
}

/**
 * Opens the compose box and puts the cursor in it: `kind` "channel" starts a new topic in the open
 * channel (Zulip's c), "dm" a new direct message (x); without, a reply to the open conversation.
 */
export function focusCompose(kind?: "channel" | "dm"): void {
  if (needsAccount()) return;
  const c = routeConversation();
  moveTo(() => {
    if (kind === "dm") {
      dmTo.value = [];
    } else if (kind === "channel") {
      channelId.value = c?.kind === "channel" ? c.channelId : dmTo.value === null ? channelId.value : null;
      dmTo.value = null;
      topic.value = "";
    } else if (c?.kind === "dm") {
      dmTo.value = c.userIds;
    } else if (c?.kind === "channel") {
      dmTo.value = null;
      if (channelId.value !== c.channelId) topic.value = "";
      channelId.value = c.channelId;
      if (c.topic !== null) topic.value = c.topic;
    }
  });
  composeOpen.value = true;
  setTimeout(() => focusField(kind === "dm" ? "recipient" : kind === "channel" ? "topic" : "message"), 0);
}
