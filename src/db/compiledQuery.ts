import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from "kysely";
import type { Database } from "./schema.js";

/**
 * A hot query shape built and compiled by Kysely once per database, then run with new parameter
 * values. Kysely otherwise builds, freezes and compiles the whole operation tree of every statement
 * on every call (a send ran ~10 of them); here a call only fills the parameter list and runs
 * `CompiledQuery.raw(sql, parameters)` through Kysely's public `executeQuery`, so the driver (and
 * PostgreSQL's named prepared statements, keyed by the SQL text) see the same statement as before.
 *
 * `build` receives stand-ins for the parameters (`p.name`), which must only be passed as values:
 * the shape may not branch on them or transform them in JavaScript, and a list value is not a
 * parameter (PostgreSQL sends `in` lists as one array: db/pgDialect.ts). Constants written in the
 * builder stay in the compiled parameter list as they are.
 */
export function compiledQuery<P extends Record<string, unknown>, R>(build: (db: Kysely<Database>, p: P) => Compilable<R>): CompiledShape<P, R> {
  return new CompiledShape(build);
}

/** A parameter's stand-in while the shape is compiled. */
class Slot {
  constructor(readonly name: string) {}
}

interface Template {
  sql: string;
  /** Each compiled parameter: a Slot, filled from the call's values, or a constant of the shape. */
  parameters: readonly unknown[];
}

export class CompiledShape<P extends Record<string, unknown>, R> {
  /** Per database (its Kysely adapter, shared by its transactions): the dialect decides the text. */
  private readonly templates = new WeakMap<object, Template>();

  constructor(private readonly build: (db: Kysely<Database>, p: P) => Compilable<R>) {}

  async execute(q: Kysely<Database>, params: P): Promise<QueryResult<R>> {
    const { sql, parameters } = this.template(q);
    const values = parameters.map((v) => (v instanceof Slot ? params[v.name] : v));
    return q.executeQuery(CompiledQuery.raw(sql, values) as CompiledQuery<R>);
  }

  async rows(q: Kysely<Database>, params: P): Promise<R[]> {
    return (await this.execute(q, params)).rows;
  }

  async first(q: Kysely<Database>, params: P): Promise<R | undefined> {
    return (await this.execute(q, params)).rows[0];
  }

  private template(q: Kysely<Database>): Template {
    const adapter = q.getExecutor().adapter;
    let template = this.templates.get(adapter);
    if (!template) {
      const slots = new Proxy({} as P, { get: (_, name) => new Slot(String(name)) });
      const compiled = this.build(q, slots).compile();
      for (const value of compiled.parameters) {
        if (Array.isArray(value) && value.some((v) => v instanceof Slot)) throw new Error(`a list parameter in a compiled query: ${compiled.sql}`);
      }
      template = { sql: compiled.sql, parameters: compiled.parameters };
      this.templates.set(adapter, template);
    }
    return template;
  }
}
