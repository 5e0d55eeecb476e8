import { api } from "./api.js";
import { draftSent, switchConversation } from "./composeDrafts.js";
import type { ScheduledMessage } from "./composeData.js";
import { channelId, composeOpen, content, destination, dmTo, editingScheduled, topic } from "./composeState.js";
import { send, type Destination } from "./outbox.js";

/**
 * Scheduled messages (POST/PATCH/DELETE /scheduled_messages): "Send later" from the compose box,
 * and from #scheduled: edit in the compose box, reschedule, send now, delete.
 */
function recipient(d: Destination) {
  return d.kind === "channel" ? { type: "stream", to: d.channelId, topic: d.topic } : { type: "direct", to: d.userIds };
}

/** Schedules the compose box's message for `at` (seconds), or saves the one being edited (at its time, or `at`). */
export async function scheduleCompose(at: number | null): Promise<void> {
  const d = destination();
  if (!d) throw new Error("Choose a channel or a person first.");
  const text = content.value;
  if (text.trim() === "") throw new Error("The message is empty.");
  const editing = editingScheduled.value;
  if (editing !== null) {
    await api.patch(`/scheduled_messages/${editing}`, { ...recipient(d), content: text, ...(at === null ? {} : { scheduled_delivery_timestamp: at }) });
    editingScheduled.value = null;
  } else {
    if (at === null) throw new Error("Choose when to send it.");
    await api.once.post("/scheduled_messages", { ...recipient(d), content: text, scheduled_delivery_timestamp: at });
    draftSent();
  }
  content.value = "";
}

function destinationOf(m: ScheduledMessage): Destination {
  return m.type === "stream" ? { kind: "channel", channelId: m.to as number, topic: m.topic ?? "" } : { kind: "dm", userIds: m.to as number[] };
}

/** Opens a scheduled message in the compose box; its button then saves the changes. */
export function editScheduled(m: ScheduledMessage): void {
  const d = destinationOf(m);
  switchConversation(() => {
    if (d.kind === "channel") {
      dmTo.value = null;
      channelId.value = d.channelId;
      topic.value = d.topic;
    } else {
      dmTo.value = d.userIds;
    }
  });
  editingScheduled.value = m.scheduled_message_id;
  content.value = m.content;
  composeOpen.value = true;
}

export function cancelScheduledEdit(): void {
  editingScheduled.value = null;
  content.value = "";
}

export function reschedule(m: ScheduledMessage, at: number): Promise<unknown> {
  return api.patch(`/scheduled_messages/${m.scheduled_message_id}`, { scheduled_delivery_timestamp: at });
}

export function deleteScheduled(m: ScheduledMessage): Promise<unknown> {
  return api.del(`/scheduled_messages/${m.scheduled_message_id}`);
}

/** Sends it now: taken off the schedule first (so that it is never sent twice), then sent as usual. */
export async function sendScheduledNow(m: ScheduledMessage): Promise<void> {
  await deleteScheduled(m);
  if (editingScheduled.value === m.scheduled_message_id) cancelScheduledEdit();
  await send(destinationOf(m), m.content);
}
