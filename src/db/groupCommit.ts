import { type Transaction, sql } from "kysely";
import { isStalePlanError, isUniqueViolation } from "./errors.js";
import type { Database } from "./schema.js";
import type { TxServices } from "./tx.js";
import { defined } from "../util/defined.js";

/** What one unit of work queued while it ran: after-commit hooks, and whether it sent events. */
export interface Pending {
  hooks: Array<() => void>;
  hasEvents: boolean;
  /** Multi-process mode: the committing transaction's id, sent with its events (events/snapshotFilter.ts). */
  transactionId?: string | null;
}

type Work<T> = (trx: Transaction<Database>, pending: Pending) => Promise<T>;

interface Item {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Committed = { item: Item; pending: Pending; value: unknown };
type Failed = { item: Item; error: unknown };

/** Units of work sharing one COMMIT at most; bounds the wait of the first one in a busy batch. */
const MAX_BATCH = 32;
/** Times a unit refused by a unique index runs again (each time another connection won a race). */
const MAX_UNIQUE_RETRIES = 2;

/**
 * Group commit, on one connection at a time (one lane of GroupCommitLanes below). Units of work
 * that are waiting at the same moment run one after the other inside one transaction and share the
 * COMMIT: its fsync, and the B-tree pages they all touch (a message to 1,000 users dirties ~1,000
 * index pages; ten such messages in one commit dirty about the same pages). Their events are
 * released together, so a long-poll is answered once for all of them. A unit that throws is rolled
 * back alone and its caller gets the error; the others go on: the batch first runs without
 * savepoints (on PostgreSQL each is a round trip, two per unit, on the connection the batch holds),
 * and when a unit fails it is rolled back whole and runs again with a SAVEPOINT per unit. No unit
 * is acknowledged (its promise resolved, its events and job wake-ups released) before the COMMIT
 * has returned, so an acknowledged write survives power loss (SQLite with synchronous=FULL;
 * PostgreSQL with its default fsync and synchronous_commit).
 *
 * SQLite has one connection, whose writers queue anyway. On PostgreSQL, writers used to run side
 * by side on the pool, each committing and publishing alone: every message to a big channel then
 * answered each member's poll by itself, where with group commit one answer carries a batch's
 * messages. Reads still use the whole pool. A unit that waits for a row lock another
 * process holds delays the rest of its batch; a deadlock between processes fails one statement,
 * whose unit alone is rolled back.
 *
 * Batches form by themselves: while one batch holds the connection, the requests that arrive
 * queue up here and become the next batch; an idle server commits each unit at once.
 *
 * On SQLite the savepoints' journals stay in memory for the batch (Dialect.journalsInMemory),
 * sparing the temporary files' writes.
 */
export class GroupCommitter {
  private readonly queue: Item[] = [];
  private draining = false;

  constructor(private readonly services: TxServices) {}

