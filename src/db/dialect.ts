import {
  type ColumnDataType,
  type CreateTableBuilder,
  type Kysely,
  type SelectQueryBuilder,
  sql,
} from "kysely";

/**
 * The ONLY module that knows which SQL engine is underneath. Everything that differs between
 * SQLite and PostgreSQL (column types, row locks, pragmas, sequences) is a method here;
 * store/ and migrations/ call these helpers and never test the dialect themselves.
 */
export type DialectName = "sqlite" | "postgres";

export interface Dialect {
  readonly name: DialectName;
  /** Adds an auto-incrementing integer primary key called `id`. */
  addIdColumn<T extends string>(table: CreateTableBuilder<T, any>): CreateTableBuilder<T, any>;
  /** A 64-bit integer column type (times in seconds, sizes in bytes, flag bitmasks). */
  readonly bigint: ColumnDataType;
  /** Locks the selected rows until the transaction ends (no-op on SQLite, which locks the file). */
  forUpdate<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Moves the id sequence of `table` past `minimum` (used by seeds that insert explicit ids). */
  bumpIdSequence(db: Kysely<any>, table: string, minimum: number): Promise<void>;
}

const sqlite: Dialect = {
  name: "sqlite",
  addIdColumn: (table) => table.addColumn("id", "integer", (col) => col.primaryKey().autoIncrement()),
  bigint: "integer",
  forUpdate: (query) => query,
  async bumpIdSequence(db, table, minimum) {
    // AUTOINCREMENT tables keep their high-water mark in sqlite_sequence.
    const row = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(db);
    if (row.rows.length === 0) {
      await sql`insert into sqlite_sequence (name, seq) values (${table}, ${minimum})`.execute(db);
    } else if (row.rows[0].seq < minimum) {
      await sql`update sqlite_sequence set seq = ${minimum} where name = ${table}`.execute(db);
    }
  },
};

const postgres: Dialect = {
  name: "postgres",
  addIdColumn: (table) => table.addColumn("id", "bigserial", (col) => col.primaryKey()),
  bigint: "bigint",
  forUpdate: (query) => query.forUpdate(),
  async bumpIdSequence(db, table, minimum) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'),
      greatest(${minimum}::bigint, (select coalesce(max(id), 0) from ${sql.table(table)})))`.execute(db);
  },
};

export function dialectFor(name: DialectName): Dialect {
  return name === "sqlite" ? sqlite : postgres;
}
