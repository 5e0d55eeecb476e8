import type { AppContext } from "../appContext.js";
import type { Executor } from "../db/tx.js";
import { realmStore } from "../store/realms.js";
import { streamStore } from "../store/streams.js";
import { visitorCanRead } from "../lib/streamAccess.js";
import type { ClientDescriptor } from "./clientEvents.js";
import type { EventQueue } from "./queues.js";
import { StateSnapshot } from "./snapshotFilter.js";

/**
 * Opens an event queue and reads the client's initial state from one database snapshot, so that
 * every change is either in the state or delivered to the queue — never both, never neither.
 * The snapshot starts, and the queue is created, while no transaction with events is between
 * its COMMIT and the delivery of its events (events/commitGate.ts). With several processes, events
 * committed elsewhere arrive later over the bus: the queue keeps the snapshot and drops those
 * already in the state (events/snapshotFilter.ts).
 */
export async function openQueueWithState<T>(
  ctx: AppContext,
  client: ClientDescriptor,
  fetchState: (q: Executor) => Promise<T>,
  visitor?: { address: string },
): Promise<{ queue: EventQueue; state: T }> {
  let queue: EventQueue | undefined;
  try {
    return await ctx.db.dialect.snapshotTransaction(ctx.db.kysely).execute(async (trx) => {
      let needsChannels = false;
      const opened = await ctx.events.gate.exclusively(async () => {
        // The snapshot is taken by the transaction's first statement.
        const snapshot = ctx.bus ? await ctx.db.dialect.transactionSnapshot(trx) : (await realmStore.getById(trx, client.realmId), null);
        let created: EventQueue;
        if (visitor) ({ queue: created, needsChannels } = ctx.eventQueues.createVisitor(client, visitor.address));
        else created = ctx.eventQueues.create(client);
        if (snapshot) created.stateSnapshot = StateSnapshot.parse(snapshot);
        return created;
      });
      queue = opened;
      const state = await fetchState(trx);
      // A visitor's queue: the channels visitors may read, from the same snapshot (events/visitorQueues.ts).
      if (needsChannels) {
        const channels = (await streamStore.listInRealm(trx, client.realmId, { excludeArchived: true })).filter((s) => visitorCanRead(client.realmId, s));
        ctx.eventQueues.visitorChannelsLoaded(client.realmId, channels);
      }
      return { queue: opened, state };
    });
  } catch (error) {
    if (queue) void ctx.eventQueues.delete(queue.id);
    throw error;
  }
}
