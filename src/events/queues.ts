import { randomUUID } from "node:crypto";
import type { AuthChange } from "../db/authCache.js";
import type { Executor } from "../db/tx.js";
import * as z from "zod";
import { eventQueueStore } from "../store/eventQueues.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { acceptsMessages, type ClientDescriptor, ClientEvent, eventsForClient } from "./clientEvents.js";
import type { EventDispatcher, ParleyEvent } from "./dispatch.js";
import { type Flushable, type HeartbeatEntry, ParkedPolls } from "./parkedPolls.js";
import type { StateSnapshot } from "./snapshotFilter.js";
import { VisitorQueues } from "./visitorQueues.js";

/**
 * Event queues (Zulip's zerver/tornado/event_queue.py): one per registered client, held in this
 * process's memory. Each numbers its events from 0; GET /events long-polls for those after
 * `last_event_id`, which also acknowledges (prunes) what came before. A queue nobody polled for
 * `timeoutMs` is dropped. On a graceful shutdown every queue is saved to the database and
 * restored at the next start, so clients keep polling across restarts.
 */
/** An event in one queue: its number there and the form its client gets (shared between queues). */
export interface QueuedEvent {
  id: number;
  event: ClientEvent;
}

/**
 * Events as the JSON list GET /events answers: each shared form's JSON with the queue's event id
 * added last (as `{ ...event, id }` would: the queue's id wins).
 */
export function eventsJson(events: readonly QueuedEvent[]): string {
  const one = (e: QueuedEvent) => (e.event.json === "{}" ? `{"id":${e.id}}` : `${e.event.json.slice(0, -1)},"id":${e.id}}`);
  return `[${events.map(one).join(",")}]`;
}

const OPEN_LIST = Buffer.from("[");
const EMPTY_LIST = Buffer.from("[]");

/**
 * The same JSON as eventsJson, as byte chunks: each event's shared bytes (ClientEvent.head) and
 * a few bytes of its own (the id, the separators). No event is serialized or encoded again.
 */
export function eventsChunks(events: readonly QueuedEvent[]): Buffer[] {
  if (events.length === 0) return [EMPTY_LIST];
  const chunks: Buffer[] = [OPEN_LIST];
  let remaining = events.length;
  for (const { event, id } of events) {
    const end = --remaining === 0 ? "]" : ",";
    chunks.push(event.head, Buffer.from(event.json === "{}" ? `"id":${id}}${end}` : `,"id":${id}}${end}`));
  }
  return chunks;
}

/** Answers a parked poll with its events (none: cancelled, replaced, or the server is stopping). */
export type PollAnswer = (events: readonly QueuedEvent[]) => void;

const NO_EVENTS: readonly QueuedEvent[] = Object.freeze([]);

/**
 * The queue is its own entry in the shared heartbeat list (parkedPolls.ts): it has at most one
 * parked poll, so parking one allocates nothing beyond what the caller passes.
 */
export class EventQueue implements HeartbeatEntry, Flushable {
  private events: QueuedEvent[] = [];
  private nextEventId = 0;
  /** The newest id acknowledged and dropped; a poll may not ask for anything older. */
  private newestPrunedId = -1;
  /** The parked poll's answer, and the last event id its client has. */
  private respond: PollAnswer | null = null;
  private waitingAfter = -1;
  private flushScheduled = false;
  lastActivityMs: number;
  /** Multi-process mode: the snapshot the client's initial state was read from (snapshotFilter.ts). */
  stateSnapshot: StateSnapshot | null = null;
  heartbeatAt = 0;
  prevHeartbeat: HeartbeatEntry | null = null;
  nextHeartbeat: HeartbeatEntry | null = null;
  inHeartbeats = false;

  constructor(
    readonly id: string,
    readonly client: ClientDescriptor,
    private readonly parked: ParkedPolls,
    nowMs: number,
  ) {
    this.lastActivityMs = nowMs;
    this.idJson = JSON.stringify(id);
  }

  /** The id as JSON, for every answer's `queue_id`. */
  readonly idJson: string;

  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  get isPolled(): boolean {
    return this.respond !== null;
  }

