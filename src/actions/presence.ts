import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { realmSettings } from "../models/realmSettings.js";
import { userSettings } from "../models/userSettings.js";
import { initialStateStore } from "../store/initialState.js";
import { type PresenceRow, presenceStore } from "../store/presence.js";
import { userStore } from "../store/users.js";

/** Zulip's presence constants (seconds). */
export const PRESENCE_PING_INTERVAL_SECONDS = 60;
export const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 140;
const PRESENCE_HISTORY_DAYS = 14;

export type PresenceStatus = "active" | "idle";

/** Zulip's modern presence format. */
export function modernPresence(row: Pick<PresenceRow, "last_active_time" | "last_connected_time">) {
  return { active_timestamp: row.last_active_time ?? 0, idle_timestamp: row.last_connected_time ?? 0 };
}

/** Zulip's legacy format: a "website" client entry and the aggregate of the user's clients. */
export function legacyPresence(row: Pick<PresenceRow, "last_active_time" | "last_connected_time">, now: number) {
  const activeRecently = row.last_active_time !== null && now - row.last_active_time < PRESENCE_OFFLINE_THRESHOLD_SECONDS;
  const status = activeRecently ? "active" : "idle";
  const timestamp = activeRecently ? row.last_active_time! : Math.max(row.last_connected_time ?? 0, row.last_active_time ?? 0);
  return { website: { client: "website", status, timestamp, pushable: false }, aggregated: { client: "website", status, timestamp } };
}

/** Whether anyone may see this user's presence (realm setting, then the user's own). */
export function presenceVisible(realm: Realm, user: User): boolean {
  return !realmSettings(realm).presence_disabled && userSettings(user).presence_enabled;
}

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

/**
 * Zulip's get_presences_for_realm: every visible presence of the realm within the history window,
 * keyed as the client asks, and the highest update id among them. A client that gives the
 * last_update_id it has gets only presences changed since (and that id back if none did);
 * without one, an empty answer has id -1.
 */
export async function realmPresences(
  q: Executor,
  realm: Realm,
  /** users: the realm's users, when the caller has them already. */
  opts: { slim: boolean; now: number; historyDays?: number; lastUpdateId?: number; users?: readonly User[] },
): Promise<{ presences: Record<string, unknown>; lastUpdateId: number }> {
  if (realmSettings(realm).presence_disabled || opts.historyDays === 0) return { presences: {}, lastUpdateId: opts.lastUpdateId ?? -1 };
  const after = opts.lastUpdateId ?? null;
  // Once a client has presences, the window adds nothing to the update ids (Zulip).
  const since = after === null || after <= 0 ? opts.now - (opts.historyDays ?? PRESENCE_HISTORY_DAYS) * 86400 : null;
  const rows = await initialStateStore.presences(q, realm.id, { since, after });
  const users = new Map((opts.users ?? (await userStore.listByIds(q, realm.id, rows.map((r) => r.user_id)))).map((u) => [u.id, u]));
  const presences: Record<string, unknown> = {};
  for (const row of rows) {
    const user = users.get(row.user_id);
    if (!user || !userSettings(user).presence_enabled) continue;
    if (opts.slim) presences[String(user.id)] = modernPresence(row);
    else presences[user.email] = legacyPresence(row, opts.now);
  }
  const lastUpdateId = rows.length > 0 ? Math.max(...rows.map((r) => r.last_update_id)) : (opts.lastUpdateId ?? -1);
  return { presences, lastUpdateId };
}
