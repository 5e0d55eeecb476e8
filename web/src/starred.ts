import { signal } from "@preact/signals";
import type { ClientEvent } from "../../src/contract/events.js";

/**
 * The ids of the user's starred messages (/register's starred_messages, kept by flag and
 * delete events), for the sidebar's count when starred_message_counts is on.
 */
export const starredIds = signal(new Set<number>());

export function loadStarred(state: { starred_messages?: number[] }): void {
  starredIds.value = new Set(state.starred_messages ?? []);
}

/** Follows update_message_flags (starred) and delete_message events; other events are ignored. */
export function applyStarredEvent(event: ClientEvent): void {
  if (event.type === "update_message_flags" && event.flag === "starred") {
    const next = new Set(starredIds.value);
    for (const id of event.messages) {
      if (event.op === "add") next.add(id);
      else next.delete(id);
    }
    if (event.op === "remove" && event.all) next.clear();
    starredIds.value = next;
  } else if (event.type === "delete_message") {
    const ids: number[] = "message_ids" in event ? event.message_ids : [event.message_id];
    if (!ids.some((id) => starredIds.value.has(id))) return;
    const next = new Set(starredIds.value);
    for (const id of ids) next.delete(id);
    starredIds.value = next;
  }
}
