import { createHash, randomBytes } from "node:crypto";
import type { JetStreamManager, NatsConnection, Subscription } from "nats";
import type { Logger } from "pino";
import type { AuthCache, AuthChange } from "../db/authCache.js";
import { ApiError, BadEventQueueIdError, type ErrorCode as ApiErrorCode } from "../lib/errors.js";
import type { EventDispatcher, ParleyEvent } from "./dispatch.js";
import { deleteQueue, type PollRequest, pollQueue, type QueueOwner } from "./poll.js";
import type { Executor } from "../db/tx.js";
import { databaseIdentityStore } from "../store/databaseIdentity.js";
import { eventQueueStore } from "../store/eventQueues.js";
import { type BusPosition, type EventQueueRegistry, eventsJson } from "./queues.js";
import { lazy } from "../util/lazy.js";

/** The NATS client, loaded by the first bus (single-process mode never needs it; scripts/build.mjs leaves it out of the bundle). */
const loadNats = lazy(() => import("nats"));

/**
 * Multi-process mode (PARLEY_BUS_URL with PostgreSQL): the processes share one NATS server.
 * - Every event committed here is published once on `parley.events` (after COMMIT, in commit
 *   order: NATS keeps one publisher's order) and each other process delivers it to the queues
 *   it holds. The connection has no echo: this process delivers its own events directly.
 * - GET/DELETE /events for a queue another process holds (its id names the owner, see
 *   queueOwner) is forwarded as a request to `parley.queue.<owner>`; an owner that is gone has
 *   no responders and the answer is BAD_EVENT_QUEUE_ID (the client registers again).
 * - A process with a lasting identity (PARLEY_PROCESS_ID) saves its queues at a graceful stop and
 *   restores them at its next start. The events committed while it was down are read back from
 *   the JetStream stream PARLEY_EVENTS, which keeps what is published on `parley.events` for the
 *   queue timeout: the saved queues remember the stream position they have seen (BusPosition),
 *   and each event carries a unique id (`n`) so that none is delivered twice. Meanwhile the
 *   other processes make polls for those queues wait (they are saved, not gone).
 */
/**
 * The stream and subjects of one deployment. Several deployments (or test runs) may share a NATS
 * server: each uses the names of its database (busNamespace), so none sees another's events,
 * invalidations or queue requests. `auth` carries auth-cache invalidations (db/authCache.ts): a
 * process's change cuts the credential off in every other.
 */
interface BusNames {
  stream: string;
  events: string;
  auth: string;
  /** Which of some users have a queue that takes messages (notifications ask every process). */
  online: string;
  queue: (processId: string) => string;
}

function busNames(namespace: string): BusNames {
  return {
    stream: `PARLEY_EVENTS_${namespace}`,
    events: `parley.${namespace}.events`,
    auth: `parley.${namespace}.auth`,
    online: `parley.${namespace}.online`,
    queue: (processId) => `parley.${namespace}.queue.${processId}`,
  };
}

/** The names the processes on database `db` use (tests publish on them as another process would). */
export async function busNamesOf(db: Executor): Promise<BusNames> {
  return busNames(await busNamespace(db));
}

/** A short name for the deployment whose database `db` is. */
async function busNamespace(db: Executor): Promise<string> {
  return createHash("sha256")
    .update(await databaseIdentityStore.name(db))
    .digest("hex")
    .slice(0, 16);
}

type QueueRequest = ({ op: "get" } & PollRequest) | ({ op: "delete"; queueId: string } & QueueOwner) | { op: "ping"; queueId: string };
/** An event on the bus: the event, its users, its transaction, its origin process and unique id. */
type BusMessage = { e: ParleyEvent; u: number[]; x?: string; o?: string; n?: string };
type QueueReply =
  { eventsJson: string; queueId: string } | { ok: true } | { error: { msg: string; code: ApiErrorCode; status: number; data: Record<string, unknown> } };

export class EventBus {
  private readonly subscriptions: Subscription[] = [];
  /** Remote events are delivered one after another, each under the commit gate (see start). */
  private delivery: Promise<void> = Promise.resolve();
  private readonly runNonce = randomBytes(4).toString("hex");
  private published = 0;
  /** `published` when the last flush began that has ended: what the NATS server has surely received. */
  private flushedUpTo = 0;
  /** Set from a save's start: ids of the events delivered since (BusPosition.delivered). */
  private recording: Set<string> | null = null;
  /** Ids of the events a restore replayed (their live copies are skipped). */
  private replayed: Set<string> | null = null;
  private stopDelivering = false;
  private resumeDelivery: (() => void) | null = null;
  private dispatcher: EventDispatcher | null = null;
  private restoring: Promise<void> = Promise.resolve();

