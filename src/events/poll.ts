import { BadEventQueueIdError, badRequest } from "../lib/errors.js";
import type { EventQueue, EventQueueRegistry, PollAnswer, QueuedEvent } from "./queues.js";

/**
 * GET and DELETE /events on a queue this process holds: used by routes/events.ts for its own
 * queues and by events/bus.ts for requests another process forwards here.
 */

/**
 * The user's queue `queueId` (Zulip's access_client_descriptor), or for a visitor (`visitorRealmId`
 * set, userId 0) a visitor's queue of that organization.
 */
function accessQueue(queues: EventQueueRegistry, owner: QueueOwner, queueId: string): EventQueue {
  const queue = queues.get(queueId);
  // Another user's queue looks exactly like an unknown one (SECURITY.md); so does a user's queue to a visitor and the reverse.
  const mine =
    queue !== undefined &&
    (owner.visitorRealmId === undefined
      ? !queue.client.visitor && queue.client.userId === owner.userId
      : queue.client.visitor === true && queue.client.realmId === owner.visitorRealmId);
  if (!mine) throw new BadEventQueueIdError(queueId);
  return queue;
}

/** Who asks for a queue: a user, or a visitor of an organization (userId 0). */
export interface QueueOwner {
  userId: number;
  visitorRealmId?: number;
}

export interface PollRequest extends QueueOwner {
  queueId: string;
  lastEventId: number;
  dontBlock: boolean;
}

/**
 * Acknowledges up to `lastEventId` and answers the events after it (for GET /events's JSON list):
 * at once, or when some arrive (or the heartbeat). `onCancel` receives the function that ends
 * the wait early (the client hung up).
 */
export async function pollQueue(
  queues: EventQueueRegistry,
  request: PollRequest,
  onCancel?: (cancel: () => void) => void,
): Promise<{ events: readonly QueuedEvent[]; queueId: string }> {
  // A queue saved by another process after this one started is taken over (queues.ts takeSaved).
  if (!queues.get(request.queueId)) await queues.takeSaved(request.queueId);
  const queue = accessQueue(queues, request, request.queueId);
  const { lastEventId } = request;
  if (queue.isPrunedPast(lastEventId)) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
  const events = await new Promise<readonly QueuedEvent[]>((resolve) => {
    answerPoll(queues, queue, lastEventId, request.dontBlock, resolve);
    onCancel?.(() => queue.cancel(resolve));
  });
  return { events, queueId: queue.id };
}

/**
 * The poll itself, once it is known to be allowed and `queue` to hold everything after
 * `lastEventId`: acknowledges up to it, then `respond` gets the events after it at once (dont_block,
 * or the server stopping) or when some arrive (or the heartbeat). Shared by pollQueue and GET
 * /events's own path (http/eventsFastPath.ts), which answers without a promise.
 */
export function answerPoll(queues: EventQueueRegistry, queue: EventQueue, lastEventId: number, dontBlock: boolean, respond: PollAnswer): void {
  queue.prune(lastEventId);
  if (dontBlock || queues.closing) {
    queue.lastActivityMs = Date.now();
    return respond(queue.eventsAfter(lastEventId));
  }
  queue.wait(lastEventId, Date.now(), respond);
}

/** DELETE /events. */
export async function deleteQueue(queues: EventQueueRegistry, owner: QueueOwner, queueId: string): Promise<void> {
  accessQueue(queues, owner, queueId);
  await queues.delete(queueId);
}
