import { signal } from "@preact/signals";
import type { Destination } from "./outbox.js";

/**
 * The compose box's contents, kept in signals outside the message view so that navigation,
 * reconnection and re-registration never lose what is typed (Compose.tsx shows them; drafts,
 * scheduled messages and snippets read and fill them).
 */
export const content = signal("");
export const topic = signal("");
export const channelId = signal<number | null>(null);
/** Direct message recipients (other than me); null when the box is for a channel, [] while none is chosen yet. */
export const dmTo = signal<number[] | null>(null);
/**
 * Whether the compose box is open. Closed by default, as Zulip's: a bar of buttons to reply or
 * start a conversation; the text typed stays (as a draft) while it is closed.
 */
export const composeOpen = signal(false);
/** The scheduled message being edited in the compose box: its button saves instead of sending. */
export const editingScheduled = signal<number | null>(null);

export function destination(): Destination | null {
  if (dmTo.value) return dmTo.value.length > 0 ? { kind: "dm", userIds: dmTo.value } : null;
  if (channelId.value !== null) return { kind: "channel", channelId: channelId.value, topic: topic.value.trim() };
  return null;
}

/** Where the compose box points, as one string: "c:<channel>:<topic>", "d:<ids>" or "". */
export function destinationKey(d: Destination | null = destination()): string {
  if (!d) return "";
  return d.kind === "channel" ? `c:${d.channelId}:${d.topic.toLowerCase()}` : `d:${[...d.userIds].sort((a, b) => a - b).join(",")}`;
}