  private constructor(
    private readonly nc: NatsConnection,
    readonly processId: string,
    private readonly log: Logger,
    /** JetStream, when this process has a lasting identity and the NATS server has JetStream. */
    private readonly jsm: JetStreamManager | null,
    private readonly db: Executor,
    /** How long a saved queue waits for its process to come back (the queue timeout). */
    private readonly savedQueuePatienceMs: number,
    private readonly names: BusNames,
  ) {
    // Remote events, and requests for queues, wait until the saved queues are restored and the
    // missed events replayed.
    if (jsm) this.delivery = this.restoring = new Promise((resolve) => (this.resumeDelivery = resolve));
  }

  /** Whether queues are saved at a graceful stop and restored at the next start. */
  get keepsQueues(): boolean {
    return this.jsm !== null;
  }

  /** A fresh id for this process run (queue ids carry it). */
  static newProcessId(): string {
    return randomBytes(6).toString("hex");
  }

  /** `lasting`: this process has a lasting identity (PARLEY_PROCESS_ID) and keeps its queues. */
  static async connect(url: string, processId: string, log: Logger, options: { db: Executor; queueTimeoutMs: number; lasting: boolean }): Promise<EventBus> {
    const { connect, nanos, RetentionPolicy, StorageType } = await loadNats();
    const u = new URL(url);
    const nc = await connect({
      servers: `${u.hostname}:${u.port || "4222"}`,
      user: u.username ? decodeURIComponent(u.username) : undefined,
      pass: u.password ? decodeURIComponent(u.password) : undefined,
      name: `parley-${processId}`,
      noEcho: true,
      maxReconnectAttempts: -1,
    });
    const busLog = log.child({ component: "bus", processId });
    const names = await busNamesOf(options.db);
    if (!options.lasting) return new EventBus(nc, processId, busLog, null, options.db, options.queueTimeoutMs, names);
    // Two live processes with one identity would share queue ids: refuse to be the second.
    const answered = await nc.request(names.queue(processId), JSON.stringify({ op: "ping", queueId: "" }), { timeout: 2000 }).then(
      () => true,
      () => false,
    );
    if (answered) {
      await nc.close();
      throw new Error(`Another Parley process with PARLEY_PROCESS_ID=${processId} is running on this NATS server: give each process its own id`);
    }
    let jsm: JetStreamManager | null = null;
    try {
      jsm = await nc.jetstreamManager();
      const config = {
        name: names.stream,
        subjects: [names.events],
        retention: RetentionPolicy.Limits,
        storage: StorageType.Memory,
        max_age: nanos(options.queueTimeoutMs),
      };
      await jsm.streams.add(config).catch(async () => jsm!.streams.update(names.stream, config));
    } catch (error) {
      busLog.warn({ err: error }, "the NATS server has no JetStream (nats-server -js): event queues are not kept across restarts");
      jsm = null;
    }
    return new EventBus(nc, processId, busLog, jsm, options.db, options.queueTimeoutMs, names);
  }

