import { noteAuthChange } from "../db/authCache.js";
import type { Dialect } from "../db/dialect.js";
import type { Executor } from "../db/tx.js";
import type { Realm, RealmsTable } from "../db/schema.js";
import type { Insertable, Updateable } from "kysely";

/**
 * Every realm column, each as `realm__<column>`: for a query that selects a realm together with
 * the rows of another table (users), whose column names (`id`, `name`...) would clash.
 * splitPrefixedRealm rebuilds the realm; it does not compile when this list misses a column.
 */
export const prefixedRealmColumns = [
  "realms.id as realm__id",
  "realms.string_id as realm__string_id",
  "realms.name as realm__name",
  "realms.description as realm__description",
  "realms.date_created as realm__date_created",
  "realms.deactivated as realm__deactivated",
  "realms.icon_source as realm__icon_source",
  "realms.icon_version as realm__icon_version",
  "realms.message_retention_days as realm__message_retention_days",
  "realms.settings as realm__settings",
  "realms.user_settings_defaults as realm__user_settings_defaults",
  "realms.max_users as realm__max_users",
  "realms.upload_quota_mib as realm__upload_quota_mib",
] as const;

const PREFIX = "realm__";
export type PrefixedRealm = { [K in keyof Realm & string as `realm__${K}`]: Realm[K] };

/** A row selected with prefixedRealmColumns, split into the realm and the rest of the row. */
export function splitPrefixedRealm<R extends PrefixedRealm>(row: R): { realm: Realm; rest: Omit<R, keyof PrefixedRealm> } {
  const realm: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(PREFIX)) realm[key.slice(PREFIX.length)] = value;
    else rest[key] = value;
  }
  return { realm: realm as Realm, rest: rest as Omit<R, keyof PrefixedRealm> };
}

export const realmStore = {
  async getById(q: Executor, id: number): Promise<Realm | undefined> {
    return q.selectFrom("realms").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async getByStringId(q: Executor, stringId: string): Promise<Realm | undefined> {
    return q.selectFrom("realms").selectAll().where("string_id", "=", stringId).executeTakeFirst();
  },

  async list(q: Executor): Promise<Realm[]> {
    return q.selectFrom("realms").selectAll().orderBy("id").execute();
  },

  async insert(q: Executor, row: Insertable<RealmsTable>): Promise<Realm> {
    return q.insertInto("realms").values(row).returningAll().executeTakeFirstOrThrow();
  },

  /**
   * The realm's limits, its row locked to the end of the transaction (PostgreSQL): two accounts
   * created at once in a realm with a user limit are counted one after the other.
   */
  async lockLimits(q: Executor, dialect: Dialect, id: number): Promise<{ max_users: number | null; upload_quota_mib: number | null } | undefined> {
    return dialect.forUpdate(q.selectFrom("realms").select(["max_users", "upload_quota_mib"]).where("id", "=", id)).executeTakeFirst();
  },

  async update(q: Executor, id: number, changes: Updateable<RealmsTable>): Promise<void> {
    await q.updateTable("realms").set(changes).where("id", "=", id).execute();
    noteAuthChange(q, { realmId: id });
  },
};
