import { deleteQueue, pollQueue, type QueueOwner } from "../events/poll.js";
import type { Realm, User } from "../db/schema.js";
import { eventsChunks, queueOwner } from "../events/queues.js";
import { endpoint, JsonText } from "../http/endpoint.js";
import { p } from "../http/params.js";

/** Whose queue a request may use: the user's, or without credentials a visitor's queue of the request's organization. */
function ownerOf(user: User | null, realm: Realm): QueueOwner {
  return user ? { userId: user.id } : { userId: 0, visitorRealmId: realm.id };
}

/**
 * GET /events: long-polls the queue for events after last_event_id (which it acknowledges).
 * In multi-process mode a queue another process holds is polled there (events/bus.ts). A visitor
 * (no credentials; the organization lets visitors in) polls a visitor's queue of that organization
 * (events/visitorQueues.ts), counted against the address's limit.
 */
export const getEvents = endpoint({
  auth: "visitor",
  inProcessRateLimit: true,
  params: {
    queue_id: p.string(),
    last_event_id: p.int().optional(),
    dont_block: p.bool().default(false),
  },
  handler: async ({ ctx, user, realm, params, raw }) => {
    const request = {
      ...ownerOf(user, realm),
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

/** DELETE /events (a visitor: a visitor's queue of the organization, as GET /events). */
export const deleteEventQueue = endpoint({
  auth: "visitor",
  inProcessRateLimit: true,
  params: { queue_id: p.string() },
  handler: async ({ ctx, user, realm, params }) => {
    const owner = queueOwner(params.queue_id);
    if (ctx.bus && owner !== null && owner !== ctx.bus.processId) await ctx.bus.forwardDelete(owner, ownerOf(user, realm), params.queue_id);
    else await deleteQueue(ctx.eventQueues, ownerOf(user, realm), params.queue_id);
  },
});
