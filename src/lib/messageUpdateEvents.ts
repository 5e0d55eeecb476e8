import type { Tx } from "../db/tx.js";

/** One update_message event per distinct flags list, as Zulip's per-user flags. */
export function sendUpdateEvents(tx: Tx, event: Record<string, unknown>, flagsByUser: Map<number, string[]>): void {
  const groups = new Map<string, number[]>();
  for (const [userId, flags] of flagsByUser) {
    const key = JSON.stringify(flags);
    groups.set(key, [...(groups.get(key) ?? []), userId]);
  }
  for (const [key, users] of groups) tx.sendEventOnCommit({ type: "update_message", ...event, flags: JSON.parse(key) }, users);
}
