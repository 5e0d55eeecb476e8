import type { AppContext } from "../appContext.js";
import type { Executor } from "../db/tx.js";
import { realmStore } from "../store/realms.js";
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
): Promise<{ queue: EventQueue; state: T }> {
  let queue: EventQueue | undefined;
  try {
    return await ctx.db.dialect.snapshotTransaction(ctx.db.kysely).execute(async (trx) => {
      const opened = await ctx.events.gate.exclusively(async () => {
        // The snapshot is taken by the transaction's first statement.
        const snapshot = ctx.bus ? await ctx.db.dialect.transactionSnapshot(trx) : (await realmStore.getById(trx, client.realmId), null);
        const created = ctx.eventQueues.create(client);
        if (snapshot) created.stateSnapshot = StateSnapshot.parse(snapshot);
        return created;
      });
      queue = opened;
      const state = await fetchState(trx);
      return { queue: opened, state };
    });
  } catch (error) {
    if (queue) void ctx.eventQueues.delete(queue.id);
    throw error;
  }
}