  push(event: ClientEvent): void {
    this.events.push({ id: this.nextEventId++, event });
    if (this.respond && !this.flushScheduled) {
      // Events of one commit are pushed in one tick; answer once with all of them.
      this.flushScheduled = true;
      this.parked.flushSoon(this);
    }
  }

  /** ParkedPolls: this tick's events are in. */
  flush(): void {
    this.flushScheduled = false;
    this.answerWaiter();
  }

  /** ParkedPolls: the parked poll waited the heartbeat interval with nothing to answer. */
  heartbeat(): void {
    this.push(new ClientEvent({ type: "heartbeat" }));
  }

  /** Drops the events up to `lastEventId` (acknowledged by the client). */
  prune(lastEventId: number): void {
    let n = 0;
    for (const { id } of this.events) {
      if (id > lastEventId) break;
      this.newestPrunedId = id;
      n++;
    }
    if (n > 0) this.events.splice(0, n);
  }

  /** Whether the client asks for events this queue already dropped. */
  isPrunedPast(lastEventId: number): boolean {
    return lastEventId < this.newestPrunedId;
  }

  /** The ids of the messages whose events the client has not acknowledged yet. */
  unacknowledgedMessageIds(): number[] {
    const ids: number[] = [];
    for (const { event } of this.events) {
      const message = event.body.type === "message" ? (event.body.message as { id?: unknown } | undefined) : undefined;
      if (typeof message?.id === "number") ids.push(message.id);
    }
    return ids;
  }

  /** The events after `lastEventId` (ids ascend): a copy, or a shared empty list. */
  eventsAfter(lastEventId: number): readonly QueuedEvent[] {
    const events = this.events;
    const newest = events.at(-1);
    if (newest === undefined || newest.id <= lastEventId) return NO_EVENTS;
    return events.slice(events.findIndex((e) => e.id > lastEventId));
  }

  /**
   * Waits for events after `lastEventId`: `respond` gets them at once when there are some (before
   * this returns), else when some arrive, with a heartbeat event after the heartbeat interval of
   * silence, or with nothing when `cancel(respond)` is called. A newer poll replaces a parked one,
   * which is answered with nothing (Zulip finishes the older handler).
   */
  wait(lastEventId: number, nowMs: number, respond: PollAnswer): void {
    this.lastActivityMs = nowMs;
    const pending = this.eventsAfter(lastEventId);
    if (pending.length > 0) return respond(pending);
    this.finishWaiter([]);
    this.respond = respond;
    this.waitingAfter = lastEventId;
    this.parked.startHeartbeat(this);
  }

  /** Ends the poll `respond` answers, with nothing, if it is still parked (its client hung up). */
  cancel(respond: PollAnswer): void {
    if (this.respond === respond) this.finishWaiter([]);
  }

  /**
   * Ends a pending poll with the events it waits for that are already in, if any (the queue is
   * being deleted: as Zulip's ClientDescriptor.cleanup, which finishes the handler with the
   * queue's contents, so that events pushed in the same tick are not lost).
   */
  finishWaiterWithPending(): void {
    if (this.respond) this.finishWaiter(this.eventsAfter(this.waitingAfter));
  }

  /** Ends a pending poll (queue deleted, server shutting down). */
  finishWaiter(events: readonly QueuedEvent[]): void {
    const respond = this.respond;
    if (!respond) return;
    this.respond = null;
    this.parked.stopHeartbeat(this);
    respond(events);
  }

  private answerWaiter(): void {
    if (!this.respond) return;
    const events = this.eventsAfter(this.waitingAfter);
    if (events.length === 0) return;
    this.lastActivityMs = Date.now();
    this.finishWaiter(events);
  }

  snapshot(): SavedQueue {
    const events = this.events.map(({ id, event }) => ({ ...event.body, id }));
    return {
      id: this.id,
      client: this.client,
      events,
      nextEventId: this.nextEventId,
      newestPrunedId: this.newestPrunedId,
      lastActivityMs: this.lastActivityMs,
    };
  }

