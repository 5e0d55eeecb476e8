/**
 * A write refused by a unique index, on either engine: SQLite's SQLITE_CONSTRAINT_UNIQUE (or
 * _PRIMARYKEY) and PostgreSQL's unique_violation (23505). Two requests that each checked a name
 * was free and then both insert it end here; group commit runs the loser's transaction again
 * (db/groupCommit.ts), whose check then gives its 4xx.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * PostgreSQL's "cached plan must not change result type" (0A000): a prepared statement's table
 * changed under it, e.g. another process's migration added a column to a `select *`
 * (db/pgPreparedStatements.ts gives its names up; db/groupCommit.ts runs the unit again).
 */
export function isStalePlanError(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "0A000" && /cached plan must not change result type/.test(String((error as Error).message));
}
