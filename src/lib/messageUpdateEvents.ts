import type { Tx } from "../db/tx.js";
import type { SpectatorAudience } from "../events/types.js";

/**
 * One update_message event per distinct flags list, as Zulip's per-user flags. A channel message's
 * edit (`spectators` given) also goes once, to no user, to the organization's visitors' queues,
 * which decide whether the channel is one they may read (events/visitorQueues.ts).
 */
export function sendUpdateEvents(tx: Tx, event: Record<string, unknown>, flagsByUser: Map<number, string[]>, spectators?: SpectatorAudience): void {
  const groups = new Map<string, number[]>();
  for (const [userId, flags] of flagsByUser) {
    const key = JSON.stringify(flags);
    groups.set(key, [...(groups.get(key) ?? []), userId]);
  }
  for (const [key, users] of groups) tx.sendEventOnCommit({ type: "update_message", ...event, flags: JSON.parse(key) }, users);
  if (spectators) tx.sendEventOnCommit({ type: "update_message", ...event, flags: ["read"], spectators }, []);
}
