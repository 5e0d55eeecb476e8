import { EMPTY_TOPIC_DISPLAY_NAME } from "../../src/contract/constants.js";
import { signal } from "@preact/signals";
import { myUserId } from "./api.js";
import { narrowHash, type Term } from "./hash.js";
import { matchesView, view } from "./messages.js";
import { DesktopAppNotification, electronBridge, rememberNotified } from "./electronBridge.js";
import { notificationFor, type NotifySubscription } from "./notifyRules.js";
import { mutedUsers } from "./personal.js";
import { conversationOf, lookup, type Message, route, settings, subscriptions, topicKey, userTopics } from "./state.js";

/**
 * Desktop notifications and sounds for new messages (Zulip's desktop_notifications.ts and
 * message_notifications.ts): the rules are in notifyRules.ts; this asks the browser's
 * permission, shows the notification (several messages of one conversation as one), plays the
 * sound, and opens the conversation when the notification is clicked.
 */
type Permission = NotificationPermission | "unsupported";
const DONT_ASK_KEY = "parley.notifications.dont-ask";

function currentPermission(): Permission {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

export const permission = signal<Permission>(currentPermission());
const bannerDismissed = signal(readDontAsk());

function readDontAsk(): boolean {
  try {
    return localStorage.getItem(DONT_ASK_KEY) === "1";
  } catch {
    return false;
  }
}

/** Zulip's banner shows while the browser has not been asked (permission "default"). */
export function bannerWanted(): boolean {
  return permission.value === "default" && !bannerDismissed.value && !electronBridge()?.new_notification;
}

export async function askPermission(): Promise<void> {
  if (typeof Notification === "undefined") return;
  permission.value = await Notification.requestPermission();
}

/** "Never ask on this computer" (kept), or × (this page only). */
export function dismissBanner(forever: boolean): void {
  bannerDismissed.value = true;
  if (forever) {
    try {
      localStorage.setItem(DONT_ASK_KEY, "1");
    } catch {
      // private browsing: for this page only
    }
  }
}

/** The message shown in the open, focused window: no notification needed. */
function inView(message: Message): boolean {
  if (document.visibilityState !== "visible" || !document.hasFocus()) return false;
  const r = route.value;
  const listShown = r.kind === "narrow" || r.kind === "feed" || (r.kind === "home" && settings.value.web_home_view === "all_messages");
  return listShown && matchesView(message, view.value.terms, true);
}

/** Zulip's notification title: "Othello (to you)", "Othello (#Verona > lunch)", "2 messages from Othello …". */
function titleOf(message: Message, count: number): string {
  const sender = count > 1 ? `${count} messages from ${message.sender_full_name}` : message.sender_full_name;
  if (message.type === "stream") {
    const channel = subscriptions.value.get(message.stream_id!)?.name ?? (typeof message.display_recipient === "string" ? message.display_recipient : "");
    return `${sender} (#${channel} > ${message.subject || EMPTY_TOPIC_DISPLAY_NAME})`;
  }
  const others = Array.isArray(message.display_recipient)
    ? message.display_recipient.filter((r) => r.id !== myUserId && r.id !== message.sender_id).map((r) => r.full_name)
    : [];
  return `${sender} (to you${others.length > 0 ? ` and ${others.join(", ")}` : ""})`;
}

/** The message's text (its HTML read by an inert document), or a line without content if the user asked for it. */
function bodyOf(message: Message): string {
  if (message.type === "private" && settings.value.pm_content_in_desktop_notifications === false) return `New direct message from ${message.sender_full_name}`;
  const text = new DOMParser().parseFromString(message.content, "text/html").body.textContent?.trim() ?? "";
  return text === "" && /<(img|a) /.test(message.content) ? "(attached file)" : text;
}

/** Where a click on the notification goes: the conversation, around the message. */
function conversationHash(message: Message): string {
  const c = conversationOf(message);
  const terms: Term[] =
    c.kind === "channel"
      ? [
          { operator: "channel", operand: String(c.channelId), negated: false },
          { operator: "topic", operand: c.topic, negated: false },
        ]
      : [{ operator: "dm", operand: c.userIds.join(","), negated: false }];
  terms.push({ operator: "near", operand: String(message.id), negated: false });
  return narrowHash(terms, lookup);
}

/** Open notifications per conversation and sender (Zulip's notice_memory): a new message replaces the old one. */
const shown = new Map<string, { notification: Notification | DesktopAppNotification; count: number }>();

function show(message: Message): void {
  const c = conversationOf(message);
  const key = c.kind === "dm" ? `dm:${c.userIds.join(",")}` : `channel:${message.sender_id}:${c.channelId}:${c.topic}`;
  const previous = shown.get(key);
  previous?.notification.close();
  const count = (previous?.count ?? 0) + 1;
  const options = { body: bodyOf(message), tag: String(message.id) };
  const bridge = electronBridge();
  const notification = bridge?.new_notification
    ? new DesktopAppNotification(bridge, titleOf(message, count), options)
    : new Notification(titleOf(message, count), options);
  shown.set(key, { notification, count });
  rememberNotified(message);
  notification.addEventListener?.("click", () => {
    notification.close();
    window.focus();
    location.hash = conversationHash(message);
  });
  notification.addEventListener?.("close", () => {
    if (shown.get(key)?.notification === notification) shown.delete(key);
  });
}

let audio: AudioContext | null = null;

/**
 * The notification sound. Parley ships no sound files (Zulip's are its own), so every choice
 * other than "none" plays the same short two-tone chime, made by the Web Audio API.
 */
function chime(): void {
  try {
    audio ??= new AudioContext();
    // Browsers start audio only after the user has interacted with the page once.
    if (audio.state === "suspended") void audio.resume().catch(() => {});
    const start = audio.currentTime;
    for (const [offset, frequency] of [
      [0, 880],
      [0.12, 1320],
    ] as const) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.15, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.001, start + offset + 0.25);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + offset);
      tone.stop(start + offset + 0.25);
    }
  } catch {
    // no audio output: silence
  }
}

/** A new message from the event queue: notify and chime as the rules say. */
export function notifyNewMessage(message: Message): void {
  const sub = message.type === "stream" ? (subscriptions.value.get(message.stream_id!) as NotifySubscription | undefined) : undefined;
  const decision = notificationFor(message, {
    myId: myUserId,
    settings: settings.value,
    subscription: sub,
    topicPolicy: message.type === "stream" ? (userTopics.value.get(topicKey(message.stream_id!, message.subject)) ?? 0) : 0,
    senderMuted: mutedUsers.value.includes(message.sender_id),
    visible: inView(message),
  });
  permission.value = currentPermission();
  // Zulip's desktop app shows its own notifications, whatever the page's permission.
  try {
    if (decision.desktop && (permission.value === "granted" || electronBridge()?.new_notification)) show(message);
  } catch (error) {
    // e.g. Chrome on Android allows notifications only from a service worker: the message still shows
    console.warn("could not show a notification", error);
  }
  if (decision.sound) chime();
}
