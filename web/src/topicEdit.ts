import { VisibilityPolicy } from "../../src/contract/constants.js";
import { signal } from "@preact/signals";
import { api } from "./api.js";
import { narrowHash } from "./hash.js";
import { notice } from "./actions.js";
import { toggledResolved } from "./permissions.js";
import { lookup, route, type Message } from "./state.js";

/**
 * Renaming and moving topics (PATCH /messages/{id} with topic, stream_id and propagate_mode, as
 * Zulip's "Move topic" and "Move message" dialogs do), and resolving: the ✔ prefix on the whole
 * topic. The screen changes when the update_message event comes back.
 */
export type PropagateMode = "change_one" | "change_later" | "change_all";

interface TopicDialogState {
  messageId: number;
  channelId: number;
  topic: string;
  timestamp: number;
  mode: PropagateMode;
}

export const topicDialog = signal<TopicDialogState | null>(null);

function report(error: unknown): void {
  notice.value = (error as Error).message;
  setTimeout(() => (notice.value = ""), 5000);
}

export function openTopicDialog(m: Message, mode: PropagateMode): void {
  if (m.type !== "stream") return;
  topicDialog.value = { messageId: m.id, channelId: m.stream_id!, topic: m.subject, timestamp: m.timestamp, mode };
}

/** When the open view is the topic that moved as a whole, it follows the topic to its new place. */
function follow(fromChannel: number, fromTopic: string, toChannel: number, toTopic: string): void {
  const r = route.value;
  if (r.kind !== "narrow") return;
  const channel = r.terms.find((t) => t.operator === "channel" && !t.negated)?.operand;
  const topic = r.terms.find((t) => t.operator === "topic" && !t.negated)?.operand;
  if (channel !== String(fromChannel) || topic?.toLowerCase() !== fromTopic.toLowerCase()) return;
  location.hash = narrowHash(
    [
      { operator: "channel", operand: String(toChannel), negated: false },
      { operator: "topic", operand: toTopic, negated: false },
    ],
    lookup,
  );
}

export async function moveMessages(d: TopicDialogState, to: { channelId: number; topic: string; notifyOld: boolean; notifyNew: boolean }): Promise<boolean> {
  const params: Record<string, string | boolean | number> = {
    propagate_mode: d.mode,
    send_notification_to_old_thread: to.notifyOld,
    send_notification_to_new_thread: to.notifyNew,
  };
  if (to.topic !== d.topic) params.topic = to.topic;
  if (to.channelId !== d.channelId) params.stream_id = to.channelId;
  if (params.topic === undefined && params.stream_id === undefined) return true;
  try {
    await api.patch(`/messages/${d.messageId}`, params);
    if (d.mode === "change_all") follow(d.channelId, d.topic, to.channelId, to.topic);
    return true;
  } catch (error) {
    report(error);
    return false;
  }
}

/** Resolve or unresolve the topic of a message (the whole topic, with Zulip's notice). */
export async function toggleResolved(m: Message): Promise<void> {
  if (m.type !== "stream") return;
  const topic = toggledResolved(m.subject);
  try {
    await api.patch(`/messages/${m.id}`, {
      topic,
      propagate_mode: "change_all",
      send_notification_to_old_thread: false,
      send_notification_to_new_thread: true,
    });
    follow(m.stream_id!, m.subject, m.stream_id!, topic);
  } catch (error) {
    report(error);
  }
}

/** Follow or stop following a topic (user_topics visibility_policy 3 / 0). */
export function setFollowed(channelId: number, topic: string, followed: boolean): void {
  api.post("/user_topics", { stream_id: channelId, topic, visibility_policy: followed ? VisibilityPolicy.FOLLOWED : VisibilityPolicy.INHERIT }).catch(report);
}

/** A topic's visibility policy (user_topics): 0 inherit, 1 muted, 2 unmuted, 3 followed. */
export function setTopicVisibility(channelId: number, topic: string, policy: number): void {
  api.post("/user_topics", { stream_id: channelId, topic, visibility_policy: policy }).catch(report);
}
