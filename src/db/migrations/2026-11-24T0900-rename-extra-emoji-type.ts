import type { Kysely } from "kysely";

/**
 * Our API spec names the built-in extra emoji's type "service_extra_emoji" (Zulip's is
 * "zulip_extra_emoji"); stored reactions and statuses take the spec's name.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ["reactions", "user_statuses"]) {
    await db.updateTable(table).set({ reaction_type: "service_extra_emoji" }).where("reaction_type", "=", "zulip_extra_emoji").execute();
  }
}
