/**
 * Orders "commit and deliver events" against "take a state snapshot and open a queue", so that
 * POST /register loses and double-applies nothing: every change is either in the snapshot (and
 * its events were delivered before the queue existed) or after it (and its events reach the
 * queue). Transactions that publish events hold the gate shared from just before COMMIT until
 * their events are delivered; register holds it exclusively while it starts its snapshot and
 * creates its queue. Waiting exclusive holders go first, so registers are not starved.
 */
export class CommitGate {
  private shared = 0;
  private exclusive = false;
  private readonly sharedWaiters: Array<() => void> = [];
  private readonly exclusiveWaiters: Array<() => void> = [];

  async enterShared(): Promise<() => void> {
    if (this.exclusive || this.exclusiveWaiters.length > 0) {
      await new Promise<void>((resolve) => this.sharedWaiters.push(resolve));
    } else {
      this.shared += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.shared -= 1;
      this.wakeNext();
    };
  }

  async exclusively<T>(fn: () => Promise<T>): Promise<T> {
    if (this.exclusive || this.shared > 0) {
      await new Promise<void>((resolve) => this.exclusiveWaiters.push(resolve));
    } else {
      this.exclusive = true;
    }
    try {
      return await fn();
    } finally {
      this.exclusive = false;
      this.wakeNext();
    }
  }

  private wakeNext(): void {
    if (this.exclusive || this.shared > 0) return;
    const nextExclusive = this.exclusiveWaiters.shift();
    if (nextExclusive) {
      this.exclusive = true;
      nextExclusive();
      return;
    }
    while (this.sharedWaiters.length > 0) {
      this.shared += 1;
      this.sharedWaiters.shift()!();
    }
  }
}
