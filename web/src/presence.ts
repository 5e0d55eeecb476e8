import type { PresenceResponse } from "../../src/contract/responses.js";
import { signal } from "@preact/signals";
import { api } from "./api.js";

/**
 * Presence as Zulip's web app keeps it: the realm's presences from /register (slim form) and
 * `presence` events (simplified_presence_events), and our own reported every minute, "active"
 * while the window has focus.
 */
export interface Presence {
  active_timestamp: number;
  idle_timestamp: number;
}

export const presences = signal(new Map<number, Presence>());
/** Seconds to add to the local clock to get the server's. */
let clockOffset = 0;

/** Zulip's OFFLINE_THRESHOLD_SECS: no report for longer than this means offline. */
const OFFLINE_SECONDS = 140;
const PING_MS = 60_000;

export function loadPresences(raw: Record<string, Presence> | undefined, serverTimestamp: number | undefined): void {
  if (serverTimestamp) clockOffset = serverTimestamp - Date.now() / 1000;
  mergePresences(raw ?? {});
}

export function mergePresences(raw: Record<string, Presence>): void {
  const map = new Map(presences.value);
  for (const [id, p] of Object.entries(raw)) map.set(Number(id), p);
  presences.value = map;
}

export function status(userId: number): "active" | "idle" | "offline" {
  const p = presences.value.get(userId);
  if (!p) return "offline";
  const now = Date.now() / 1000 + clockOffset;
  if (now - p.active_timestamp < OFFLINE_SECONDS) return "active";
  if (now - p.idle_timestamp < OFFLINE_SECONDS) return "idle";
  return "offline";
}

async function ping(): Promise<void> {
  try {
    const result = await api.once.post<PresenceResponse>("/users/me/presence", {
      status: document.hasFocus() ? "active" : "idle",
      slim_presence: true,
      new_user_input: document.hasFocus(),
    });
    if (result.server_timestamp) clockOffset = result.server_timestamp - Date.now() / 1000;
    if (result.presences) mergePresences(result.presences);
  } catch {
    // the next ping tries again
  }
}

export function startPresence(): void {
  void ping();
  setInterval(ping, PING_MS);
  window.addEventListener("focus", () => void ping());
}
