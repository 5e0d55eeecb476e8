import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { lazy } from "../../util/lazy.js";

/** Loaded when a large file is streamed. */
const loadStreamParser = lazy(() => import("@streamparser/json"));

/**
 * The rows of an export's JSON files, which are objects of tables (`{"zerver_message": [row, …],
 * …}`), read in bounded memory. A file up to `streamAboveBytes()` is parsed whole (JSON.parse is
 * several times faster than any streaming parser, and Zulip writes 1,000 messages a file); a
 * larger one is streamed with @streamparser/json, a chunk at a time, so memory does not grow with
 * the file. Either way a truncated or invalid file is a JsonRowsError.
 */
export class JsonRowsError extends Error {}

export type Row = Record<string, any>;

const DEFAULT_STREAM_ABOVE = 32 * 1024 * 1024;

/** Files larger than this are streamed (PARLEY_IMPORT_STREAM_ABOVE_BYTES; tests set 0). */
function streamAboveBytes(): number {
  const value = Number(process.env.PARLEY_IMPORT_STREAM_ABOVE_BYTES);
  return Number.isSafeInteger(value) && value >= 0 && process.env.PARLEY_IMPORT_STREAM_ABOVE_BYTES !== "" ? value : DEFAULT_STREAM_ABOVE;
}

const invalid = (file: string, error: unknown) =>
  new JsonRowsError(`${path.basename(file)} is not valid JSON — is the export truncated? (${(error as Error).message})`);

/**
 * The rows of the file's tables in `tables` (all tables when null), in file order, a chunk at a
 * time: [table, rows] (a whole table when the file is parsed whole; what a chunk of the file
 * held when streamed).
 */
export async function* tableChunks(file: string, tables: ReadonlySet<string> | null = null): AsyncGenerator<[string, Row[]]> {
  if ((await stat(file)).size <= streamAboveBytes()) {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      throw invalid(file, error);
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) throw new JsonRowsError(`${path.basename(file)} is not an object of tables`);
    for (const [table, rows] of Object.entries(data as Record<string, unknown>)) {
      if (Array.isArray(rows) && rows.length > 0 && (!tables || tables.has(table))) yield [table, rows as Row[]];
    }
    return;
  }
  yield* streamedChunks(file, tables);
}

async function* streamedChunks(file: string, tables: ReadonlySet<string> | null): AsyncGenerator<[string, Row[]]> {
  const head = Buffer.alloc(64);
  const handle = await open(file);
  const { bytesRead } = await handle.read(head, 0, 64, 0).finally(() => handle.close());
  if (!head.subarray(0, bytesRead).toString("utf8").trimStart().startsWith("{")) throw new JsonRowsError(`${path.basename(file)} is not an object of tables`);
  // keepStack: false drops each row once it has been handed over.
  const { JSONParser } = await loadStreamParser();
  const parser = new JSONParser({ paths: ["$.*.*"], keepStack: false });
  let pending: Array<[string, Row[]]> = [];
  parser.onValue = ({ value, key, stack }) => {
    const table = stack[1]?.key;
    if (typeof table !== "string" || typeof key !== "number" || (tables && !tables.has(table))) return;
    const last = pending[pending.length - 1];
    if (last && last[0] === table) last[1].push(value as Row);
    else pending.push([table, [value as Row]]);
  };
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      parser.write(chunk as Buffer);
      const ready = pending;
      pending = [];
      yield* ready;
    }
    if (!parser.isEnded) parser.end();
  } catch (error) {
    if (error instanceof JsonRowsError) throw error;
    throw invalid(file, error);
  }
  const rest = pending;
  pending = [];
  yield* rest;
}

/** Rows of one table, `size` at a time, after skipping its first `skip` rows. */
export async function* tableBatches(file: string, table: string, size: number, skip = 0): AsyncGenerator<Row[]> {
  let toSkip = skip;
  let batch: Row[] = [];
  for await (const [, chunk] of tableChunks(file, new Set([table]))) {
    let rows = chunk;
    if (toSkip > 0) {
      const dropped = Math.min(toSkip, rows.length);
      rows = rows.slice(dropped);
      toSkip -= dropped;
    }
    for (let i = 0; i < rows.length;) {
      const take = Math.min(size - batch.length, rows.length - i);
      batch = batch.length === 0 && take === rows.length ? rows : batch.concat(rows.slice(i, i + take));
      i += take;
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}
