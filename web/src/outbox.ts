import { api, myUserId } from "./api.js";
import { currentQueueId } from "./events.js";
import { matchesView, mergeMessages, updateMessages, view } from "./messages.js";
import { type Message, subscriptions, userName, users } from "./state.js";

/**
 * Sending with local echo: the message is shown at once (escaped text, "sending"), posted with
 * the queue id and a local id, and replaced by the server's copy when its message event comes
 * back with that local id. A failed send stays visible with a retry button.
 */
export type Destination = { kind: "channel"; channelId: number; topic: string } | { kind: "dm"; userIds: number[] };

let counter = 0;
const pending = new Map<string, { destination: Destination; content: string }>();

function escapeText(text: string): string {
  const escaped = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
  return escaped
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, "<br>")}</p>`)
    .join("");
}

function localMessage(localId: string, destination: Destination, content: string): Message {
  const now = Math.floor(Date.now() / 1000);
  const base = { id: Number.MAX_SAFE_INTEGER - counter, sender_id: myUserId, sender_full_name: userName(myUserId), content: escapeText(content), timestamp: now, reactions: [], flags: ["read"], local: { localId, state: "sending" as const } };
  if (destination.kind === "channel") {
    return { ...base, type: "stream", stream_id: destination.channelId, subject: destination.topic, display_recipient: subscriptions.value.get(destination.channelId)?.name ?? "" };
  }
  const people = [...new Set([...destination.userIds, myUserId])].map((id) => ({ id, full_name: userName(id), email: users.value.get(id)?.email ?? "" }));
  return { ...base, type: "private", subject: "", display_recipient: people };
}

export async function send(destination: Destination, content: string): Promise<void> {
  counter++;
  const localId = `${Date.now()}.${counter}`;
  pending.set(localId, { destination, content });
  const echo = localMessage(localId, destination, content);
  if (matchesView(echo, view.value.terms)) mergeMessages([echo]);
  await post(localId);
}

async function post(localId: string): Promise<void> {
  const entry = pending.get(localId);
  if (!entry) return;
  const { destination, content } = entry;
  const params =
    destination.kind === "channel"
      ? { type: "stream", to: destination.channelId, topic: destination.topic, content }
      : { type: "direct", to: destination.userIds, content };
  try {
    await api.post("/messages", { ...params, queue_id: currentQueueId(), local_id: localId });
  } catch (error) {
    updateMessages((m) => (m.local?.localId === localId ? { ...m, local: { localId, state: "failed", error: (error as Error).message } } : m));
  }
}

export function retry(localId: string): void {
  updateMessages((m) => (m.local?.localId === localId ? { ...m, local: { localId, state: "sending" } } : m));
  void post(localId);
}

export function discard(localId: string): void {
  pending.delete(localId);
  updateMessages((m) => (m.local?.localId === localId ? null : m));
}

/** The server's copy of a locally echoed message replaces the echo; true when there was one. */
export function ackLocalEcho(localId: string, message: Message): boolean {
  if (!pending.delete(localId)) return false;
  let replaced = false;
  updateMessages((m) => {
    if (m.local?.localId !== localId) return m;
    replaced = true;
    return message;
  });
  if (!replaced && matchesView(message, view.value.terms)) mergeMessages([message]);
  return true;
}
