/**
 * The register/commit race of multi-process mode. POST /register on process R reads the initial
 * state from one database snapshot and opens a queue; a transaction committed on process C just
 * before that snapshot publishes its events on the bus, and they may reach R after the queue
 * exists — the change would then be both in the state and in the queue (a message twice, an
 * unread count off by one). The commit gate (commitGate.ts) only orders R's own commits.
 *
 * So each published event carries the id of the transaction that committed it, and the queue
 * keeps the snapshot its state was read from: an event whose transaction is visible in that
 * snapshot is already in the state and is not queued. (Zulip instead creates the queue before
 * fetching the state and lets clients tolerate the duplicates; Parley's clients need not.)
 */
export class StateSnapshot {
  private constructor(
    private readonly xmin: bigint,
    private readonly xmax: bigint,
    private readonly inProgress: ReadonlySet<string>,
  ) {}

  /** PostgreSQL's pg_snapshot as text: "xmin:xmax:xip1,xip2,...". */
  static parse(text: string): StateSnapshot {
    const [xmin = "", xmax = "", xip = ""] = text.split(":");
    return new StateSnapshot(BigInt(xmin), BigInt(xmax), new Set(xip.split(",").filter((x) => x !== "")));
  }

  /** Whether the changes of committed transaction `xid` are in this snapshot. */
  sees(xid: bigint): boolean {
    if (xid < this.xmin) return true;
    if (xid >= this.xmax) return false;
    return !this.inProgress.has(xid.toString());
  }
}
