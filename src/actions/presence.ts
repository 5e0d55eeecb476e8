import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { type PresenceStatus, PRESENCE_OFFLINE_THRESHOLD_SECONDS, presenceVisible, legacyPresence, modernPresence } from "../lib/presence.js";
import { type PresenceRow, presenceStore } from "../store/presence.js";
import { userStore } from "../store/users.js";

/**
 * Zulip's do_update_user_presence: every ping records the connection, an active one the activity.
 * Others are told only when the user comes online or becomes active again, not on every ping.
 */
export async function doUpdateUserPresence(tx: Tx, realm: Realm, user: User, status: PresenceStatus, now: number): Promise<void> {
  const old = await presenceStore.get(tx.q, user.id);
  const row: PresenceRow = {
    user_id: user.id,
    realm_id: realm.id,
    last_connected_time: now,
    last_active_time: status === "active" ? now : (old?.last_active_time ?? null),
    last_update_id: await presenceStore.nextUpdateId(tx.q, realm.id),
  };
  await presenceStore.upsert(tx.q, row);
  const wasOffline = !old || old.last_connected_time === null || now - old.last_connected_time > PRESENCE_OFFLINE_THRESHOLD_SECONDS;
  const becameActive = status === "active" && (old?.last_active_time == null || now - old.last_active_time > PRESENCE_OFFLINE_THRESHOLD_SECONDS);
  if (!(wasOffline || becameActive) || !presenceVisible(realm, user)) return;
  const audience = await userStore.listActiveIds(tx.q, realm.id);
  tx.sendEventOnCommit(
    {
      type: "presence",
      user_id: user.id,
      email: user.email,
      server_timestamp: now,
      presence: { website: legacyPresence(row, now).website },
      // The modern form, for clients with simplified_presence_events (events/clientEvents.ts).
      modern_presences: { [String(user.id)]: modernPresence(row) },
    },
    audience,
  );
}
