import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * The SAML assertions this server has accepted (src/auth/saml.ts), by a digest of their issuer
 * and ID, until they expire: an assertion is a bearer token, and one that came back a second
 * time (a replay) is refused, by whichever process receives it.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable("saml_assertions")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("expires_at", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("saml_assertions_expires").ifNotExists().on("saml_assertions").columns(["expires_at"]).execute();
}
