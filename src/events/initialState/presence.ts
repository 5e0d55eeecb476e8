import type { Executor } from "../../db/tx.js";
import { realmPresences } from "../../lib/presence.js";
import { nowSeconds } from "../../util/time.js";
import { type SectionRequest, wants } from "./request.js";

/**
 * The presence section (Zulip's get_presences_for_realm): the modern format keyed by user id for
 * slim_presence (and simplified_presence_events) clients, the legacy format keyed by email otherwise.
 */
export async function fetchPresenceState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  if (!wants(req, "presence")) return {};
  const now = nowSeconds();
  // Zulip sends visitors no presence (and presence_disabled).
  if (req.visitor) return { presences: {}, server_timestamp: now };
  const slim = req.client.slimPresence || req.client.capabilities.simplified_presence_events;
  const users = req.reads.readsRealmUsers(req) ? await req.reads.realmUsers() : undefined;
  const { presences, lastUpdateId } = await realmPresences(q, req.realm, { slim, now, historyDays: req.presenceHistoryLimitDays ?? undefined, users });
  return { presences, presence_last_update_id: lastUpdateId, server_timestamp: now };
}
