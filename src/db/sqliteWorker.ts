/**
 * The entry point of an SQLite worker thread (sqliteThreads.ts): one connection of its own,
 * opened as in process (sqliteConnection.ts), running the statements the main thread posts, one
 * at a time, in the order they arrive. The build bundles it as dist/sqliteWorker.js.
 *
 * A request is `[id, mode, sql, parameters]` (mode READ_ONLY: run it only if it cannot write) or
 * `[id, CLOSE]`; the answer is `[id, ROWS, rows, hasBlobs]`, `[id, CHANGES, changes, lastInsertRowid]`,
 * `[id, ERROR, message, code]`, `[id, NOT_READ_ONLY]` or `[id, CLOSED]`.
 */
import { parentPort, workerData } from "node:worker_threads";
import type SqliteDatabase from "better-sqlite3";
import { openSqliteConnection, type SqliteConnectionOptions } from "./sqliteConnection.js";
import { Op, Reply, type Request } from "./sqliteProtocol.js";

const port = parentPort!;
let sqlite: SqliteDatabase.Database;
try {
  sqlite = openSqliteConnection(workerData as SqliteConnectionOptions);
  port.postMessage([0, Reply.READY]);
} catch (error) {
  port.postMessage([0, Reply.ERROR, (error as Error).message, (error as { code?: string }).code]);
  process.exit(1);
}

port.on("message", (request: Request) => {
  const id = request[0];
  if (request[1] === Op.CLOSE) {
    sqlite.close();
    port.postMessage([id, Reply.CLOSED]);
    port.close();
    return;
  }
  try {
    const statement = sqlite.prepare(request[2]);
    if (request[1] === Op.READ_ONLY && !statement.readonly) {
      port.postMessage([id, Reply.NOT_READ_ONLY]);
      return;
    }
    const parameters = request[3].map(asBuffer);
    if (statement.reader) {
      const rows = statement.all(parameters) as Record<string, unknown>[];
      port.postMessage([id, Reply.ROWS, rows, hasBlobs(rows)]);
    } else {
      const { changes, lastInsertRowid } = statement.run(parameters);
      port.postMessage([id, Reply.CHANGES, changes, lastInsertRowid]);
    }
  } catch (error) {
    port.postMessage([id, Reply.ERROR, (error as Error).message, (error as { code?: string }).code]);
  }
});

/** A posted Buffer arrives as a Uint8Array, which better-sqlite3 does not bind. */
function asBuffer(value: unknown): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
}

/** Whether a row holds a BLOB (a Buffer, which arrives as a Uint8Array: the main thread makes it a Buffer again). */
function hasBlobs(rows: Record<string, unknown>[]): boolean {
  for (const row of rows) for (const key in row) if (Buffer.isBuffer(row[key])) return true;
  return false;
}
