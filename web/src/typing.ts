import { api, myUserId } from "./api.js";
import { destinationKey } from "./composeState.js";
import type { Destination } from "./outbox.js";
import { settings, typing } from "./state.js";
import { conversationKey, dmPeople } from "./unread.js";

/**
 * Typing notifications, as Zulip's web app sends and shows them (its typing_status.ts and
 * typing_events.ts). Sending: "start" when typing begins in a conversation, again every 10 s
 * while it goes on, "stop" after 5 s without a keystroke, and "stop" at once when
 * the text is sent or emptied, or the compose box moves to another conversation or closes. The
 * throttle is per conversation: typing somewhere else first stops the old one and starts the new
 * one. Showing: a "start" is forgotten after the expiry period without another one (the sender's
 * browser may have gone away without a "stop").
 */
interface Outgoing {
  key: string;
  destination: Destination;
  startedAt: number;
  idle?: ReturnType<typeof setTimeout>;
}
let current: Outgoing | null = null;

/** Zulip's defaults, which the server announces in /register under these names (and Parley's are the same). */
const STARTED_WAIT_MS = 10_000; // server_typing_started_wait_period_milliseconds
const STOPPED_WAIT_MS = 5_000; // server_typing_stopped_wait_period_milliseconds
const STARTED_EXPIRY_MS = 45_000; // server_typing_started_expiry_period_milliseconds

function allowed(d: Destination): boolean {
  const s = settings.value as Record<string, unknown>;
  return d.kind === "channel" ? s.send_stream_typing_notifications !== false : s.send_private_typing_notifications !== false;
}

function post(d: Destination, op: "start" | "stop"): void {
  const params = d.kind === "channel" ? { type: "stream", stream_id: d.channelId, topic: d.topic, op } : { type: "direct", to: d.userIds, op };
  api.once.post("/typing", params).catch(() => {});
}

/** A keystroke in the compose box, whose text is now `text`, bound for `d`. */
export function noteTyping(d: Destination | null, text: string): void {
  if (!d || text.trim() === "" || (d.kind === "dm" && d.userIds.length === 0)) return stopTyping();
  const key = destinationKey(d);
  if (current && current.key !== key) stopTyping();
  if (!allowed(d)) return;
  current ??= { key, destination: d, startedAt: 0 };
  const now = Date.now();
  if (now - current.startedAt >= STARTED_WAIT_MS) {
    current.startedAt = now;
    post(d, "start");
  }
  clearTimeout(current.idle);
  current.idle = setTimeout(stopTyping, STOPPED_WAIT_MS);
}

/** The person stopped typing where they were (sent, emptied, left, idle): "stop", once. */
export function stopTyping(): void {
  const c = current;
  if (!c) return;
  current = null;
  clearTimeout(c.idle);
  post(c.destination, "stop");
}

const expiries = new Map<string, ReturnType<typeof setTimeout>>();

function setTypist(key: string, userId: number, on: boolean): void {
  const map = new Map(typing.value);
  const who = new Set(map.get(key) ?? []);
  if (on) who.add(userId);
  else who.delete(userId);
  if (who.size > 0) map.set(key, [...who]);
  else map.delete(key);
  typing.value = map;
}

/** A `typing` event (direct or channel): who is typing where, until "stop" or the expiry. */
export function onTypingEvent(event: {
  op: "start" | "stop";
  message_type?: string;
  sender: { user_id: number };
  recipients?: Array<{ user_id: number }>;
  stream_id?: number;
  topic?: string;
}): void {
  const key =
    event.message_type === "stream"
      ? conversationKey({ kind: "channel", channelId: event.stream_id!, topic: event.topic ?? "" })
      : conversationKey({
          kind: "dm",
          userIds: dmPeople(
            (event.recipients ?? []).map((r) => r.user_id),
            myUserId,
          ),
        });
  const userId = event.sender.user_id;
  const timerKey = `${key}|${userId}`;
  clearTimeout(expiries.get(timerKey));
  expiries.delete(timerKey);
  setTypist(key, userId, event.op === "start");
  if (event.op === "start") {
    expiries.set(
      timerKey,
      setTimeout(() => {
        expiries.delete(timerKey);
        setTypist(key, userId, false);
      }, STARTED_EXPIRY_MS),
    );
  }
}