  /** Publishes this process's committed events and auth-cache invalidations; applies the others'; answers for its queues. */
  start(dispatcher: EventDispatcher, queues: EventQueueRegistry, authCache: AuthCache): void {
    authCache.broadcast = (change) => {
      try {
        this.nc.publish(this.names.auth, JSON.stringify(change));
      } catch (error) {
        this.log.error({ err: error }, "publishing an auth-cache invalidation on the bus failed");
      }
    };
    this.subscriptions.push(
      this.nc.subscribe(this.names.auth, {
        callback: (error, msg) => {
          if (error) {
            // A missed invalidation must not leave a credential working: forget everything.
            authCache.apply({ all: true });
            return this.log.error({ err: error }, "auth-cache subscription failed");
          }
          authCache.apply(JSON.parse(msg.string()) as AuthChange);
        },
      }),
    );
    // Invalidations published while this process was cut off from NATS are lost: forget everything on reconnect.
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type === "reconnect" || status.type === "disconnect") authCache.apply({ all: true });
      }
    })().catch(() => {});
    this.dispatcher = dispatcher;
    dispatcher.publisher = (event, userIds, committedIn) => {
      // After COMMIT: a bus that is down costs the other processes' clients this event (they
      // find the change in the database when they register again), never this request.
      try {
        const message: BusMessage = { e: event, u: [...userIds], x: committedIn, o: this.processId, n: `${this.runNonce}.${this.published++}` };
        this.nc.publish(this.names.events, JSON.stringify(message));
      } catch (error) {
        this.log.error({ err: error, type: event.type }, "publishing an event on the bus failed");
      }
    };
    this.subscriptions.push(
      this.nc.subscribe(this.names.events, {
        callback: (error, msg) => {
          if (error) return this.log.error({ err: error }, "event subscription failed");
          const message = JSON.parse(msg.string()) as BusMessage;
          this.delivery = this.delivery.then(() => this.deliverRemote(message));
        },
      }),
    );
    this.subscriptions.push(
      this.nc.subscribe(this.names.online, {
        callback: (error, msg) => {
          if (error) return this.log.error({ err: error }, "online subscription failed");
          const userIds = JSON.parse(msg.string()) as number[];
          msg.respond(JSON.stringify([...queues.usersWithMessageQueues(userIds)]));
        },
      }),
    );
    this.subscriptions.push(
      this.nc.subscribe(this.names.queue(this.processId), {
        callback: (error, msg) => {
          if (error) return this.log.error({ err: error }, "queue subscription failed");
          void this.answer(queues, JSON.parse(msg.string()) as QueueRequest)
            .then((reply) => msg.respond(JSON.stringify(reply)))
            .catch((error: unknown) => this.log.error({ err: error }, "answering a forwarded queue request failed"));
        },
      }),
    );
  }

  /**
   * Waits until the NATS server has every event published so far (a PING answered after them).
   * A request's answer waits for it (app.ts): a client told that its message is sent, who then
   * writes through another process, must not have that process deliver the second message to
   * a queue before the first one reaches it from the bus. A bus that is down does not hold
   * answers: the flush is given up after a second.
   */
  async flushPublished(): Promise<void> {
    const target = this.published;
    if (this.flushedUpTo >= target) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
    await Promise.race([this.nc.flush().catch((error: unknown) => this.log.warn({ err: error }, "flushing events to the bus failed")), timeout]);
    this.flushedUpTo = Math.max(this.flushedUpTo, target);
  }

  /**
   * Under the commit gate, like a local commit's events: a register taking its snapshot and
   * creating its queue never misses an event delivered in between (commitGate.ts).
   */
  private async deliverRemote(message: BusMessage): Promise<void> {
    if (this.stopDelivering || (message.n !== undefined && this.replayed?.has(message.n))) return;
    const release = await this.dispatcher!.gate.enterShared();
    try {
      this.dispatcher!.dispatchRemote(message.e, message.u, message.x);
      if (message.n !== undefined) this.recording?.add(message.n);
    } catch (deliveryError) {
      this.log.error({ err: deliveryError, type: message.e.type }, "delivering an event from another process failed");
    } finally {
      release();
    }
  }

  /**
   * Graceful stop, before the queues are saved: stops delivering remote events and tells where in
   * the stream the queues are. Events stored up to `seq` have reached this process (a flush after
   * reading it: NATS hands a message to subscribers before its stream stores it), and `delivered`
   * names the later ones that were delivered too.
   */
  async stopForSave(): Promise<BusPosition | null> {
    if (!this.jsm) return null;
    this.recording = new Set();
    let seq: number;
    try {
      seq = (await this.jsm.streams.info(this.names.stream)).state.last_seq;
      await this.nc.flush();
    } catch (error) {
      // Without a position a restart could not replay what it missed: the queues are not saved.
      this.log.error({ err: error }, "reading the bus position failed: event queues are not saved");
      return null;
    }
    await this.delivery;
    this.stopDelivering = true;
    return { seq, delivered: [...this.recording] };
  }

  /**
   * Start, after the saved queues are restored: delivers the events other processes committed
   * since `position` (none of this identity's: its last run delivered those itself), then the
   * live ones that waited, each once.
   */
  async resumeAfterRestore(position: BusPosition | null): Promise<number> {
    const resume = this.resumeDelivery;
    this.resumeDelivery = null;
    if (!resume) return 0;
    let replayedCount = 0;
    try {
      if (position) {
        this.replayed = new Set(position.delivered);
        const last = (await this.jsm!.streams.info(this.names.stream)).state;
        for (let seq = Math.max(position.seq + 1, last.first_seq); seq <= last.last_seq; seq++) {
          const stored = await this.jsm!.streams.getMessage(this.names.stream, { seq }).catch(() => null);
          if (!stored) continue;
          const message = JSON.parse(new TextDecoder().decode(stored.data)) as BusMessage;
          if (message.o === this.processId || (message.n !== undefined && this.replayed.has(message.n))) continue;
          await this.deliverRemote(message);
          if (message.n !== undefined) this.replayed.add(message.n);
          replayedCount += 1;
        }
      }
    } finally {
      resume();
    }
    return replayedCount;
  }

  private async answer(queues: EventQueueRegistry, request: QueueRequest): Promise<QueueReply> {
    try {
      if (request.op === "ping") return { ok: true };
      await this.restoring;
      if (request.op === "delete") {
        await deleteQueue(queues, request, request.queueId);
        return { ok: true };
      }
      const answer = await pollQueue(queues, request);
      return { eventsJson: eventsJson(answer.events), queueId: answer.queueId };
    } catch (error) {
      if (error instanceof ApiError) return { error: { msg: error.message, code: error.code, status: error.status, data: error.data } };
      this.log.error({ err: error }, "forwarded queue request failed");
      return { error: { msg: "Internal server error", code: "BAD_REQUEST", status: 500, data: {} } };
    }
  }

  /**
   * Of `userIds`, those with a queue that takes messages in another process: every process
   * answers for its own queues, and the answers are gathered until none came for a moment. A
   * process that does not answer in time counts as holding none (a notification too many rather
   * than one missed).
   */
  async usersWithMessageQueues(userIds: readonly number[]): Promise<Set<number>> {
    const found = new Set<number>();
    if (userIds.length === 0) return found;
    const { RequestStrategy } = await loadNats();
    try {
      const replies = await this.nc.requestMany(this.names.online, JSON.stringify(userIds), {
        strategy: RequestStrategy.JitterTimer,
        jitter: 100,
        maxWait: 1000,
      });
      for await (const reply of replies) {
        for (const userId of JSON.parse(reply.string()) as number[]) found.add(userId);
      }
    } catch (error) {
      // No other process listens (NoResponders), or the connection failed: nothing found elsewhere.
      this.log.debug({ err: error }, "asking the other processes for users' queues failed");
    }
    return found;
  }

  /** GET /events for a queue `owner` holds. */
  async forwardPoll(owner: string, request: PollRequest, timeoutMs: number): Promise<{ eventsJson: string; queueId: string }> {
    return (await this.request(owner, { op: "get", ...request }, timeoutMs)) as { eventsJson: string; queueId: string };
  }

  /** DELETE /events for a queue `owner` holds. */
  async forwardDelete(owner: string, queueOwner: QueueOwner, queueId: string): Promise<void> {
    await this.request(owner, { op: "delete", ...queueOwner, queueId }, 10_000);
  }

  private async request(owner: string, request: QueueRequest, timeoutMs: number): Promise<QueueReply> {
    const deadline = Date.now() + timeoutMs;
    let reply: QueueReply;
    for (;;) {
      try {
        const msg = await this.nc.request(this.names.queue(owner), JSON.stringify(request), { timeout: Math.max(1, deadline - Date.now()) });
        reply = JSON.parse(msg.string()) as QueueReply;
        break;
      } catch (error) {
        // No process answers for this owner: it stopped or died, and its queues with it. An owner
        // that does not answer a poll by its heartbeat (killed while the poll waited) is gone too.
        const { ErrorCode, NatsError } = await loadNats();
        if (!(error instanceof NatsError && (error.code === ErrorCode.NoResponders || error.code === ErrorCode.Timeout))) throw error;
        // Unless it saved its queues at a graceful stop: it comes back with them (a restart).
        const saved = await eventQueueStore.savedAt(this.db, request.queueId);
        if (saved === null || Date.now() - saved > this.savedQueuePatienceMs) throw new BadEventQueueIdError(request.queueId);
        if (request.op === "delete") {
          await eventQueueStore.delete(this.db, request.queueId);
          return { ok: true };
        }
        if (request.op === "get" && (request.dontBlock || Date.now() + 500 >= deadline)) {
          return { eventsJson: "[]", queueId: request.queueId };
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    if ("error" in reply) throw new ApiError(reply.error.msg, { code: reply.error.code, status: reply.error.status, data: reply.error.data });
    return reply;
  }

  async close(): Promise<void> {
    for (const sub of this.subscriptions) sub.unsubscribe();
    await this.delivery;
    await this.nc.drain().catch(() => this.nc.close());
  }
}
