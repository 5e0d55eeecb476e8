import { deleteQueue, pollQueue } from "../events/poll.js";
import { eventsChunks, queueOwner } from "../events/queues.js";
import { endpoint, JsonText } from "../http/endpoint.js";
import { p } from "../http/params.js";

/**
 * GET /events: long-polls the queue for events after last_event_id (which it acknowledges).
 * In multi-process mode a queue another process holds is polled there (events/bus.ts).
 */
export const getEvents = endpoint({
  auth: "user",
  inProcessRateLimit: true,
  params: {
    queue_id: p.string(),
    last_event_id: p.int().optional(),
    dont_block: p.bool().default(false),
  },
  handler: async ({ ctx, user, params, raw }) => {
    const request = {
      userId: user.id,
      queueId: params.queue_id,
      lastEventId: params.last_event_id ?? -1,
      dontBlock: params.dont_block || ctx.eventQueues.closing,
    };
    const owner = queueOwner(params.queue_id);
    if (ctx.bus && owner !== null && owner !== ctx.bus.processId) {
      // The owner answers a waiting poll by its heartbeat at the latest.
      const forwarded = await ctx.bus.forwardPoll(owner, request, ctx.config.eventHeartbeatSeconds * 1000 + 15_000);
      return { events: new JsonText(forwarded.eventsJson), queue_id: forwarded.queueId };
    }
    // A client that hangs up stops waiting; its queue stays for its next poll.
    const answer = await pollQueue(ctx.eventQueues, request, (cancel) => raw.reply.raw.once("close", cancel));
    // Each event's bytes are shared by all the queues that got it (queues.ts eventsChunks).
    return { events: new JsonText(eventsChunks(answer.events)), queue_id: answer.queueId };
  },
});

/** DELETE /events */
export const deleteEventQueue = endpoint({
  auth: "user",
  inProcessRateLimit: true,
  params: { queue_id: p.string() },
  handler: async ({ ctx, user, params }) => {
    const owner = queueOwner(params.queue_id);
    if (ctx.bus && owner !== null && owner !== ctx.bus.processId) await ctx.bus.forwardDelete(owner, user.id, params.queue_id);
    else await deleteQueue(ctx.eventQueues, user.id, params.queue_id);
  },
});
