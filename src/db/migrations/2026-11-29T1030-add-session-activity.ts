import { sql, type Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * What the sessions list (GET /users/me/sessions) shows of each web session: when it was last
 * used (written at most every few minutes, not per request), and the IP address and User-Agent of
 * the browser that used it then. Sessions made before this know neither: their last use starts
 * as their creation.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  // Tests that make a database "older" by forgetting the migrations after one run this again.
  const sessions = (await db.introspection.getTables()).find((table) => table.name === "sessions");
  if (sessions?.columns.some((column) => column.name === "last_active_at")) return;
  await db.schema.alterTable("sessions").addColumn("last_active_at", d.bigint, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("sessions").addColumn("ip_address", "text").execute();
  await db.schema.alterTable("sessions").addColumn("user_agent", "text").execute();
  await sql`update sessions set last_active_at = created_at`.execute(db);
}
