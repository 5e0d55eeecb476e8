import type { CompiledQuery, DatabaseConnection, Dialect, QueryResult } from "kysely";

/** Told of each statement once it ran: its SQL, its duration, and whether it failed (and why). */
export type StatementObserver = (query: CompiledQuery, milliseconds: number, failed: boolean, error?: unknown) => void;

/**
 * `dialect` with every statement its connections run told to `observe`, as Kysely's `log` option
 * would tell it (the same statements, transactions' own included, and before the caller gets the
 * result or the error), with less: Kysely's wraps each statement in two async functions and builds
 * an event object per statement, ~9 % of what a send and its polls allocate (docs/benchmarks/notes.md).
 * Each connection's executeQuery is wrapped once, the first time the driver hands it out.
 */
export function observeStatements<D extends Dialect>(dialect: D, observe: StatementObserver): D {
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const observed = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      const connection = await acquire();
      if (!observed.has(connection)) {
        observed.add(connection);
        wrapConnection(connection, observe);
      }
      return connection;
    };
    return driver;
  };
  return dialect;
}

function wrapConnection(connection: DatabaseConnection, observe: StatementObserver): void {
  const executeQuery = connection.executeQuery.bind(connection);
  connection.executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    const started = performance.now();
    return executeQuery<R>(query).then(
      (result) => {
        observe(query, performance.now() - started, false);
        return result;
      },
      (error: unknown) => {
        observe(query, performance.now() - started, true, error);
        throw error;
      },
    );
  };
  const streamQuery = connection.streamQuery.bind(connection);
  connection.streamQuery = async function* <R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const started = performance.now();
    let failed = false;
    try {
      yield* streamQuery<R>(query, chunkSize);
    } catch (error) {
      failed = true;
      observe(query, performance.now() - started, true, error);
      throw error;
    } finally {
      // Also when the reader stopped early, as Kysely's log counts it.
      if (!failed) observe(query, performance.now() - started, false);
    }
  };
}
