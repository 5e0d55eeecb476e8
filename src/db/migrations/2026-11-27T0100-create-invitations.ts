import type { Kysely } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * Invitations to an organization (Zulip's PreregistrationUser for email invitations and
 * MultiuseInvite for reusable links, each with its Confirmation): one row each, told apart by
 * is_multiuse. `status`: 0 open, 1 used (email invitations only), 2 revoked. Channel and group
 * ids are JSON lists; expires_at is null for an invitation that never expires.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable("invitations"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("referred_by", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("is_multiuse", "integer", (c) => c.notNull())
    .addColumn("email", "text")
    .addColumn("confirmation_key", "text", (c) => c.notNull().unique())
    .addColumn("invited_as", "integer", (c) => c.notNull())
    .addColumn("include_realm_default_subscriptions", "integer", (c) => c.notNull())
    .addColumn("notify_referrer_on_join", "integer", (c) => c.notNull())
    .addColumn("stream_ids", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("group_ids", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("invited_at", d.bigint, (c) => c.notNull())
    .addColumn("expires_at", d.bigint)
    .addColumn("status", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_user_id", d.bigint, (c) => c.references("users.id"))
    .execute();
  await db.schema.createIndex("invitations_realm_status").on("invitations").columns(["realm_id", "status"]).execute();
}
