import { type User } from "../db/schema.js";
import { type Executor } from "../db/tx.js";

/** Zulip's cross-realm system bots (Notification Bot...): users of the realm `systemRealm` that send into other realms. */
export const systemBotStore = {
  async getByEmail(q: Executor, systemRealm: string, email: string): Promise<User | undefined> {
    return q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .where("realms.string_id", "=", systemRealm)
      .where("users.email", "=", email)
      .where("users.is_active", "=", 1)
      .executeTakeFirst();
  },

  async listByIds(q: Executor, systemRealm: string, ids: readonly number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .where("realms.string_id", "=", systemRealm)
      .where("users.id", "in", [...ids])
      .execute();
  },
};
