import type { SpectatorAudience } from "../contract/events.js";
import { eventsForClient } from "./clientEvents.js";
import type { ParleyEvent } from "./dispatch.js";
import type { EventQueue } from "./queues.js";

/**
 * Visitors' event queues (issue 38; Zulip's spectators have none: Parley's web app polls one).
 * A visitor's queue belongs to no user: it is its organization's, and gets only what a visitor may
 * read, decided when each event is delivered against the organization's web-public channels as
 * they are then (kept here per organization, loaded by the first visitor's POST /register and
 * updated by the channel events that carry a SpectatorAudience):
 * - `message`: a new message of a web-public channel, flags ["read"] (GET /messages's for visitors);
 * - `update_message`: an edit or move of such a message; a move out to a channel visitors may not
 *   read is a `delete_message` of the moved messages; a move in from one is not announced (its
 *   old place and topic are not theirs to see; the messages appear on the next fetch);
 * - `delete_message` and `reaction` (without the deprecated `user` object and its email) of such
 *   messages;
 * - `stream` updates of the name and description of a web-public channel; a channel visitors stop
 *   being able to read (made private or not web-public, archived) is a `stream` `delete`;
 * - spectator access turned off ends the organization's visitor queues.
 * Nothing else: no users, presence, typing, direct messages or settings. Heartbeats as any queue.
 * Cost: at most VISITOR_QUEUES_PER_REALM queues per organization and VISITOR_QUEUES_PER_ADDRESS
 * per client address, the oldest dropped; idle ones go after the server's queue timeout.
 */
export const VISITOR_QUEUES_PER_REALM = 1000;
export const VISITOR_QUEUES_PER_ADDRESS = 20;

/** A channel visitors may read: its recipient (reactions and previews name the message's recipient). */
interface ReadableChannel {
  streamId: number;
  recipientId: number;
}

interface RealmVisitors {
  queues: Set<EventQueue>;
  /** The channels visitors may read, by id; null until the first register has read them. */
  readable: Map<number, ReadableChannel> | null;
  byRecipient: Map<number, number>;
  /** Events that came while `readable` was being read, with the queues they were for. */
  pending: Array<{ event: ParleyEvent; queues: EventQueue[]; xid: bigint | undefined }>;
}

export class VisitorQueues {
  private readonly realms = new Map<number, RealmVisitors>();
  private readonly byAddress = new Map<string, EventQueue[]>();
  private readonly addressOf = new Map<EventQueue, string>();

  /** `drop` deletes a queue from the registry (which calls `remove`). */
  constructor(private readonly drop: (queue: EventQueue) => void) {}

  get size(): number {
    return this.addressOf.size;
  }

  has(queue: EventQueue): boolean {
    return this.addressOf.has(queue);
  }

  /** A new visitor queue; older ones over the caps are dropped. Whether its realm's channels must be read (loaded). */
  add(queue: EventQueue, address: string): boolean {
    const realmId = queue.client.realmId;
    let realm = this.realms.get(realmId);
    if (!realm) this.realms.set(realmId, (realm = { queues: new Set(), readable: null, byRecipient: new Map(), pending: [] }));
    while (realm.queues.size >= VISITOR_QUEUES_PER_REALM) this.drop(realm.queues.values().next().value!);
    // Dropping the realm's last queue forgot the realm: it is known again.
    if (!this.realms.has(realmId)) this.realms.set(realmId, realm);
    for (let mine = this.byAddress.get(address); mine && mine.length >= VISITOR_QUEUES_PER_ADDRESS; mine = this.byAddress.get(address)) {
      this.drop(mine[0]!);
    }
    realm.queues.add(queue);
    this.addressOf.set(queue, address);
    const list = this.byAddress.get(address);
    if (list) list.push(queue);
    else this.byAddress.set(address, [queue]);
    return realm.readable === null;
  }

  remove(queue: EventQueue): void {
    const address = this.addressOf.get(queue);
    if (address === undefined) return;
    this.addressOf.delete(queue);
    const list = this.byAddress.get(address)?.filter((q) => q !== queue) ?? [];
    if (list.length > 0) this.byAddress.set(address, list);
    else this.byAddress.delete(address);
    const realm = this.realms.get(queue.client.realmId);
    realm?.queues.delete(queue);
    if (realm?.queues.size === 0) this.realms.delete(queue.client.realmId);
  }

  /**
   * The channels visitors of `realmId` may read, as a register's snapshot saw them. The first
   * reading wins; events delivered meanwhile are then applied in order (each sets a channel's
   * state outright, so one the snapshot already saw is harmless).
   */
  loaded(realmId: number, channels: ReadonlyArray<{ id: number; recipient_id: number }>): void {
    const realm = this.realms.get(realmId);
    if (!realm || realm.readable !== null) return;
    realm.readable = new Map(channels.map((c) => [c.id, { streamId: c.id, recipientId: c.recipient_id }]));
    for (const c of channels) realm.byRecipient.set(c.recipient_id, c.id);
    const pending = realm.pending;
    realm.pending = [];
    for (const { event, queues, xid } of pending) this.process(realm, event, queues, xid);
  }

