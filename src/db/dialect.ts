import type { Config } from "../config.js";
import {
  type ColumnDataType,
  type CreateTableBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  sql,
  SqliteAdapter,
  type TransactionBuilder,
} from "kysely";
import { defined } from "../util/defined.js";

/**
 * The ONLY module that knows which SQL engine is underneath. Everything that differs between
 * SQLite and PostgreSQL (column types, row locks, pragmas, sequences) is a method here;
 * store/ and migrations/ call these helpers and never test the dialect themselves.
 */
export type DialectName = "sqlite" | "postgres";

export interface Dialect {
  readonly name: DialectName;
  /**
   * lower() is Parley's own Unicode case folding, registered on each connection (connect.ts),
   * rather than the engine's: SQLite, whose built-in lower() folds ASCII only. Its indexes on
   * lower(…) made before migration 2026-11-28T2100 used the built-in one.
   */
  readonly lowerRegisteredByParley: boolean;
  /** Adds an auto-incrementing integer primary key called `id`. */
  addIdColumn<T extends string>(table: CreateTableBuilder<T, any>): CreateTableBuilder<T, any>;
  /** A 64-bit integer column type (times in seconds, sizes in bytes, flag bitmasks). */
  readonly bigint: ColumnDataType;
  /** Locks the selected rows until the transaction ends (no-op on SQLite, which locks the file). */
  forUpdate<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** FOR UPDATE SKIP LOCKED on PostgreSQL (work queues); SQLite's writers are serialised anyway. */
  forUpdateSkipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Moves the id sequence of `table` past `minimum` (used by seeds that insert explicit ids). */
  bumpIdSequence(db: Kysely<any>, table: string, minimum: number): Promise<void>;
  /**
   * Inserts many rows of plain values (numbers, strings, null), all with the first row's columns,
   * in as few statements as the engine takes: SQLite one INSERT … SELECT over a JSON array
   * (json_each: one bound parameter, no per-row query building); PostgreSQL the same over
   * json_populate_recordset.
   */
  insertMany(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * Full-text search over messages: the text of rendered_content (tags dropped) and the topic.
   * SQLite: an FTS5 table `message_search` (rowid = message id) that the store fills with
   * `indexMessagesForSearch`; PostgreSQL: a GIN index on a tsvector expression of the row, which
   * needs no upkeep (its parser drops HTML tags itself).
   */
  createSearchIndex(db: Kysely<any>): Promise<void>;
  /**
   * Brings the search index up to date for these (new or edited) messages; `fresh`: none of them
   * was ever indexed (just inserted), so there is nothing of them to drop first.
   */
  indexMessagesForSearch(db: Kysely<any>, rows: readonly SearchableMessage[], options?: { fresh?: boolean }): Promise<void>;
  /** Drops deleted messages from the search index. */
  unindexMessagesForSearch(db: Kysely<any>, ids: readonly number[]): Promise<void>;
  /**
   * A condition on messages `m` that every word occurs in the text or topic (whole words,
   * case-insensitively; the last word may be a prefix). `words` are non-empty, lower-case and
   * contain a letter or digit.
   */
  searchCondition(words: readonly string[]): RawBuilder<boolean>;
  /**
   * A transaction whose reads all see one snapshot, taken at its first statement: REPEATABLE
   * READ on PostgreSQL; on SQLite every transaction is one (and its single connection is held).
   */
  snapshotTransaction<DB>(db: Kysely<DB>): TransactionBuilder<DB>;
  /**
   * Multi-process mode (events/snapshotFilter.ts): the id of the running transaction (assigned
   * now if it has none), and the snapshot the running transaction reads — PostgreSQL's xid8 and
   * pg_snapshot as text ("xmin:xmax:xip,..."). SQLite is one process: null.
   */
  transactionId(q: Kysely<any>): Promise<string | null>;
  transactionSnapshot(q: Kysely<any>): Promise<string | null>;
  /** Write transactions a process runs at once, each group-committing what queues meanwhile (db/groupCommit.ts). */
  readonly writeLanes: number;
  /**
   * Whether user_messages keeps its foreign key to messages (migration 2026-11-29T1950): SQLite
   * checks it cheaply; PostgreSQL's check locked the new message once per recipient row.
   */
  readonly userMessagesKeyToMessages: boolean;
  /**
   * Inside a group commit's transaction (db/groupCommit.ts), before its first write and again at its
   * end: SQLite keeps the transaction's savepoint journals in memory, then goes back to files.
   * Each unit of a batch runs in a SAVEPOINT, for which SQLite keeps the original of every page the
   * unit changes; past 64 KiB that journal went to a temporary file, one pwrite per page, most of
   * a batch's system calls. Only for these
   * transactions: the same setting puts sorts in memory too, and a CREATE INDEX over millions of
   * rows (migrations, imports) must keep spilling to files. PostgreSQL: nothing to do.
   */
  journalsInMemory(q: Kysely<any>, on: boolean): Promise<void>;
  /**
   * Planner statistics on an expression of `table` (PostgreSQL's CREATE STATISTICS): without them
   * PostgreSQL guesses the selectivity of e.g. `(flags & 56) <> 0` and walks all messages in a
   * merge join. SQLite's planner needs none (no-op).
   */
  createExpressionStatistics(db: Kysely<any>, name: string, table: string, expression: string): Promise<void>;
  /**
   * The FROM-clause step from the viewer's rows `um` to their messages `m` for a full-text
   * narrow, evaluated one row at a time, newest first. PostgreSQL cannot estimate how many
   * messages a search matches and, left alone, tests every message of the organization; fenced
   * behind a LATERAL subquery it tests only the viewer's newest rows.
   */
  readonly joinMessagesRowByRow: RawBuilder<unknown>;
}

export interface SearchableMessage {
  id: number;
  subject: string;
  rendered_content: string | null;
}

/** The readable text of rendered HTML: tags dropped, entities decoded. */
function htmlText(html: string): string {
  const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", nbsp: " " };
  return html.replace(/<[^>]*>/g, " ").replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (m, name: string) => entities[name] ?? m);
}

