import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import { lowered } from "./caseless.js";

/** The lookups message rendering needs for the names a message refers to (one query each). */
export const renderLookupStore = {
  async activeUsers(q: Executor, realmId: number, ids: readonly number[], names: readonly string[]) {
    if (ids.length === 0 && names.length === 0) return [];
    return q
      .selectFrom("users")
      .select(["id", "full_name", "email"])
      .where("realm_id", "=", realmId)
      .where("is_active", "=", 1)
      .where((eb) =>
        eb.or([...(ids.length > 0 ? [eb("id", "in", ids)] : []), ...(names.length > 0 ? [eb(sql<string>`lower(full_name)`, "in", names.map(lowered))] : [])]),
      )
      .execute();
  },

  async namedGroups(q: Executor, realmId: number, names: readonly string[]) {
    if (names.length === 0) return [];
    return q
      .selectFrom("user_groups")
      .select(["id", "name"])
      .where("realm_id", "=", realmId)
      .where("named", "=", 1)
      .where("deactivated", "=", 0)
      .where(sql<string>`lower(name)`, "in", names.map(lowered))
      .execute();
  },

  async streams(q: Executor, realmId: number, names: readonly string[]) {
    if (names.length === 0) return [];
    return q
      .selectFrom("streams")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where(sql<string>`lower(name)`, "in", names.map(lowered))
      .execute();
  },

  async realmEmoji(q: Executor, realmId: number, names: readonly string[]) {
    if (names.length === 0) return [];
    return q.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("name", "in", names).execute();
  },
};