  static restore(saved: SavedQueue, parked: ParkedPolls): EventQueue {
    const queue = new EventQueue(saved.id, saved.client, parked, saved.lastActivityMs);
    queue.events = saved.events.map(({ id, ...body }) => ({ id, event: new ClientEvent(body) }));
    queue.nextEventId = saved.nextEventId;
    queue.newestPrunedId = saved.newestPrunedId;
    return queue;
  }
}

/** Where in the bus's stream saved queues are (events/bus.ts): events after `seq`, except `delivered`, are missing. */
export interface BusPosition {
  seq: number;
  delivered: string[];
}

export interface SavedQueue {
  id: string;
  client: ClientDescriptor;
  events: Array<ParleyEvent & { id: number }>;
  nextEventId: number;
  newestPrunedId: number;
  /** Saved: the time of the save (a restore starts the idle time again). */
  lastActivityMs: number;
  /** Multi-process mode: what the process had received from the bus. */
  bus?: BusPosition;
}

/** The shape of a saved queue (event_queues.data); events and capabilities are checked loosely. */
const SAVED_QUEUE = z.object({
  id: z.string(),
  client: z.looseObject({
    userId: z.number(),
    realmId: z.number(),
    eventTypes: z.array(z.string()).nullable(),
    narrow: z.array(z.tuple([z.string(), z.string()])),
    allPublicStreams: z.boolean(),
    applyMarkdown: z.boolean(),
    clientGravatar: z.boolean(),
    slimPresence: z.boolean(),
    capabilities: z.record(z.string(), z.unknown()),
    emptyTopicDisplayName: z.string(),
  }),
  events: z.array(z.looseObject({ id: z.number(), type: z.string() })),
  nextEventId: z.number(),
  newestPrunedId: z.number(),
  lastActivityMs: z.number(),
  bus: z.object({ seq: z.number(), delivered: z.array(z.string()) }).optional(),
});

export interface EventQueueOptions {
  /** A queue not polled for this long is dropped (Zulip: 10 minutes). */
  timeoutMs: number;
  /** An idle long-poll gets a heartbeat event after this long (Zulip: 45 s). */
  heartbeatMs: number;
  /**
   * Multi-process mode: this process's id, put before each new queue id (`<processId>:<uuid>`)
   * so any process can tell which one holds a queue (events/bus.ts forwards to it).
   */
  processId?: string;
  /**
   * One process (no bus): where to look for a queue a poll names that this process does not hold.
   * A queue saved at a graceful stop that came after this process restored its queues (an old
   * and a new server overlapping during a restart on PostgreSQL, which has no server lock) is
   * taken over there (takeSaved).
   */
  savedQueues?: Executor;
}

/** The process a queue id names as its owner (multi-process mode), or null for a plain id. */
export function queueOwner(queueId: string): string | null {
  const colon = queueId.indexOf(":");
  return colon > 0 ? queueId.slice(0, colon) : null;
}

export class EventQueueRegistry {
  private readonly queues = new Map<string, EventQueue>();
  private readonly byUser = new Map<number, Set<EventQueue>>();
  /** The heartbeat timer and answer scheduling every queue's parked poll shares. */
  private readonly parked: ParkedPolls;
  /** Queues registered with all_public_streams (bots mirroring every public channel). */
  private readonly allPublicStreams = new Set<EventQueue>();
  /** Visitors' queues, by organization (they belong to no user). */
  private readonly visitors = new VisitorQueues((queue) => void this.delete(queue.id));
  private gcTimer: NodeJS.Timeout | null = null;
  private gcPeriodMs = 0;
  /**
   * Called when a user's last queue that takes messages here is dropped (collected or deleted),
   * with the messages it still held unacknowledged (Zulip's missedmessage_hook).
   */
  onLastMessageQueueGone: ((userId: number, unacknowledgedMessageIds: number[]) => Promise<void>) | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Set while the server shuts down: polls answer at once instead of waiting. */
  closing = false;
  /** The `restart` event this process announced, for the queues it takes over later. */
  private restartEvent: ParleyEvent | null = null;
  /**
   * Until `takeOverUntilMs`: the users this process delivered events to, and whether it delivered
   * an all_public_streams one. A queue saved elsewhere meanwhile lacks those events, so it is not
   * taken over (its client registers again instead of missing them).
   */
  private readonly deliveredTo = new Set<number>();
  private deliveredToAllPublicStreams = false;
  private takeOverUntilMs: number;

