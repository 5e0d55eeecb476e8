import type { Config } from "../../config.js";
import type { Realm, User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import type { ClientDescriptor } from "../clientEvents.js";
import { fetchChannelState } from "./channels.js";
import { fetchMessageState } from "./messages.js";
import { fetchPresenceState } from "./presence.js";
import { fetchRealmState } from "./realm.js";
import { fetchUserState } from "./users.js";

/** What POST /register asked for, as the initial-state sections need it. */
export interface StateRequest {
  user: User;
  realm: Realm;
  config: Config;
  client: ClientDescriptor;
  /** Sections to include (Zulip's fetch_event_types); null = every section. */
  fetchEventTypes: ReadonlySet<string> | null;
  includeSubscribers: boolean | "partial";
  presenceHistoryLimitDays: number | null;
}

/** Whether the client asked for the section named after an event type (Zulip's `want`). */
export function wants(req: StateRequest, section: string): boolean {
  return req.fetchEventTypes === null || req.fetchEventTypes.has(section);
}

/**
 * Zulip's fetch_initial_state_data: the state of every section the client asked for, read in
 * the caller's snapshot. Each module owns the sections of its area.
 */
export async function fetchInitialState(q: Executor, req: StateRequest): Promise<Record<string, unknown>> {
  return {
    ...(await fetchRealmState(q, req)),
    ...(await fetchUserState(q, req)),
    ...(await fetchChannelState(q, req)),
    ...(await fetchMessageState(q, req)),
    ...(await fetchPresenceState(q, req)),
  };
}
