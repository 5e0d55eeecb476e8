import { BadEventQueueIdError, badRequest } from "../lib/errors.js";
import type { EventQueue, EventQueueRegistry, QueuedEvent } from "./queues.js";

/**
 * GET and DELETE /events on a queue this process holds: used by routes/events.ts for its own
 * queues and by events/bus.ts for requests another process forwards here.
 */

/** The user's queue `queueId` (Zulip's access_client_descriptor). */
export function accessQueue(queues: EventQueueRegistry, userId: number, queueId: string): EventQueue {
  const queue = queues.get(queueId);
  // Another user's queue looks exactly like an unknown one (SECURITY.md).
  if (!queue || queue.client.userId !== userId) throw new BadEventQueueIdError(queueId);
  return queue;
}

export interface PollRequest {
  userId: number;
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
  const queue = accessQueue(queues, request.userId, request.queueId);
  const { lastEventId } = request;
  if (queue.isPrunedPast(lastEventId)) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
  queue.prune(lastEventId);
  if (request.dontBlock || queues.closing) {
    queue.lastActivityMs = Date.now();
    return { events: queue.eventsAfter(lastEventId), queueId: queue.id };
  }
  const events = await new Promise<readonly QueuedEvent[]>((resolve) => {
    queue.wait(lastEventId, Date.now(), resolve);
    onCancel?.(() => queue.cancel(resolve));
  });
  return { events, queueId: queue.id };
}

/** DELETE /events. */
export async function deleteQueue(queues: EventQueueRegistry, userId: number, queueId: string): Promise<void> {
  accessQueue(queues, userId, queueId);
  await queues.delete(queueId);
}