  constructor(private readonly options: EventQueueOptions) {
    this.parked = new ParkedPolls(options.heartbeatMs);
    this.takeOverUntilMs = options.savedQueues ? Date.now() + options.timeoutMs : 0;
  }

  /** Starts receiving committed events and collecting idle queues. */
  start(dispatcher: EventDispatcher): void {
    this.unsubscribe ??= dispatcher.subscribe((event, userIds, committedIn) => this.deliver(event, userIds, committedIn));
    if (!this.gcTimer) this.scheduleGc(Math.min(60_000, this.options.timeoutMs / 2));
  }

  /** Collection runs at least twice per shortest queue timeout, at most once a second. */
  private scheduleGc(periodMs: number): void {
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.gcPeriodMs = Math.max(1000, periodMs);
    this.gcTimer = setInterval(() => this.collectGarbage(Date.now()), this.gcPeriodMs);
    this.gcTimer.unref?.();
  }

  /** How long this queue may go unpolled before it is dropped. */
  private timeoutOf(queue: EventQueue): number {
    return queue.client.idleTimeoutMs ?? this.options.timeoutMs;
  }

  private expired(queue: EventQueue, nowMs: number): boolean {
    return !queue.isPolled && nowMs - queue.lastActivityMs > this.timeoutOf(queue);
  }

  /** The users among `userIds` with a live queue here that takes messages (Zulip's receiver_is_off_zulip, negated). */
  usersWithMessageQueues(userIds: Iterable<number>, nowMs = Date.now()): Set<number> {
    const found = new Set<number>();
    for (const userId of userIds) {
      for (const queue of this.byUser.get(userId) ?? []) {
        if (acceptsMessages(queue.client) && !this.expired(queue, nowMs)) {
          found.add(userId);
          break;
        }
      }
    }
    return found;
  }

  /** Shutdown, first step: pending polls answer now and new ones do not wait. Queues still fill. */
  close(): void {
    this.closing = true;
    for (const queue of this.queues.values()) queue.finishWaiter([]);
  }

  /** Shutdown, last step: no more events or collection (then `save`). */
  detach(): void {
    this.close();
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.gcTimer = null;
  }

  get size(): number {
    return this.queues.size;
  }

  /** Queues with a GET /events waiting on them (metrics). */
  get parkedPolls(): number {
    let n = 0;
    for (const queue of this.queues.values()) if (queue.isPolled) n += 1;
    return n;
  }

  create(client: ClientDescriptor): EventQueue {
    const id = this.options.processId ? `${this.options.processId}:${randomUUID()}` : randomUUID();
    const queue = new EventQueue(id, client, this.parked, Date.now());
    this.add(queue);
    return queue;
  }

  /**
   * A visitor's queue (client.visitor), counted against the caps of its organization and of the
   * client's address (events/visitorQueues.ts); `needsChannels` when the organization's readable
   * channels must be read and handed to visitorChannelsLoaded.
   */
  createVisitor(client: ClientDescriptor, address: string): { queue: EventQueue; needsChannels: boolean } {
    const id = this.options.processId ? `${this.options.processId}:${randomUUID()}` : randomUUID();
    const queue = new EventQueue(id, client, this.parked, Date.now());
    this.queues.set(queue.id, queue);
    const needsChannels = this.visitors.add(queue, address);
    if (this.gcTimer && Math.max(1000, this.timeoutOf(queue) / 2) < this.gcPeriodMs) this.scheduleGc(this.timeoutOf(queue) / 2);
    return { queue, needsChannels };
  }

  /** The channels visitors of `realmId` may read, as a visitor's register read them. */
  visitorChannelsLoaded(realmId: number, channels: ReadonlyArray<{ id: number; recipient_id: number }>): void {
    this.visitors.loaded(realmId, channels);
  }

  /** How many visitors' queues this process holds. */
  get visitorQueues(): number {
    return this.visitors.size;
  }

  get(id: string): EventQueue | undefined {
    return this.queues.get(id);
  }

