import { signal } from "@preact/signals";
import { api, myUserId } from "./api.js";
import { currentQueueId } from "./eventQueue.js";
import { localEchoes, matchesView, mergeMessages, receiveNewMessage, updateMessages, view } from "./messages.js";
import { type Message, subscriptions, userName, users } from "./state.js";

/**
 * Sending with local echo: the message is shown at once (escaped text, "sending"), posted with
 * the queue id and a local id, and replaced by the server's copy when its message event comes
 * back with that local id. A failed send stays visible with a retry button, and survives a page
 * reload: messages not yet accepted by the server are kept in localStorage (per user) until the
 * send succeeds, its message event arrives, or the person discards them.
 */
export type Destination = { kind: "channel"; channelId: number; topic: string } | { kind: "dm"; userIds: number[] };

export interface OutboxEntry {
  localId: string;
  destination: Destination;
  content: string;
  timestamp: number;
  state: "sending" | "failed" | "sent";
  error?: string;
}

let counter = 0;
const pending = new Map<string, OutboxEntry>();
/** Messages not sent (failed, or left from before a reload): shown above the compose box. */
export const unsent = signal<OutboxEntry[]>([]);

const STORAGE_KEY = `parley-outbox:${myUserId}`;

function changed(): void {
  const kept = [...pending.values()].filter((e) => e.state !== "sent");
  try {
    if (kept.length === 0) localStorage.removeItem(STORAGE_KEY);
    else
      localStorage.setItem(
        STORAGE_KEY,
        JSON.stringify(kept.map(({ localId, destination, content, timestamp }) => ({ localId, destination, content, timestamp }))),
      );
  } catch {
    // storage full or disabled: the outbox lives as long as the page
  }
  unsent.value = kept.filter((e) => e.state === "failed");
}

/** After a reload: what was not sent before is shown again, as not sent, with retry. */
export function restoreOutbox(): void {
  let stored: OutboxEntry[];
  try {
    stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]") as OutboxEntry[];
  } catch {
    stored = [];
  }
  for (const entry of stored) {
    if (pending.has(entry.localId) || !entry.destination || typeof entry.content !== "string") continue;
    pending.set(entry.localId, { ...entry, state: "failed", error: "not sent before the page was closed" });
  }
  changed();
}

function escapeText(text: string): string {
  const escaped = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
  return escaped
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, "<br>")}</p>`)
    .join("");
}

function localMessage(entry: OutboxEntry): Message {
  const { localId, destination, content } = entry;
  const order = [...pending.keys()].indexOf(localId);
  const base = {
    id: Number.MAX_SAFE_INTEGER - 1000 + order,
    sender_id: myUserId,
    sender_full_name: userName(myUserId),
    content: escapeText(content),
    timestamp: entry.timestamp,
    reactions: [],
    flags: ["read"],
    local: { localId, state: entry.state === "failed" ? ("failed" as const) : ("sending" as const), error: entry.error },
  };
  if (destination.kind === "channel") {
    return {
      ...base,
      type: "stream",
      stream_id: destination.channelId,
      subject: destination.topic,
      display_recipient: subscriptions.value.get(destination.channelId)?.name ?? "",
    };
  }
  const people = [...new Set([...destination.userIds, myUserId])].map((id) => ({ id, full_name: userName(id), email: users.value.get(id)?.email ?? "" }));
  return { ...base, type: "private", subject: "", display_recipient: people };
}

// Echoes of what is still in the outbox join a view when it opens.
localEchoes.forView = (terms) =>
  [...pending.values()]
    .filter((e) => e.state !== "sent")
    .map(localMessage)
    .filter((m) => matchesView(m, terms, true));

export async function send(destination: Destination, content: string): Promise<void> {
  counter++;
  const localId = `${Date.now()}.${counter}`;
  const entry: OutboxEntry = { localId, destination, content, timestamp: Math.floor(Date.now() / 1000), state: "sending" };
  pending.set(localId, entry);
  changed();
  const echo = localMessage(entry);
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
    await api.once.post("/messages", { ...params, queue_id: currentQueueId(), local_id: localId });
    // Accepted: no longer kept across reloads; the echo waits for its message event.
    if (pending.has(localId)) pending.set(localId, { ...entry, state: "sent" });
    changed();
  } catch (error) {
    if (!pending.has(localId)) return;
    const message = (error as Error).message;
    pending.set(localId, { ...entry, state: "failed", error: message });
    changed();
    updateMessages((m) => (m.local?.localId === localId ? { ...m, local: { localId, state: "failed", error: message } } : m));
  }
}

export function retry(localId: string): void {
  const entry = pending.get(localId);
  if (!entry) return;
  pending.set(localId, { ...entry, state: "sending", error: undefined });
  changed();
  let shown = false;
  updateMessages((m) => (m.local?.localId === localId ? ((shown = true), { ...m, local: { localId, state: "sending" } }) : m));
  const echo = localMessage(pending.get(localId)!);
  if (!shown && matchesView(echo, view.value.terms)) mergeMessages([echo]);
  void post(localId);
}

export function discard(localId: string): void {
  pending.delete(localId);
  changed();
  updateMessages((m) => (m.local?.localId === localId ? null : m));
}

/** The server's copy of a locally echoed message replaces the echo; true when there was one. */
export function ackLocalEcho(localId: string, message: Message): boolean {
  if (!pending.delete(localId)) return false;
  changed();
  let replaced = false;
  updateMessages((m) => {
    if (m.local?.localId !== localId) return m;
    replaced = true;
    return message;
  });
  if (!replaced) receiveNewMessage(message);
  return true;
}
