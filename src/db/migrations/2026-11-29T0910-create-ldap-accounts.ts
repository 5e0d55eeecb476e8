import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Which directory entry (its DN, lower-cased) an account signed in as through LDAP
 * (src/auth/ldap/accounts.ts): the account is found again after the directory changed the
 * person's email address, whose new address is then copied to Parley.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable("ldap_accounts")
    .ifNotExists()
    .addColumn("user_id", d.bigint, (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull())
    .addColumn("dn", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("ldap_accounts_realm_dn").ifNotExists().on("ldap_accounts").columns(["realm_id", "dn"]).unique().execute();
}
