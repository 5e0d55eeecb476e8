import { CommitGate } from "./commitGate.js";

/**
 * Delivery of committed events to whoever listens in this process (event queues, tests).
 * Called only from db/tx.ts after COMMIT: no other code may publish an event, so an event that
 * would describe a rolled-back change is never seen. In multi-process mode (events/bus.ts) each
 * committed event is also handed to the bus, and events other processes committed arrive
 * through `dispatchRemote`.
 */
export type ParleyEvent = { type: string; [key: string]: unknown };
/** `committedIn`: the committing transaction's id, in multi-process mode (events/snapshotFilter.ts). */
export type EventListener = (event: ParleyEvent, userIds: readonly number[], committedIn?: string) => void;

export class EventDispatcher {
  private readonly listeners = new Set<EventListener>();
  /** Set by events/bus.ts: publishes this process's committed events to the other processes. */
  publisher: EventListener | null = null;
  /** Held shared by committing publishers, exclusively by register (see commitGate.ts). */
  readonly gate = new CommitGate();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Only for db/tx.ts, after commit. */
  dispatchCommitted(event: ParleyEvent, userIds: readonly number[], committedIn?: string): void {
    this.publisher?.(event, userIds, committedIn);
    for (const listener of this.listeners) listener(event, userIds, committedIn);
  }

  /** Only for events/bus.ts: an event another process committed (and published once). */
  dispatchRemote(event: ParleyEvent, userIds: readonly number[], committedIn?: string): void {
    for (const listener of this.listeners) listener(event, userIds, committedIn);
  }
}
