import type { Logger } from "pino";
import type { BlobStorage } from "./blobs/storage.js";
import type { Config } from "./config.js";
import type { Db } from "./db/connect.js";
import { inTransaction, type TransactionOptions, type Tx, type TxServices } from "./db/tx.js";
import type { EventBus } from "./events/bus.js";
import type { EventDispatcher } from "./events/dispatch.js";
import type { EventQueueRegistry } from "./events/queues.js";
import type { PasswordMethods } from "./actions/login.js";
import type { RateLimiter } from "./http/rateLimit.js";
import type { Metrics } from "./metrics.js";

/** The process-wide services every handler, action and job can reach. Built once by app.ts. */
export interface AppContext extends TxServices {
  config: Config;
  db: Db;
  events: EventDispatcher;
  eventQueues: EventQueueRegistry;
  /** Multi-process mode only (PARLEY_BUS_URL): the other processes, over NATS. */
  bus?: EventBus;
  log: Logger;
  rateLimiter: RateLimiter;
  /** GET/DELETE /events's counters: this process's memory, buckets of their own (Endpoint.inProcessRateLimit). */
  pollRateLimiter: RateLimiter;
  /** Uploaded files (local directory or bucket). */
  blobs: BlobStorage;
  /** Prometheus metrics of this process. */
  metrics: Metrics;
  wakeJobs: () => void;
  /** LDAP's part of password login (src/auth/ldap.ts); absent: Parley's own passwords only. */
  passwordMethods?: PasswordMethods;
}

/** Runs `fn` in one transaction of the app's database; events and jobs are released after commit. */
export function transaction<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
  return inTransaction(ctx, fn, undefined, options);
}
