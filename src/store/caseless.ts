import { type RawBuilder, sql } from "kysely";

/**
 * `value` folded to lower case by the database, for comparisons with `lower(column)`: both sides
 * then fold alike, in all of Unicode on both engines (SQLite's lower() is Parley's, see
 * db/connect.ts, registerCaseFolding), and the comparison can use the indexes on lower(column).
 */
export function lowered(value: string): RawBuilder<string> {
  return sql<string>`lower(${value})`;
}
