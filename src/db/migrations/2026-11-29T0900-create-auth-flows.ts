import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Sign-ins through an identity provider in progress (src/auth/flows.ts): what the browser set out
 * to do (web, mobile or desktop app, sign-up, where to go after), the PKCE verifier and nonce, until
 * the provider sends the browser back. Kept in the database so any process may take the answer,
 * and taken once.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable("auth_flows")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("backend", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("expires_at", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_flows_expires").ifNotExists().on("auth_flows").columns(["expires_at"]).execute();
}