  /** Units waiting, plus one while a batch runs: 0 when idle. */
  get load(): number {
    return this.queue.length + (this.draining ? 1 : 0);
  }

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // After the current turn: the units started by requests read in this turn join the batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.runBatch();
    } finally {
      this.draining = false;
    }
  }

  private async runBatch(): Promise<void> {
    // The units taken from the queue (units queued while the batch runs join it, up to MAX_BATCH).
    const batch: Item[] = [];
    const first = await this.commitBatch(batch, false);
    if (first === "failed") return;
    if (first !== "committed") {
      // A unit failed in the batch run without savepoints, which rolled the whole batch back.
      // Alone and not worth a retry, it gets its error now; else the batch runs again, carefully.
      if (batch.length === 1 && !isRetryable(first.error, 1)) return first.item.reject(first.error);
      await this.commitBatch(batch, true);
    }
  }

  /**
   * One transaction over `batch`'s units, then more from the queue. Without `savepoints` a unit's
   * failure ends it at once, rolled back, and is returned (nothing is resolved or rejected); with
   * them, a failed unit is rolled back alone and the rest commit. "failed": the transaction
   * itself failed, and every unit of the batch got an error.
   */
  private async commitBatch(batch: Item[], savepoints: boolean): Promise<"committed" | "failed" | Failed> {
    const committed: Committed[] = [];
    const failed: Failed[] = [];
    let releaseGate: (() => void) | undefined;
    const { kysely, dialect } = this.services.db;
    try {
      await kysely.transaction().execute(async (trx) => {
        await dialect.journalsInMemory(trx, true);
        try {
          await this.runUnits(trx, batch, committed, failed, savepoints);
        } finally {
          await dialect.journalsInMemory(trx, false);
        }
        if (!savepoints && failed.length > 0) throw new BatchRolledBack();
        // From just before COMMIT until its events are delivered, no register takes a snapshot
        // (events/commitGate.ts), so a new queue sees each change either in its state or as an event.
        if (committed.some((c) => c.pending.hasEvents)) {
          // Several processes: the events say which transaction they come from (events/snapshotFilter.ts).
          if (this.services.events.publisher) {
            const transactionId = await dialect.transactionId(trx);
            for (const c of committed) c.pending.transactionId = transactionId;
          }
          releaseGate = await this.services.events.gate.enterShared();
        }
        // SQLite in process: the WAL's sync is requested below, once the events are out (sqliteWalSync.ts).
        this.services.db.walSync?.deferToCaller();
      });
    } catch (error) {
      releaseGate?.();
      if (error instanceof BatchRolledBack) return defined(failed[0], "the failed unit");
      // Nothing of this batch is durable: every caller gets an error.
      // A transaction that could not even begin fails the units waiting for it, which would
      // otherwise wait for it again at once, and again.
      if (batch.length === 0) batch.push(...this.queue.splice(0, MAX_BATCH));
      // A unit that failed on its own gets its own error; the others the transaction's.
      const ownErrors = new Map<Item, unknown>(failed.map((f) => [f.item, f.error]));
      for (const item of batch) item.reject(ownErrors.has(item) ? ownErrors.get(item) : error);
      return "failed";
    }
    const hookErrors = new Map<Item, unknown>();
    try {
      for (const c of committed) {
        try {
          for (const hook of c.pending.hooks) hook();
        } catch (error) {
          hookErrors.set(c.item, error);
        }
      }
    } finally {
      releaseGate?.();
    }
    // Answered once durable: on SQLite in process, once the WAL's sync is done.
    const { walSync } = this.services.db;
    const synced = walSync
      ? await walSync.request().then(
          () => null,
          (error: unknown) => ({ error }),
        )
      : null;
    for (const c of committed) {
      if (hookErrors.has(c.item)) c.item.reject(hookErrors.get(c.item));
      else if (synced) c.item.reject(synced.error);
      else c.item.resolve(c.value);
    }
    for (const f of failed) f.item.reject(f.error);
    return "committed";
  }

  /**
   * Runs `batch`'s units, then queued ones up to MAX_BATCH (added to `batch`), one after the
   * other in `trx`. With `savepoints`, each in its own SAVEPOINT, rolled back alone if it fails
   * (and run again when worth it); without, the first failure stops the run.
   */
  private async runUnits(trx: Transaction<Database>, batch: Item[], committed: Committed[], failed: Failed[], savepoints: boolean): Promise<void> {
    for (let index = 0; index < MAX_BATCH; index++) {
      if (index === batch.length) {
        const next = this.queue.shift();
        if (!next) return;
        batch.push(next);
      }
      const item = defined(batch[index], "a unit of the batch");
      if (!savepoints) {
        const pending: Pending = { hooks: [], hasEvents: false };
        try {
          committed.push({ item, pending, value: await item.work(trx, pending) });
        } catch (error) {
          failed.push({ item, error });
          return;
        }
        continue;
      }
      const savepoint = sql.raw(`group_commit_${index + 1}`);
      for (let attempt = 1; ; attempt++) {
        const pending: Pending = { hooks: [], hasEvents: false };
        await sql`savepoint ${savepoint}`.execute(trx);
        try {
          const value = await item.work(trx, pending);
          await sql`release savepoint ${savepoint}`.execute(trx);
          committed.push({ item, pending, value });
        } catch (error) {
          // A statement prepared before another process changed its table: the unit runs once
          // more, its statements unnamed (db/pgPreparedStatements.ts). A unit refused by a unique
          // index lost a race to another connection (PostgreSQL's lanes, other processes): both
          // checked that a name or address was free, and the other's row, which this insert
          // waited for, is committed now. Run again, the unit's own check sees that row and
          // answers as it would have (Zulip's 4xx, or subscribing to the channel now there).
          const again = isRetryable(error, attempt);
          if (!again) failed.push({ item, error });
          // If SQLite already rolled the whole transaction back, this throws and fails the batch.
          await sql`rollback to savepoint ${savepoint}`.execute(trx);
          await sql`release savepoint ${savepoint}`.execute(trx);
          if (again) continue;
        }
        break;
      }
    }
  }
}

/** Thrown inside a batch run without savepoints to roll it back after a unit failed. */
class BatchRolledBack extends Error {}

/** Whether a unit that failed on its `attempt`th run is run again (see runUnits). */
function isRetryable(error: unknown, attempt: number): boolean {
  return (attempt === 1 && isStalePlanError(error)) || (attempt <= MAX_UNIQUE_RETRIES && isUniqueViolation(error));
}

/**
 * Several group committers side by side, each on a connection of its own while it commits. A unit
 * with a batch key (a send: its conversation) goes to that key's lane, so that a busy channel's
 * sends batch together (one COMMIT, one answer per long-poll for the batch); others go to an idle
 * lane, or else join the shortest queue. SQLite has one connection, so one lane. On PostgreSQL a few
 * lanes keep writes that gain nothing from batching (direct messages between different people)
 * running in parallel.
 */
export class GroupCommitLanes {
  private readonly lanes: GroupCommitter[];

  constructor(services: TxServices, count: number) {
    this.lanes = Array.from({ length: Math.max(1, count) }, () => new GroupCommitter(services));
  }

  run<T>(work: Work<T>, batchKey?: string): Promise<T> {
    if (batchKey !== undefined && this.lanes.length > 1) return defined(this.lanes[laneOf(batchKey, this.lanes.length)], "the batch's lane").run(work);
    let chosen = defined(this.lanes[0], "a lane");
    for (const lane of this.lanes) {
      if (lane.load === 0) return lane.run(work);
      if (lane.load < chosen.load) chosen = lane;
    }
    return chosen.run(work);
  }
}

/** A lane for a key: FNV-1a of its characters. */
function laneOf(key: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

const committers = new WeakMap<object, GroupCommitLanes>();

/** The group committers of `services.db` (its dialect says how many run at once). */
export function groupCommitterFor(services: TxServices): GroupCommitLanes {
  let committer = committers.get(services.db);
  if (!committer) {
    committer = new GroupCommitLanes(services, services.db.dialect.writeLanes);
    committers.set(services.db, committer);
  }
  return committer;
}
