import { type Kysely, sql } from "kysely";

/**
 * At most one active custom emoji per name in a realm (Zulip's
 * unique_realm_emoji_when_false_deactivated), so concurrent uploads cannot both take a name.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("realm_emoji_active_name")
    .on("realm_emoji")
    .columns(["realm_id", "name"])
    .unique()
    .where(sql.ref("deactivated"), "=", 0)
    .execute();
}
