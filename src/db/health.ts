import type { Logger } from "pino";

/**
 * Outages of the database connection (PostgreSQL restarted, network cut): logged once when the
 * first statement or connection fails, and once when a statement succeeds again, instead of one
 * error per request and job pass. Nothing else changes: each request gets a new connection from
 * the pool, so the server recovers by itself when the database is back.
 */
export class DatabaseHealth {
  private downSince: number | null = null;

  constructor(private readonly log: Logger | undefined) {}

  get available(): boolean {
    return this.downSince === null;
  }

  /** Records `error` if it is a lost or refused connection; true if so (it has been logged). */
  failed(error: unknown): boolean {
    if (!isConnectionError(error)) return false;
    if (this.downSince === null) {
      this.downSince = Date.now();
      this.log?.error({ err: errorText(error) }, "Lost the connection to the database; retrying with each request until it is back");
    }
    return true;
  }

  /** A statement succeeded: ends an outage. */
  succeeded(): void {
    if (this.downSince === null) return;
    const seconds = Math.round((Date.now() - this.downSince) / 100) / 10;
    this.downSince = null;
    this.log?.warn({ outageSeconds: seconds }, "The database connection is back");
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * A connection that could not be made or was lost: socket errors, PostgreSQL's connection
 * exception class (08xxx) and shutdown codes (57P01-57P03), and pg's own connection messages.
 */
function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (CONNECTION_CODES.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code))) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|Connection refused/i.test(error.message);
}

export function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  return error instanceof Error ? error.message || String((error as { code?: unknown }).code ?? error.name) : String(error);
}
