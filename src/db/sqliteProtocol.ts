/** The messages between the main thread and an SQLite worker thread (sqliteThreads.ts, sqliteWorker.ts). */

/** What a request asks. */
export const Op = {
  /** Run the statement: its rows if it returns any, else its changes. */
  RUN: 0,
  /** The same, but only if the statement cannot write (a reader's connection); else answer NOT_READ_ONLY. */
  READ_ONLY: 1,
  /** Close the connection; the thread then ends. */
  CLOSE: 2,
} as const;

/** What an answer holds. */
export const Reply = {
  READY: 0,
  ROWS: 1,
  CHANGES: 2,
  ERROR: 3,
  NOT_READ_ONLY: 4,
  CLOSED: 5,
} as const;

export type Request = [id: number, op: typeof Op.RUN | typeof Op.READ_ONLY, sql: string, parameters: readonly unknown[]] | [id: number, op: typeof Op.CLOSE];

export type Answer =
  | [id: number, reply: typeof Reply.READY | typeof Reply.NOT_READ_ONLY | typeof Reply.CLOSED]
  | [id: number, reply: typeof Reply.ROWS, rows: Record<string, unknown>[], hasBlobs: boolean]
  | [id: number, reply: typeof Reply.CHANGES, changes: number, lastInsertRowid: number | bigint]
  | [id: number, reply: typeof Reply.ERROR, message: string, code: string | undefined];
