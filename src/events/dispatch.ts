import { CommitGate } from "./commitGate.js";

/**
 * Delivery of committed events to whoever listens in this process (event queues, tests).
 * Called only from db/tx.ts after COMMIT: no other code may publish an event, so an event that
 * would describe a rolled-back change is never seen.
 */
export type ParleyEvent = { type: string; [key: string]: unknown };
export type EventListener = (event: ParleyEvent, userIds: readonly number[]) => void;

export class EventDispatcher {
  private readonly listeners = new Set<EventListener>();
  /** Held shared by committing publishers, exclusively by register (see commitGate.ts). */
  readonly gate = new CommitGate();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Only for db/tx.ts, after commit. */
  dispatchCommitted(event: ParleyEvent, userIds: readonly number[]): void {
    for (const listener of this.listeners) listener(event, userIds);
  }
}
