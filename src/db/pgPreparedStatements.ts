import type pg from "pg";
import { isStalePlanError } from "./errors.js";

/**
 * Named (prepared) statements on PostgreSQL. Kysely sends every query as an unnamed statement,
 * which PostgreSQL parses, analyses and plans anew each time: for most of Parley's statements
 * that costs more than running them. A statement text seen `namedAfterUses` times gets a name;
 * node-pg then prepares it once per connection and afterwards only binds and executes it.
 * Transaction control (BEGIN, SAVEPOINT, COMMIT…) stays unnamed: there is nothing to plan.
 * Most of the gain is the planning: after five runs PostgreSQL keeps a generic plan for a
 * statement when it costs no more than the plans made for each run's values (plan_cache_mode
 * `auto`, the default; an operator can set `force_custom_plan` on the database to plan every run).
 *
 * Bounded: at most 256 texts are named for the process's life (texts that differ by the
 * length of an IN list are different texts); later ones stay unnamed.
 *
 * A schema change by another process (a migration run by a newer version of Parley during a
 * rolling upgrade) makes a prepared `select *` of the changed table fail with "cached plan must
 * not change result type" (SQLSTATE 0A000). Then every name is given up: the connections retire
 * as they are released (none keeps a statement prepared before the change), the failed statement
 * is run again unnamed when outside a transaction, and group commit runs a failed unit again
 * (db/groupCommit.ts).
 *
 * PARLEY_POSTGRES_PREPARED_STATEMENTS=0 turns this off (for a connection pooler in transaction
 * mode that does not track prepared statements).
 */
type Query = (...args: any[]) => Promise<any>;

/** A text is named at its second use. */
const NAMED_AFTER_USES = 2;
/** At most this many texts are named in a process's life; the texts counted are bounded alike. */
const MAX_NAMES = 256;
/** Statements PostgreSQL plans (the others gain nothing from a name). */
const PLANNED = /^\s*(select|insert|update|delete|with)\b/i;

export class StatementNames {
  private readonly uses = new Map<string, number>();
  private readonly names = new Map<string, string>();
  /** Bumped when prepared statements went stale: connections of an older generation are retired. */
  generation = 0;

  /** The name to prepare `text` under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    const named = this.names.get(text);
    if (named !== undefined) return named;
    if (this.names.size >= MAX_NAMES || !PLANNED.test(text)) return undefined;
    const uses = (this.uses.get(text) ?? 0) + 1;
    if (uses < NAMED_AFTER_USES) {
      if (this.uses.size >= MAX_NAMES * 8) this.uses.clear();
      this.uses.set(text, uses);
      return undefined;
    }
    this.uses.delete(text);
    const name = `parley_${this.generation}_${this.names.size}`;
    this.names.set(text, name);
    return name;
  }

  /** Statements prepared so far went stale: new names for all, and connections retired. */
  reset(): void {
    this.generation += 1;
    this.names.clear();
    this.uses.clear();
  }
}

/** What Kysely's PostgresDialect needs of a pool. */
export interface KyselyPool {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
}

/** `pool` for Kysely, its connections naming the statements `names` picks. */
export function withPreparedStatements(pool: pg.Pool, names: StatementNames): KyselyPool {
  const generations = new WeakMap<pg.PoolClient, number>();
  return {
    async connect() {
      const client = await pool.connect();
      if (!generations.has(client)) {
        generations.set(client, names.generation);
        nameStatements(client, names, () => generations.get(client) === names.generation);
      }
      // The pool gives each checkout its own release: a connection of an older generation is closed.
      const release = client.release;
      client.release = (destroy?: boolean | Error) => release(destroy ?? (generations.get(client) !== names.generation || undefined));
      return client;
    },
    end: () => pool.end(),
  };
}

function nameStatements(client: pg.PoolClient, names: StatementNames, current: () => boolean): void {
  const query: Query = client.query.bind(client);
  let inTransaction = false;
  const run = async (text: string, values: unknown[] | undefined) => {
    const name = current() ? names.nameOf(text) : undefined;
    if (name === undefined) return query(text, values);
    try {
      return await query({ name, text, values });
    } catch (error) {
      if (!isStalePlanError(error)) throw error;
      names.reset();
      // Inside a transaction the error has aborted it: the caller's to handle, not ours.
      if (inTransaction) throw error;
      return query(text, values);
    }
  };
  (client as { query: Query }).query = (first: unknown, ...rest: unknown[]) => {
    if (typeof first !== "string") return query(first, ...rest);
    // Kysely's transaction control: "begin" or "start transaction …", then "commit" or "rollback"
    // ("rollback to savepoint …" stays inside the transaction).
    const head = first.slice(0, 9).toLowerCase();
    if (head.startsWith("begin") || head.startsWith("start")) inTransaction = true;
    else if (head === "commit" || head === "rollback") inTransaction = false;
    return run(first, rest[0] as unknown[] | undefined);
  };
}
