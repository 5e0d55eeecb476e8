/**
 * Bound values one statement may carry on both engines, with room to spare: SQLite allows 32,766
 * and PostgreSQL 65,535. A multi-row insert of many rows (10,000 new channels, a channel's
 * subscribers) is cut into statements below it.
 */
const MAX_STATEMENT_VALUES = 30_000;

/** `rows` cut into batches whose bound values (rows × columns) stay under the engines' limits. */
function rowBatches<T extends object>(rows: readonly T[]): T[][] {
  let columns = 1;
  for (const row of rows) columns = Math.max(columns, Object.keys(row).length);
  const size = Math.max(1, Math.floor(MAX_STATEMENT_VALUES / columns));
  const batches: T[][] = [];
  for (let i = 0; i < rows.length; i += size) batches.push(rows.slice(i, i + size));
  return batches;
}

/** Runs `insert` on each batch of `rows` in order; returns what the batches return, concatenated. */
export async function insertInBatches<T extends object, R = never>(rows: readonly T[], insert: (batch: T[]) => Promise<R[] | void>): Promise<R[]> {
  const results: R[] = [];
  for (const batch of rowBatches(rows)) results.push(...((await insert(batch)) ?? []));
  return results;
}
