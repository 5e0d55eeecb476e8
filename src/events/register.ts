import type { AppContext } from "../appContext.js";
import type { Executor } from "../db/tx.js";
import { realmStore } from "../store/realms.js";
import type { ClientDescriptor } from "./clientEvents.js";
import type { EventQueue } from "./queues.js";

/**
 * Opens an event queue and reads the client's initial state from one database snapshot, so that
 * every change is either in the state or delivered to the queue — never both, never neither.
 * The snapshot starts, and the queue is created, while no transaction with events is between
 * its COMMIT and the delivery of its events (events/commitGate.ts).
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
        await realmStore.getById(trx, client.realmId);
        return ctx.eventQueues.create(client);
      });
      queue = opened;
      const state = await fetchState(trx);
      return { queue: opened, state };
    });
  } catch (error) {
    if (queue) ctx.eventQueues.delete(queue.id);
    throw error;
  }
}
