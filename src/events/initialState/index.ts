import type { Executor } from "../../db/tx.js";
import { fetchChannelState } from "./channels.js";
import { fetchMessageState } from "./messages.js";
import { fetchPresenceState } from "./presence.js";
import { fetchRealmState } from "./realm.js";
import { fetchUserState } from "./users.js";
import { type SectionRequest, SharedReads, type StateRequest } from "./request.js";

/**
 * Zulip's fetch_initial_state_data: the state of every section the client asked for, read in
 * the caller's snapshot. Each module owns the sections of its area.
 */
export async function fetchInitialState(q: Executor, request: StateRequest): Promise<Record<string, unknown>> {
  const req: SectionRequest = { ...request, reads: new SharedReads(q, request.user) };
  return {
    ...(await fetchRealmState(q, req)),
    ...(await fetchUserState(q, req)),
    ...(await fetchChannelState(q, req)),
    ...(await fetchMessageState(q, req)),
    ...(await fetchPresenceState(q, req)),
  };
}
