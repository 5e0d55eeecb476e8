import { signal } from "@preact/signals";
import type { StreamEvent, SubscriptionEvent } from "../../src/contract/events.js";
import { api, myUserId } from "./api.js";
import { subscriptions, type Subscription } from "./state.js";

/**
 * Channels beyond the user's subscriptions, for the channels overlay (#channels/...): every
 * channel the user may see (GET /streams, fetched when the overlay opens) and their subscribers,
 * kept live by stream and subscription events. The subscriptions themselves stay in state.ts; a
 * stream event changes both.
 */

/** A channel as GET /streams and stream events give it (Zulip's stream object). */
export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  rendered_description?: string;
  invite_only: boolean;
  is_web_public: boolean;
  is_archived?: boolean;
  history_public_to_subscribers: boolean;
  message_retention_days: number | null;
  creator_id?: number | null;
  date_created?: number;
  can_add_subscribers_group?: GroupSetting;
  can_administer_channel_group?: GroupSetting;
  can_remove_subscribers_group?: GroupSetting;
  can_send_message_group?: GroupSetting;
  can_subscribe_group?: GroupSetting;
}

/** A group-setting value: a group's id, or an anonymous group of people and groups. */
export type GroupSetting = number | { direct_members: number[]; direct_subgroups: number[] };

/** A subscription as the server sends it: the channel and the user's own settings for it. */
export type FullSubscription = Subscription &
  Channel & {
    desktop_notifications: boolean | null;
    audible_notifications: boolean | null;
    push_notifications: boolean | null;
    email_notifications: boolean | null;
    subscribers?: number[];
  };

/** Every channel the user can see, by id; null until the overlay first fetches them. */
export const channelDirectory = signal<Map<number, Channel> | null>(null);
/** Subscribers of channels, by channel id (as far as fetched). */
export const channelSubscribers = signal(new Map<number, number[]>());

/** Subscriptions of channels archived (a delete event) since the page loaded: they come back on unarchiving. */
const archivedSubscriptions = new Map<number, Subscription>();
/** Channels this page archived: their delete event (sent to clients without archived channels) keeps them, as archived. */
const archivedHere = new Set<number>();

/** After DELETE /streams/{id} succeeded: the channel stays in the directory, archived (whether its event came first or not). */
export function noteArchived(channel: Channel): void {
  archivedHere.add(channel.stream_id);
  if (channelDirectory.value) channelDirectory.value = new Map(channelDirectory.value).set(channel.stream_id, { ...channel, is_archived: true });
}

/** GET /streams (archived ones too when asked) and the subscribers of each. */
export async function loadChannelDirectory(includeArchived: boolean): Promise<void> {
  const [{ streams }, subscribed] = await Promise.all([
    api.get<{ streams: Channel[] }>("/streams", { include_all: true, exclude_archived: !includeArchived }),
    api.get<{ subscriptions: FullSubscription[] }>("/users/me/subscriptions", { include_subscribers: true }),
  ]);
  channelDirectory.value = new Map(streams.map((s) => [s.stream_id, s]));
  const members = new Map(channelSubscribers.value);
  for (const sub of subscribed.subscriptions) if (sub.subscribers) members.set(sub.stream_id, sub.subscribers);
  channelSubscribers.value = members;
  // The others one by one, a few at a time.
  const missing = streams.filter((s) => !members.has(s.stream_id) && !s.is_archived).map((s) => s.stream_id);
  const worker = async () => {
    for (let id = missing.shift(); id !== undefined; id = missing.shift()) await loadSubscribers(id).catch(() => {});
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

export async function loadSubscribers(channelId: number): Promise<void> {
  const { subscribers } = await api.get<{ subscribers: number[] }>(`/streams/${channelId}/members`);
  channelSubscribers.value = new Map(channelSubscribers.value).set(channelId, subscribers);
}

function setSubscribers(channelIds: number[], change: (ids: number[]) => number[]): void {
  const map = new Map(channelSubscribers.value);
  for (const id of channelIds) {
    const known = map.get(id);
    if (known) map.set(id, change(known));
  }
  channelSubscribers.value = map;
}

/** subscription events: others joining and leaving (peer_*), and the user's own add/remove. */
export function applySubscriberEvent(event: SubscriptionEvent): void {
  if (event.op === "peer_add") setSubscribers(event.stream_ids, (ids) => [...new Set([...ids, ...event.user_ids])]);
  else if (event.op === "peer_remove") setSubscribers(event.stream_ids, (ids) => ids.filter((id) => !event.user_ids.includes(id)));
  else if (event.op === "add") {
    for (const sub of event.subscriptions) {
      const subscribers = sub.subscribers as number[] | undefined;
      if (subscribers) channelSubscribers.value = new Map(channelSubscribers.value).set(sub.stream_id, subscribers);
      else setSubscribers([sub.stream_id], (ids) => [...new Set([...ids, myUserId])]);
      // A subscription carries its channel's fields too.
      if (channelDirectory.value && !channelDirectory.value.has(sub.stream_id))
        channelDirectory.value = new Map(channelDirectory.value).set(sub.stream_id, sub as unknown as Channel);
    }
  } else if (event.op === "remove")
    setSubscribers(
      event.subscriptions.map((s) => s.stream_id),
      (ids) => ids.filter((id) => id !== myUserId),
    );
}

const EVENT_KEYS = new Set(["type", "op", "id", "stream_id", "name", "property", "value"]);

/** stream events: channels created (or unarchived), changed, and deleted (archived, or no longer visible). */
export function applyStreamEvent(event: StreamEvent): void {
  const directory = channelDirectory.value ? new Map(channelDirectory.value) : null;
  const subs = new Map(subscriptions.value);
  if (event.op === "create") {
    for (const stream of event.streams as Channel[]) {
      directory?.set(stream.stream_id, stream);
      archivedHere.delete(stream.stream_id);
      // Its subscribers, for the overlay's count (peer events only change lists already known).
      if (directory) void loadSubscribers(stream.stream_id).catch(() => {});
      const archived = archivedSubscriptions.get(stream.stream_id);
      if (archived) {
        archivedSubscriptions.delete(stream.stream_id);
        subs.set(stream.stream_id, { ...archived, ...stream });
      }
    }
  } else if (event.op === "update") {
    const change: Record<string, unknown> = { [event.property]: event.value };
    for (const [key, value] of Object.entries(event)) if (!EVENT_KEYS.has(key)) change[key] = value;
    const channel = directory?.get(event.stream_id);
    if (channel && directory) directory.set(event.stream_id, { ...channel, ...change });
    const sub = subs.get(event.stream_id);
    if (sub) subs.set(event.stream_id, { ...sub, ...change });
  } else if (event.op === "delete") {
    for (const id of event.stream_ids ?? event.streams.map((s) => s.stream_id)) {
      const channel = directory?.get(id);
      if (channel && archivedHere.has(id)) directory!.set(id, { ...channel, is_archived: true });
      else directory?.delete(id);
      const sub = subs.get(id);
      if (sub) archivedSubscriptions.set(id, sub);
      subs.delete(id);
    }
  } else return;
  if (directory) channelDirectory.value = directory;
  subscriptions.value = subs;
}
