/**
 * A write refused by a unique index, on either engine: SQLite's SQLITE_CONSTRAINT_UNIQUE (or
 * _PRIMARYKEY) and PostgreSQL's unique_violation (23505). Two requests that each checked a name
 * was free and then both insert it end here; the caller turns it into the same 4xx the check gives.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
