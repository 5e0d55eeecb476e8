import { api } from "./api.js";
import { showShortcuts } from "./keyboard/shortcuts.js";
import type { Message } from "./state.js";

/**
 * Zulip's desktop app (an Electron shell around the web app) puts `window.electron_bridge` in
 * the page: the web app tells it the unread count, the organization's name and icon, and it
 * asks the web app to log out, show the shortcuts or notification settings, and send replies
 * typed into notifications (Zulip's web/src/electron_bridge.ts).
 */
interface ElectronBridge {
  send_event(name: string, ...args: unknown[]): boolean;
  on_event(name: string, listener: (...args: never[]) => void): void;
  set_send_notification_reply_message_supported?(value: boolean): void;
  /** The app's own notifications (instead of the browser's), events passed back through `dispatch`. */
  new_notification?(title: string, options: NotificationOptions, dispatch: (type: string, init: EventInit) => boolean): { close(): void };
}

declare global {
  interface Window {
    electron_bridge?: ElectronBridge | Element;
  }
}

/** The bridge, unless something in the page named an element `electron_bridge` (DOM clobbering). */
export function electronBridge(): ElectronBridge | undefined {
  const bridge = window.electron_bridge;
  return bridge && !(bridge instanceof Element) && typeof bridge.send_event === "function" ? bridge : undefined;
}

export function sendToDesktopApp(name: string, ...args: unknown[]): void {
  try {
    electronBridge()?.send_event(name, ...args);
  } catch {
    // an older desktop app without this event
  }
}

/** Messages notified of, for replies typed into the desktop app's notifications (the newest 100). */
const notifiedMessages = new Map<number, Message>();

export function rememberNotified(message: Message): void {
  notifiedMessages.set(message.id, message);
  if (notifiedMessages.size > 100) notifiedMessages.delete(notifiedMessages.keys().next().value!);
}

/** A notification shown by the desktop app, with the browser Notification's events (Zulip's ElectronBridgeNotification). */
export class DesktopAppNotification extends EventTarget {
  private shown: { close(): void };
  constructor(bridge: ElectronBridge, title: string, options: NotificationOptions) {
    super();
    this.shown = bridge.new_notification!(title, options, (type, init) => this.dispatchEvent(new Event(type, init)));
  }
  close(): void {
    this.shown.close();
  }
}

/** Listens to the desktop app's requests. */
export function startElectronBridge(): void {
  const bridge = electronBridge();
  if (!bridge) return;
  bridge.on_event("logout", () => document.querySelector<HTMLFormElement>("form.logout")?.submit());
  bridge.on_event("show-keyboard-shortcuts", () => (showShortcuts.value = true));
  bridge.on_event("show-notification-settings", () => (location.hash = "#settings/notifications"));
  bridge.on_event("send_notification_reply_message", (messageId: number, reply: string) => void replyTo(messageId, reply));
  bridge.set_send_notification_reply_message_supported?.(true);
}

/** A reply typed into a notification: sent to the message's conversation. */
async function replyTo(messageId: number, reply: string): Promise<void> {
  const m = notifiedMessages.get(messageId);
  if (!m || !reply.trim()) return;
  const to =
    m.type === "stream" ? String(m.stream_id) : JSON.stringify(Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [m.sender_id]);
  await api.once.post("/messages", m.type === "stream" ? { type: "stream", to, topic: m.subject, content: reply } : { type: "direct", to, content: reply });
}
