/**
 * The event queue this page registered (POST /register's queue_id): events.ts sets it, and a
 * message send names it so that its own message event carries the local id (outbox.ts).
 */
let queueId = "";

export function currentQueueId(): string {
  return queueId;
}

export function setQueueId(id: string): void {
  queueId = id;
}
