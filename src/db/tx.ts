import type { Kysely, Transaction } from "kysely";
import type { EventDispatcher, ParleyEvent } from "../events/dispatch.js";
import type { CommittedEvent } from "../events/types.js";
import { type JobKind, type JobPayload, parseJobPayload } from "../models/jobPayloads.js";
import { nowSeconds } from "../util/time.js";
import { registerAuthCache } from "./authCache.js";
import type { Db } from "./connect.js";
import type { Dialect } from "./dialect.js";
import { groupCommitterFor, type Pending } from "./groupCommit.js";
import type { Database } from "./schema.js";

/** Anything queries can run on: the database or an open transaction. Store functions take this. */
export type Executor = Kysely<Database>;

export interface JobOptions {
  /** UNIX seconds; default now. */
  runAt?: number;
  maxAttempts?: number;
}

/** What actions get: the transaction to write in, and the hooks that fire only after COMMIT. */
export interface Tx {
  readonly q: Transaction<Database>;
  readonly dialect: Dialect;
  /** The event is JSON-round-tripped now and delivered to `userIds`' queues after commit. */
  sendEventOnCommit(event: CommittedEvent, userIds: Iterable<number>): void;
  /** Writes a durable job row in this transaction (payload checked: models/jobPayloads.ts); the job runner is woken after commit. */
  enqueueJob<K extends JobKind>(kind: K, payload: JobPayload<K>, options?: JobOptions): Promise<void>;
  /** Many jobs of one kind in one statement (fan-out work: one per receiver). */
  enqueueJobs<K extends JobKind>(kind: K, payloads: readonly JobPayload<K>[], options?: JobOptions): Promise<void>;
  afterCommit(hook: () => void): void;
}

/** The process-wide services a transaction hands its after-commit work to. */
export interface TxServices {
  db: Db;
  events: EventDispatcher;
  /** Called after a commit that enqueued jobs. */
  wakeJobs: () => void;
}

function makeTx(services: TxServices, trx: Transaction<Database>, pending: Pending): Tx {
  let wantsWake = false;
  // Store writes to users, realms and sessions in this transaction invalidate the auth cache after COMMIT.
  registerAuthCache(trx, services.db.authCache, pending);
  const tx: Tx = {
    q: trx,
    dialect: services.db.dialect,
    sendEventOnCommit(event, userIds) {
      pending.hasEvents = true;
      const frozen = JSON.parse(JSON.stringify(event)) as ParleyEvent;
      const users = [...new Set(userIds)];
      pending.hooks.push(() => services.events.dispatchCommitted(frozen, users, pending.transactionId ?? undefined));
    },
    async enqueueJob(kind, payload, options = {}) {
      await tx.enqueueJobs(kind, [payload], options);
    },
    async enqueueJobs(kind, payloads, options = {}) {
      if (payloads.length === 0) return;
      const now = nowSeconds();
      const rows = payloads.map((payload) => ({
        kind,
        payload: JSON.stringify(parseJobPayload(kind, payload)),
        run_at: options.runAt ?? now,
        max_attempts: options.maxAttempts ?? 5,
        created_at: now,
      }));
      for (let i = 0; i < rows.length; i += 500)
        await trx
          .insertInto("jobs")
          .values(rows.slice(i, i + 500))
          .execute();
      if (!wantsWake) {
        wantsWake = true;
        pending.hooks.push(() => services.wakeJobs());
      }
    },
    afterCommit(hook) {
      pending.hooks.push(hook);
    },
  };
  return tx;
}

/**
 * Runs `fn` in one transaction. After COMMIT, the events and job wake-ups it queued are
 * released; on rollback they are dropped. Nested calls reuse the outer transaction.
 *
 * Transactions waiting at the same moment share one COMMIT (group commit, db/groupCommit.ts): each
 * runs in its own SAVEPOINT, so a failing one is rolled back alone, and none is acknowledged
 * before the shared COMMIT is durable.
 */
export async function inTransaction<T>(services: TxServices, fn: (tx: Tx) => Promise<T>, outer?: Tx, options: TransactionOptions = {}): Promise<T> {
  if (outer) return fn(outer);
  return groupCommitterFor(services).run((trx, pending) => fn(makeTx(services, trx, pending)), options.batchKey);
}

/**
 * Work that reads and checks first, then writes what it decided (sending a message: its checks,
 * rendering and receivers, then its rows). With several group-commit lanes (PostgreSQL) each step
 * is a transaction of its own: `check` on the least loaded lane, beside other units' writes, and
 * `write` in `options.batchKey`'s lane, which each unit then holds for its writes alone (a busy
 * channel's sends share one lane, where every statement is a round trip). With one lane (SQLite:
 * no round trips, and a transaction more costs more than it saves) both run in one transaction.
 * What `check` read may be a few milliseconds old when `write` runs, as in Zulip, whose
 * check_message runs before do_send_messages's transaction; `write` must not rely on more.
 */
export async function inCheckThenWrite<C, T>(
  services: TxServices,
  check: (tx: Tx) => Promise<C>,
  write: (tx: Tx, checked: C) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  if (services.db.dialect.writeLanes > 1) {
    const checked = await inTransaction(services, check);
    return inTransaction(services, (tx) => write(tx, checked), undefined, options);
  }
  return inTransaction(services, async (tx) => write(tx, await check(tx)), undefined, options);
}

export interface TransactionOptions {
  /** Transactions with the same key go to the same group-commit lane (db/groupCommit.ts), where they batch. */
  batchKey?: string;
}
