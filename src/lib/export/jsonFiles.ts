import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Row } from "./tableRows.js";

/**
 * Writes the JSON files of an export row by row, so a large table is never one string in
 * memory: `{"table": [row, …], …}` (Zulip's write_table_data, rows sorted by id by the caller),
 * and a records.json list. Returns the number of rows of each table (Zulip's stats.json).
 */
export type TableSource = Iterable<Row> | AsyncIterable<Row>;

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, "drain");
}

async function finish(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, "finish");
}

async function open(file: string): Promise<WriteStream> {
  await mkdir(path.dirname(file), { recursive: true });
  const stream = createWriteStream(file, { flags: "wx" });
  await once(stream, "open");
  return stream;
}

export async function writeTableFile(file: string, tables: ReadonlyArray<readonly [string, TableSource]>): Promise<Record<string, number>> {
  const stream = await open(file);
  const counts: Record<string, number> = {};
  try {
    await write(stream, "{");
    for (const [t, [name, rows]] of tables.entries()) {
      await write(stream, `${t === 0 ? "" : ","}\n  ${JSON.stringify(name)}: [`);
      let n = 0;
      for await (const row of rows) await write(stream, `${n++ === 0 ? "" : ","}\n    ${JSON.stringify(row)}`);
      await write(stream, n === 0 ? "]" : "\n  ]");
      counts[name] = n;
    }
    await write(stream, "\n}\n");
  } finally {
    await finish(stream);
  }
  return counts;
}

export async function writeRecordsFile(dir: string, records: Row[]): Promise<number> {
  const sorted = [...records].sort((a, b) => String(a.path).localeCompare(String(b.path)));
  const stream = await open(path.join(dir, "records.json"));
  try {
    await write(stream, `${JSON.stringify(sorted, null, 2)}\n`);
  } finally {
    await finish(stream);
  }
  return sorted.length;
}