/** An FTS5 string literal ("..." with inner quotes doubled). */
const fts5Phrase = (word: string) => `"${word.replace(/"/g, '""')}"`;

/** A quoted tsquery lexeme ('...' with quotes and backslashes escaped). */
const tsLexeme = (word: string) => `'${word.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** The indexed tsvector expression on PostgreSQL; queries must repeat it exactly to use the index. */
const pgSearchVector = (table: string) =>
  sql`to_tsvector('simple'::regconfig, ${sql.ref(`${table}.subject`)} || ' ' || coalesce(${sql.ref(`${table}.rendered_content`)}, ''))`;

const sqlite: Dialect = {
  name: "sqlite",
  lowerRegisteredByParley: true,
  addIdColumn: (table) => table.addColumn("id", "integer", (col) => col.primaryKey().autoIncrement()),
  bigint: "integer",
  forUpdate: (query) => query,
  forUpdateSkipLocked: (query) => query,
  snapshotTransaction: (db) => db.transaction(),
  transactionId: async () => null,
  writeLanes: 1,
  userMessagesKeyToMessages: true,
  async journalsInMemory(q, on) {
    // Allowed inside a transaction while the connection has no TEMP schema (Parley creates no
    // temporary tables); SQLite reads it when the transaction's first write begins.
    await sql.raw(`pragma temp_store = ${on ? "MEMORY" : "DEFAULT"}`).execute(q);
  },
  transactionSnapshot: async () => null,
  createExpressionStatistics: async () => {},
  joinMessagesRowByRow: sql`join messages m on m.id = um.message_id`,
  async insertMany(db, table, rows) {
    const [first] = rows;
    if (first === undefined) return;
    const columns = Object.keys(first);
    const data = JSON.stringify(rows.map((r) => columns.map((c) => r[c] ?? null)));
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
      select ${sql.join(columns.map((_, i) => sql.raw(`value ->> ${i}`)))} from json_each(${data})`.execute(db);
  },
  async bumpIdSequence(db, table, minimum) {
    // AUTOINCREMENT tables keep their high-water mark in sqlite_sequence.
    const row = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(db);
    const [current] = row.rows;
    if (current === undefined) {
      await sql`insert into sqlite_sequence (name, seq) values (${table}, ${minimum})`.execute(db);
    } else if (current.seq < minimum) {
      await sql`update sqlite_sequence set seq = ${minimum} where name = ${table}`.execute(db);
    }
  },
  async createSearchIndex(db) {
    await sql`create virtual table message_search using fts5(content_text, subject, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
    for (let after = 0; ;) {
      const batch = await db.selectFrom("messages").select(["id", "subject", "rendered_content"]).where("id", ">", after).orderBy("id").limit(1000).execute();
      const last = batch.at(-1);
      if (last === undefined) break;
      await this.indexMessagesForSearch(db, batch);
      after = last.id;
    }
  },
  async indexMessagesForSearch(db, rows, options) {
    if (rows.length === 0) return;
    if (!options?.fresh) {
      await this.unindexMessagesForSearch(
        db,
        rows.map((r) => r.id),
      );
    }
    const data = JSON.stringify(rows.map((r) => [r.id, htmlText(r.rendered_content ?? ""), r.subject]));
    await sql`insert into message_search (rowid, content_text, subject) select value ->> 0, value ->> 1, value ->> 2 from json_each(${data})`.execute(db);
  },
  async unindexMessagesForSearch(db, ids) {
    if (ids.length === 0) return;
    await sql`delete from message_search where rowid in (select value from json_each(${JSON.stringify(ids)}))`.execute(db);
  },
  searchCondition(words) {
    const query = words.map((w, i) => fts5Phrase(w) + (i === words.length - 1 ? "*" : "")).join(" AND ");
    return sql<boolean>`m.id in (select rowid from message_search where message_search match ${query})`;
  },
};

const postgres: Dialect = {
  name: "postgres",
  lowerRegisteredByParley: false,
  addIdColumn: (table) => table.addColumn("id", "bigserial", (col) => col.primaryKey()),
  bigint: "bigint",
  forUpdate: (query) => query.forUpdate(),
  forUpdateSkipLocked: (query) => query.forUpdate().skipLocked(),
  snapshotTransaction: (db) => db.transaction().setIsolationLevel("repeatable read"),
  async transactionId(q) {
    const [row] = (await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(q)).rows;
    return defined(row, "pg_current_xact_id()").xid;
  },
  async transactionSnapshot(q) {
    const [row] = (await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(q)).rows;
    return defined(row, "pg_current_snapshot()").snapshot;
  },
  writeLanes: 3,
  userMessagesKeyToMessages: false,
  journalsInMemory: async () => {},
  joinMessagesRowByRow: sql`cross join lateral (select * from messages where messages.id = um.message_id offset 0) m`,
  async createExpressionStatistics(db, name, table, expression) {
    await sql`create statistics if not exists ${sql.id(name)} on (${sql.raw(expression)}) from ${sql.id(table)}`.execute(db);
    await sql`analyze ${sql.id(table)}`.execute(db);
  },
  async insertMany(db, table, rows) {
    // Like SQLite's: one JSON parameter, typed by the table's own row type. Multi-row VALUES cost a
    // query tree of every value to build and compile, three bound parameters per user_messages row
    // to parse, and a statement text per row count (so no prepared statement); this text depends
    // on the table and columns only.
    const [first] = rows;
    if (first === undefined) return;
    const columns = Object.keys(first);
    const data = JSON.stringify(rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))));
    const list = sql.join(columns.map((c) => sql.ref(c)));
    await sql`insert into ${sql.table(table)} (${list}) select ${list} from json_populate_recordset(null::${sql.table(table)}, ${data}::json)`.execute(db);
  },
  async bumpIdSequence(db, table, minimum) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'),
      greatest(${minimum}::bigint, (select coalesce(max(id), 0) from ${sql.table(table)})))`.execute(db);
  },
  async createSearchIndex(db) {
    await sql`create index messages_search_idx on messages using gin (${pgSearchVector("messages")})`.execute(db);
  },
  async indexMessagesForSearch() {
    // The index is an expression on the row: PostgreSQL keeps it current.
  },
  async unindexMessagesForSearch() {
    // Deleting the row removes it from the index.
  },
  searchCondition(words) {
    const query = words.map((w, i) => tsLexeme(w) + (i === words.length - 1 ? ":*" : "")).join(" & ");
    return sql<boolean>`${pgSearchVector("m")} @@ to_tsquery('simple'::regconfig, ${query})`;
  },
};

export function dialectFor(name: DialectName): Dialect {
  return name === "sqlite" ? sqlite : postgres;
}

/** The dialect of an open database or transaction (for code that gets only an executor). */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof SqliteAdapter ? sqlite : postgres;
}

/**
 * The database settings for a bulk job that can redo its last transactions (an import, whose state
 * row commits with each batch): SQLite with synchronous=NORMAL (WAL stays consistent; a power cut
 * may lose the last commits); PostgreSQL unchanged.
 */
export function bulkJobDatabase(database: Config["database"]): Config["database"] {
  return database.kind === "sqlite" ? { ...database, synchronous: "NORMAL" } : database;
}
