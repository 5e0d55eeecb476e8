import { type Realm, type User } from "../db/schema.js";
import { type Executor } from "../db/tx.js";
import { realmSettings } from "../models/realmSettings.js";
import { userSettings } from "../models/userSettings.js";
import { initialStateStore } from "../store/initialState.js";
import { type PresenceRow } from "../store/presence.js";
import { userStore } from "../store/users.js";

/** Zulip's presence constant (seconds). */
export const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 140;

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
  const users = new Map(
    (
      opts.users ??
      (await userStore.listByIds(
        q,
        realm.id,
        rows.map((r) => r.user_id),
      ))
    ).map((u) => [u.id, u]),
  );
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

const PRESENCE_HISTORY_DAYS = 14;
