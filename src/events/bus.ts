import { randomBytes } from "node:crypto";
import { connect, ErrorCode, type NatsConnection, NatsError, type Subscription } from "nats";
import type { Logger } from "pino";
import { ApiError, BadEventQueueIdError, type ErrorCode as ApiErrorCode } from "../lib/errors.js";
import type { EventDispatcher, ParleyEvent } from "./dispatch.js";
import { deleteQueue, type PollRequest, pollQueue } from "./poll.js";
import type { EventQueueRegistry } from "./queues.js";

/**
 * Multi-process mode (PARLEY_BUS_URL with PostgreSQL): the processes share one NATS server.
 * - Every event committed here is published once on `parley.events` (after COMMIT, in commit
 *   order: NATS keeps one publisher's order) and each other process delivers it to the queues
 *   it holds. The connection has no echo: this process delivers its own events directly.
 * - GET/DELETE /events for a queue another process holds (its id names the owner, see
 *   queueOwner) is forwarded as a request to `parley.queue.<owner>`; an owner that is gone has
 *   no responders and the answer is BAD_EVENT_QUEUE_ID (the client registers again).
 */
const EVENTS_SUBJECT = "parley.events";
const queueSubject = (processId: string) => `parley.queue.${processId}`;

type QueueRequest = ({ op: "get" } & PollRequest) | { op: "delete"; userId: number; queueId: string };
type QueueReply =
  { eventsJson: string; queueId: string } | { ok: true } | { error: { msg: string; code: ApiErrorCode; status: number; data: Record<string, unknown> } };

export class EventBus {
  private readonly subscriptions: Subscription[] = [];
  /** Remote events are delivered one after another, each under the commit gate (see start). */
  private delivery: Promise<void> = Promise.resolve();

  private constructor(
    private readonly nc: NatsConnection,
    readonly processId: string,
    private readonly log: Logger,
  ) {}

  /** A fresh id for this process run (queue ids carry it). */
  static newProcessId(): string {
    return randomBytes(6).toString("hex");
  }

  static async connect(url: string, processId: string, log: Logger): Promise<EventBus> {
    const u = new URL(url);
    const nc = await connect({
      servers: `${u.hostname}:${u.port || "4222"}`,
      user: u.username ? decodeURIComponent(u.username) : undefined,
      pass: u.password ? decodeURIComponent(u.password) : undefined,
      name: `parley-${processId}`,
      noEcho: true,
      maxReconnectAttempts: -1,
    });
    return new EventBus(nc, processId, log.child({ component: "bus", processId }));
  }

  /** Publishes this process's committed events; delivers the others'; answers for its queues. */
  start(dispatcher: EventDispatcher, queues: EventQueueRegistry): void {
    dispatcher.publisher = (event, userIds, committedIn) => {
      // After COMMIT: a bus that is down costs the other processes' clients this event (they
      // find the change in the database when they register again), never this request.
      try {
        this.nc.publish(EVENTS_SUBJECT, JSON.stringify({ e: event, u: userIds, x: committedIn }));
      } catch (error) {
        this.log.error({ err: error, type: event.type }, "publishing an event on the bus failed");
      }
    };
    this.subscriptions.push(
      this.nc.subscribe(EVENTS_SUBJECT, {
        callback: (error, msg) => {
          if (error) return this.log.error({ err: error }, "event subscription failed");
          const { e, u, x } = JSON.parse(msg.string()) as { e: ParleyEvent; u: number[]; x?: string };
          // Under the commit gate, like a local commit's events: a register taking its snapshot
          // and creating its queue never misses an event delivered in between (commitGate.ts).
          this.delivery = this.delivery.then(async () => {
            const release = await dispatcher.gate.enterShared();
            try {
              dispatcher.dispatchRemote(e, u, x);
            } catch (deliveryError) {
              this.log.error({ err: deliveryError, type: e.type }, "delivering an event from another process failed");
            } finally {
              release();
            }
          });
        },
      }),
    );
    this.subscriptions.push(
      this.nc.subscribe(queueSubject(this.processId), {
        callback: (error, msg) => {
          if (error) return this.log.error({ err: error }, "queue subscription failed");
          void this.answer(queues, JSON.parse(msg.string()) as QueueRequest).then((reply) => msg.respond(JSON.stringify(reply)));
        },
      }),
    );
  }

  private async answer(queues: EventQueueRegistry, request: QueueRequest): Promise<QueueReply> {
    try {
      if (request.op === "delete") {
        deleteQueue(queues, request.userId, request.queueId);
        return { ok: true };
      }
      return await pollQueue(queues, request);
    } catch (error) {
      if (error instanceof ApiError) return { error: { msg: error.message, code: error.code, status: error.status, data: error.data } };
      this.log.error({ err: error }, "forwarded queue request failed");
      return { error: { msg: "Internal server error", code: "BAD_REQUEST", status: 500, data: {} } };
    }
  }

  /** GET /events for a queue `owner` holds. */
  async forwardPoll(owner: string, request: PollRequest, timeoutMs: number): Promise<{ eventsJson: string; queueId: string }> {
    return (await this.request(owner, { op: "get", ...request }, timeoutMs)) as { eventsJson: string; queueId: string };
  }

  /** DELETE /events for a queue `owner` holds. */
  async forwardDelete(owner: string, userId: number, queueId: string): Promise<void> {
    await this.request(owner, { op: "delete", userId, queueId }, 10_000);
  }

  private async request(owner: string, request: QueueRequest, timeoutMs: number): Promise<QueueReply> {
    let reply: QueueReply;
    try {
      const msg = await this.nc.request(queueSubject(owner), JSON.stringify(request), { timeout: timeoutMs });
      reply = JSON.parse(msg.string()) as QueueReply;
    } catch (error) {
      // No process answers for this owner: it stopped or died, and its queues with it. An owner
      // that does not answer a poll by its heartbeat (killed while the poll waited) is gone too.
      if (error instanceof NatsError && (error.code === ErrorCode.NoResponders || error.code === ErrorCode.Timeout)) {
        throw new BadEventQueueIdError(request.queueId);
      }
      throw error;
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
