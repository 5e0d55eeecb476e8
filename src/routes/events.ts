import type { User } from "../db/schema.js";
import { type EventQueue, type EventQueueRegistry, eventsJson } from "../events/queues.js";
import { BadEventQueueIdError, badRequest } from "../lib/errors.js";
import { endpoint, JsonText } from "../http/endpoint.js";
import { p } from "../http/params.js";

/** The user's queue `queueId` (Zulip's access_client_descriptor). */
function accessQueue(queues: EventQueueRegistry, user: User, queueId: string): EventQueue {
  const queue = queues.get(queueId);
  // Another user's queue looks exactly like an unknown one (SECURITY.md).
  if (!queue || queue.client.userId !== user.id) throw new BadEventQueueIdError(queueId);
  return queue;
}

/** GET /events: long-polls the queue for events after last_event_id (which it acknowledges). */
export const getEvents = endpoint({
  auth: "user",
  params: {
    queue_id: p.string(),
    last_event_id: p.int().optional(),
    dont_block: p.bool().default(false),
  },
  handler: async ({ ctx, user, params, raw }) => {
    const queue = accessQueue(ctx.eventQueues, user, params.queue_id);
    const lastEventId = params.last_event_id ?? -1;
    if (queue.isPrunedPast(lastEventId)) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
    queue.prune(lastEventId);
    if (params.dont_block || ctx.eventQueues.closing) {
      queue.lastActivityMs = Date.now();
      return { events: new JsonText(eventsJson(queue.eventsAfter(lastEventId))), queue_id: queue.id };
    }
    const poll = queue.wait(lastEventId, Date.now());
    // A client that hangs up stops waiting; its queue stays for its next poll.
    raw.reply.raw.once("close", poll.cancel);
    const events = await poll.events;
    return { events: new JsonText(eventsJson(events)), queue_id: queue.id };
  },
});

/** DELETE /events */
export const deleteEventQueue = endpoint({
  auth: "user",
  params: { queue_id: p.string() },
  handler: async ({ ctx, user, params }) => {
    accessQueue(ctx.eventQueues, user, params.queue_id);
    ctx.eventQueues.delete(params.queue_id);
  },
});