  /** A committed event: to the visitor queues of its organization, in the form they may see, if any. */
  deliver(event: ParleyEvent, xid: bigint | undefined): void {
    const audience = event.spectators as SpectatorAudience | undefined;
    const realmId = audience?.realm_id ?? (event.all_public_streams as { realm_id: number } | undefined)?.realm_id;
    if (realmId === undefined) return;
    const realm = this.realms.get(realmId);
    if (!realm) return;
    if (realm.readable === null) realm.pending.push({ event, queues: [...realm.queues], xid });
    else this.process(realm, event, realm.queues, xid);
  }

  private process(realm: RealmVisitors, event: ParleyEvent, queues: Iterable<EventQueue>, xid: bigint | undefined): void {
    const forms = this.formsFor(realm, event);
    if (forms === "end") {
      for (const queue of [...realm.queues]) this.drop(queue);
      return;
    }
    if (forms.length === 0) return;
    for (const queue of queues) {
      if (!realm.queues.has(queue)) continue;
      if (xid !== undefined && queue.stateSnapshot?.sees(xid)) continue;
      for (const form of forms) for (const clientEvent of eventsForClient(queue.client, queue.id, form)) queue.push(clientEvent);
    }
  }

  /** What visitors get of `event` (none, usually), after applying its changes to the channels they may read. */
  private formsFor(realm: RealmVisitors, event: ParleyEvent): ParleyEvent[] | "end" {
    const readable = realm.readable!;
    const audience = event.spectators as SpectatorAudience | undefined;
    switch (event.type) {
      case "message": {
        if (!event.all_public_streams) return [];
        const message = event.message as { type?: string; stream_id?: number };
        if (message.type !== "stream" || message.stream_id === undefined || !readable.has(message.stream_id)) return [];
        return [{ type: "message", message: event.message, flags: ["read"], raw_content: event.raw_content }];
      }
      case "update_message":
        return audience ? updateForms(realm, event, audience) : [];
      case "delete_message":
        if (!audience || event.message_type !== "stream" || !readable.has(event.stream_id as number)) return [];
        return [{ type: "delete_message", message_ids: event.message_ids, message_type: "stream", stream_id: event.stream_id, topic: event.topic }];
      case "reaction": {
        if (audience?.recipient_id === undefined || !realm.byRecipient.has(audience.recipient_id)) return [];
        const { type, op, user_id, message_id, emoji_name, emoji_code, reaction_type } = event;
        return [{ type, op, user_id, message_id, emoji_name, emoji_code, reaction_type }];
      }
      case "stream":
        return audience ? streamForms(realm, event, audience) : [];
      case "realm":
        return audience && event.property === "enable_spectator_access" && event.value === false ? "end" : [];
      default:
        return [];
    }
  }
}

/** The keys of update_message a visitor gets (not the flags of the editor's audience, nor anything added later unread). */
const UPDATE_MESSAGE_KEYS = [
  "user_id",
  "edit_timestamp",
  "message_id",
  "message_ids",
  "rendering_only",
  "content",
  "rendered_content",
  "is_me_message",
  "orig_content",
  "orig_rendered_content",
  "prev_rendered_content_version",
  "stream_name",
  "stream_id",
  "new_stream_id",
  "orig_subject",
  "subject",
  "topic_links",
  "propagate_mode",
] as const;

function updateForms(realm: RealmVisitors, event: ParleyEvent, audience: SpectatorAudience): ParleyEvent[] {
  const readable = realm.readable!;
  const from =
    typeof event.stream_id === "number" ? event.stream_id : audience.recipient_id !== undefined ? realm.byRecipient.get(audience.recipient_id) : undefined;
  if (from === undefined || !readable.has(from)) return [];
  const to = typeof event.new_stream_id === "number" ? event.new_stream_id : from;
  if (to !== from && !readable.has(to)) {
    const topic = typeof event.orig_subject === "string" ? event.orig_subject : event.subject;
    return [{ type: "delete_message", message_ids: event.message_ids, message_type: "stream", stream_id: from, topic }];
  }
  const form: ParleyEvent = { type: "update_message" };
  for (const key of UPDATE_MESSAGE_KEYS) if (key in event) form[key] = event[key];
  form.flags = ["read"];
  return [form];
}

/** The stream properties whose changes visitors get, for channels they may read. */
const STREAM_PROPERTIES = new Set(["name", "description"]);

function streamForms(realm: RealmVisitors, event: ParleyEvent, audience: SpectatorAudience): ParleyEvent[] {
  const readable = realm.readable!;
  const forms: ParleyEvent[] = [];
  for (const channel of audience.streams ?? []) {
    const was = readable.get(channel.stream_id);
    if (channel.readable) {
      readable.set(channel.stream_id, { streamId: channel.stream_id, recipientId: channel.recipient_id });
      realm.byRecipient.set(channel.recipient_id, channel.stream_id);
    } else {
      readable.delete(channel.stream_id);
      if (was) realm.byRecipient.delete(was.recipientId);
    }
    if (was && !channel.readable) {
      forms.push({ type: "stream", op: "delete", streams: [{ stream_id: channel.stream_id }], stream_ids: [channel.stream_id] });
    } else if (was && event.op === "update" && STREAM_PROPERTIES.has(event.property as string)) {
      const form: ParleyEvent = { type: "stream", op: "update", stream_id: channel.stream_id, name: event.name, property: event.property, value: event.value };
      if ("rendered_description" in event) form.rendered_description = event.rendered_description;
      forms.push(form);
    }
  }
  return forms;
}
