import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { defined } from "../util/defined.js";

export const databaseIdentityStore = {
  /**
   * What names this database (multi-process mode runs on PostgreSQL only) from the server's side (its name and its oid), the same
   * for every process connected to it whatever host name their URLs use.
   */
  async name(q: Executor): Promise<string> {
    const { rows } = await sql<{
      identity: string;
    }>`select current_database() || ':' || oid::text as identity from pg_database where datname = current_database()`.execute(q);
    return defined(rows[0], "the current database's row").identity;
  },
};
