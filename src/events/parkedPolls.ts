/**
 * The timers of every parked GET /events in this process, shared: one timer for all heartbeats and
 * one `setImmediate` for all queues that got events in the same tick. A parked poll then costs no
 * timer object, closure or immediate of its own (issue 34: nothing per poll beyond the answer).
 *
 * Heartbeats: every poll waits the same `heartbeatMs`, so deadlines arrive in the order polls were
 * parked and a FIFO list is a sorted one. A poll joins at the tail and leaves from anywhere (a
 * doubly linked list: O(1) both ways); the one timer is armed for the head's deadline.
 */
export interface HeartbeatEntry {
  /** performance.now() at which the heartbeat is due. */
  heartbeatAt: number;
  prevHeartbeat: HeartbeatEntry | null;
  nextHeartbeat: HeartbeatEntry | null;
  inHeartbeats: boolean;
  /** The poll waited `heartbeatMs` with nothing to answer. */
  heartbeat(): void;
}

/** A queue with events for its parked poll, answered once per tick with all of them. */
export interface Flushable {
  flush(): void;
}

export class ParkedPolls {
  private head: HeartbeatEntry | null = null;
  private tail: HeartbeatEntry | null = null;
  private timer: NodeJS.Timeout | null = null;
  private toFlush: Flushable[] = [];

  constructor(readonly heartbeatMs: number) {}

  /** Starts `entry`'s heartbeat countdown (it must not be counting already). */
  startHeartbeat(entry: HeartbeatEntry): void {
    entry.heartbeatAt = performance.now() + this.heartbeatMs;
    entry.prevHeartbeat = this.tail;
    entry.nextHeartbeat = null;
    entry.inHeartbeats = true;
    if (this.tail) this.tail.nextHeartbeat = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.timer) this.arm(this.heartbeatMs);
  }

  /** Stops `entry`'s countdown (answered or cancelled); the timer stays armed until it next fires. */
  stopHeartbeat(entry: HeartbeatEntry): void {
    if (!entry.inHeartbeats) return;
    entry.inHeartbeats = false;
    const { prevHeartbeat: prev, nextHeartbeat: next } = entry;
    if (prev) prev.nextHeartbeat = next;
    else this.head = next;
    if (next) next.prevHeartbeat = prev;
    else this.tail = prev;
    entry.prevHeartbeat = entry.nextHeartbeat = null;
  }

  /** Parked polls whose heartbeat is counting (tests). */
  get counting(): number {
    let n = 0;
    for (let e = this.head; e; e = e.nextHeartbeat) n++;
    return n;
  }

  /** `queue.flush()` once this tick's other events are in (events of one commit arrive in one tick). */
  flushSoon(queue: Flushable): void {
    if (this.toFlush.length === 0) setImmediate(this.flushAll);
    this.toFlush.push(queue);
  }

  private readonly flushAll = (): void => {
    const queues = this.toFlush;
    this.toFlush = [];
    for (const queue of queues) queue.flush();
  };

  private arm(delayMs: number): void {
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(delayMs)));
    this.timer.unref?.();
  }

  private readonly fire = (): void => {
    this.timer = null;
    const now = performance.now();
    while (this.head && this.head.heartbeatAt <= now) {
      const entry = this.head;
      this.stopHeartbeat(entry);
      entry.heartbeat();
    }
    if (this.head) this.arm(this.head.heartbeatAt - now);
  };
}
