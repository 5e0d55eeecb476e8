import { type RawBuilder, sql } from "kysely";

/**
 * `value` folded to lower case by the database, for comparisons with `lower(column)`: both sides
 * then fold alike. SQLite's lower() folds ASCII letters only and PostgreSQL's all of Unicode, so a
 * value folded in JavaScript (toLowerCase) never matched a SQLite name with a non-ASCII capital,
 * not even written exactly ("Équipe", "Élodie"). On SQLite such names match when the case of
 * their non-ASCII letters is the same; on PostgreSQL in any case.
 */
export function lowered(value: string): RawBuilder<string> {
  return sql<string>`lower(${value})`;
}