  /**
   * Drops the queue, answering a parked poll with what the queue holds for it; the promise settles
   * when onLastMessageQueueGone's work (if any) is recorded.
   */
  delete(id: string): Promise<void> | undefined {
    const queue = this.queues.get(id);
    if (!queue) return;
    queue.finishWaiterWithPending();
    this.queues.delete(id);
    if (queue.client.visitor) {
      this.visitors.remove(queue);
      return;
    }
    this.allPublicStreams.delete(queue);
    const userId = queue.client.userId;
    const mine = this.byUser.get(userId);
    mine?.delete(queue);
    if (mine?.size === 0) this.byUser.delete(userId);
    if (this.onLastMessageQueueGone && acceptsMessages(queue.client) && ![...(mine ?? [])].some((other) => acceptsMessages(other.client))) {
      return this.onLastMessageQueueGone(userId, queue.unacknowledgedMessageIds());
    }
  }

  /**
   * A credential stopped working (db/authCache.ts, here or in another process): the queues it
   * opened go at once, and a poll parked on one is answered, so that the client's next poll is
   * refused. Ended web sessions take the queues they registered; a deactivated user, every queue.
   */
  applyAuthChange(change: AuthChange): void {
    if ("endedSessions" in change) {
      const ended = new Set(change.endedSessions);
      for (const queue of [...this.queues.values()]) {
        if (queue.client.sessionId !== undefined && ended.has(queue.client.sessionId)) void this.delete(queue.id);
      }
    } else if ("cutOff" in change && change.cutOff) {
      for (const queue of [...(this.byUser.get(change.userId) ?? [])]) void this.delete(queue.id);
    }
  }

  /** Every queue of these users gets the event, as its client should see it. */
  deliver(event: ParleyEvent, userIds: readonly number[], committedIn?: string): void {
    const xid = committedIn === undefined ? undefined : BigInt(committedIn);
    if (this.takeOverUntilMs > 0) this.noteDelivered(event, userIds);
    if (event.all_public_streams) this.deliverToAllPublicStreams(event, xid);
    if ((event.spectators || event.all_public_streams) && this.visitors.size > 0) this.visitors.deliver(event, xid);
    for (const userId of userIds) {
      const queues = this.byUser.get(userId);
      if (!queues) continue;
      for (const queue of queues) {
        if (xid !== undefined && queue.stateSnapshot?.sees(xid)) continue;
        for (const clientEvent of eventsForClient(queue.client, queue.id, event)) queue.push(clientEvent);
      }
    }
    if (event.type === "realm" && event.op === "deactivated" && typeof event.realm_id === "number") this.deleteRealmQueues(event.realm_id);
  }

  /**
   * A deactivated organization's queues (Zulip's do_deactivate_realm: the `realm`/`deactivated`
   * event is there to flush its parked polls; its clients cannot authenticate again). They go as
   * soon as the event is in them, parked polls answered with it (delete), rather than when they
   * time out. Done on the event's delivery, which reaches every process (over the bus, also from
   * the `parley deactivate-organization` command), rather than on the realm's auth change: that
   * travels on another subject of the bus and could arrive first, emptying the queues before the event.
   */
  private deleteRealmQueues(realmId: number): void {
    for (const queue of [...this.queues.values()]) if (queue.client.realmId === realmId) void this.delete(queue.id);
  }

  /** Zulip's send_restart_events: every queue that takes `restart` events learns of the new server. */
  announceRestart(event: ParleyEvent): void {
    this.restartEvent = event;
    for (const queue of this.queues.values()) {
      // Visitors get no restart event (events/visitorQueues.ts): their queues are not saved.
      if (queue.client.visitor) continue;
      for (const clientEvent of eventsForClient(queue.client, queue.id, event)) queue.push(clientEvent);
    }
  }

  /** A public channel's message, to all_public_streams queues of its realm's non-recipients. */
  private deliverToAllPublicStreams(event: ParleyEvent, xid: bigint | undefined): void {
    const audience = event.all_public_streams as { realm_id: number; except_user_ids: number[] };
    let recipients: Set<number> | null = null;
    for (const queue of this.allPublicStreams) {
      if (queue.client.realmId !== audience.realm_id) continue;
      recipients ??= new Set(audience.except_user_ids);
      if (recipients.has(queue.client.userId)) continue;
      if (xid !== undefined && queue.stateSnapshot?.sees(xid)) continue;
      for (const clientEvent of eventsForClient(queue.client, queue.id, event)) queue.push(clientEvent);
    }
  }

