import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Two-factor authentication (src/auth/twoFactor.ts): a user's TOTP device, and password logins
 * waiting for their second factor.
 *
 * `user_two_factor`: one row per user who set up (or is setting up) an authenticator app. `secret`
 * is the TOTP key encrypted with a key derived from the server secret (a database dump alone does
 * not reveal it); `confirmed_at` is null until a code from the app confirmed it; `last_step` is
 * the time step of the last accepted code (a code is accepted once, as django-otp's last_t);
 * `backup_codes` a JSON list of keyed hashes of the unused backup codes.
 *
 * `two_factor_logins`: a correct password of a user with a second factor, until the code comes:
 * `id` is the hash of the random token in the browser's cookie, so the row alone cannot finish it.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable("user_two_factor")
    .ifNotExists()
    .addColumn("user_id", d.bigint, (c) => c.primaryKey().references("users.id"))
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("confirmed_at", d.bigint)
    .addColumn("last_step", d.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("backup_codes", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema
    .createTable("two_factor_logins")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("next", "text", (c) => c.notNull())
    .addColumn("expires_at", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("two_factor_logins_expires").ifNotExists().on("two_factor_logins").columns(["expires_at"]).execute();
}