  /** Drops queues nobody has polled within the timeout (a queue being polled is in use). */
  collectGarbage(nowMs: number): number {
    let dropped = 0;
    for (const queue of [...this.queues.values()]) {
      if (this.expired(queue, nowMs)) {
        void this.delete(queue.id);
        dropped += 1;
      }
    }
    return dropped;
  }

  /**
   * Saves every queue (graceful shutdown); they are restored by `restore` at the next start. In
   * multi-process mode only this process's (a lasting PARLEY_PROCESS_ID), with the bus position.
   */
  async save(q: Executor, bus?: BusPosition): Promise<number> {
    const now = Date.now();
    // Visitors' queues are not kept: their clients register again.
    const saved = [...this.queues.values()].filter((queue) => !queue.client.visitor).map((queue) => ({ ...queue.snapshot(), lastActivityMs: now, bus }));
    await eventQueueStore.replaceAll(
      q,
      saved.map((s) => ({ id: s.id, user_id: s.client.userId, data: JSON.stringify(s) })),
      this.options.processId,
    );
    return saved.length;
  }

  /** Restores the queues saved at the last shutdown (each once), with their idle time reset. */
  async restore(q: Executor): Promise<{ count: number; bus: BusPosition | null }> {
    const rows = await eventQueueStore.takeAll(q, this.options.processId);
    const now = Date.now();
    let bus: BusPosition | null = null;
    for (const row of rows) {
      const saved = parseJsonColumn(SAVED_QUEUE, row.data, "event_queues.data") as unknown as SavedQueue;
      bus ??= saved.bus ?? null;
      // The time the server was down does not count against the client.
      this.add(EventQueue.restore({ ...saved, lastActivityMs: now }, this.parked));
    }
    return { count: rows.length, bus };
  }

  /**
   * The saved queue `id` (see EventQueueOptions.savedQueues), taken over from the database with
   * the `restart` event, or undefined: none is saved, it is too late, or this process delivered
   * events its client would then miss.
   */
  async takeSaved(id: string): Promise<EventQueue | undefined> {
    const q = this.options.savedQueues;
    if (!q || this.closing || Date.now() > this.takeOverUntilMs) return undefined;
    const row = await eventQueueStore.take(q, id);
    if (!row || this.queues.has(id)) return this.queues.get(id);
    const saved = parseJsonColumn(SAVED_QUEUE, row.data, "event_queues.data") as unknown as SavedQueue;
    if (this.deliveredTo.has(saved.client.userId) || (saved.client.allPublicStreams && this.deliveredToAllPublicStreams)) return undefined;
    const queue = EventQueue.restore({ ...saved, lastActivityMs: Date.now() }, this.parked);
    this.add(queue);
    if (this.restartEvent) for (const clientEvent of eventsForClient(queue.client, queue.id, this.restartEvent)) queue.push(clientEvent);
    return queue;
  }

  private noteDelivered(event: ParleyEvent, userIds: readonly number[]): void {
    if (Date.now() > this.takeOverUntilMs) {
      this.takeOverUntilMs = 0;
      this.deliveredTo.clear();
      return;
    }
    if (event.all_public_streams) this.deliveredToAllPublicStreams = true;
    for (const userId of userIds) this.deliveredTo.add(userId);
  }

  private add(queue: EventQueue): void {
    this.queues.set(queue.id, queue);
    if (queue.client.allPublicStreams) this.allPublicStreams.add(queue);
    let mine = this.byUser.get(queue.client.userId);
    if (!mine) this.byUser.set(queue.client.userId, (mine = new Set()));
    mine.add(queue);
    if (this.gcTimer && Math.max(1000, this.timeoutOf(queue) / 2) < this.gcPeriodMs) this.scheduleGc(this.timeoutOf(queue) / 2);
  }
}
