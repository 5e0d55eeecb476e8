import { sql } from "kysely";
import type { Executor } from "../db/tx.js";
import type { NewUser, User, UserUpdate } from "../db/schema.js";

export const userStore = {
  async getById(q: Executor, id: number): Promise<User | undefined> {
    return q.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** The user with this id in this realm, active or not. */
  async getInRealm(q: Executor, realmId: number, id: number): Promise<User | undefined> {
    return q.selectFrom("users").selectAll().where("id", "=", id).where("realm_id", "=", realmId).executeTakeFirst();
  },

  async listByIds(q: Executor, realmId: number, ids: readonly number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return q.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("id", "in", ids).execute();
  },

  /** Users (any realm) whose API email or delivery email is `email`, case-insensitively. */
  async listByApiEmail(q: Executor, email: string): Promise<User[]> {
    const lower = email.toLowerCase();
    return q
      .selectFrom("users")
      .selectAll()
      .where((eb) => eb.or([eb(sql`lower(email)`, "=", lower), eb(sql`lower(delivery_email)`, "=", lower)]))
      .execute();
  },

  /** Case-insensitive lookup by email (API or delivery) within a realm. */
  async getByEmail(q: Executor, realmId: number, email: string): Promise<User | undefined> {
    const lower = email.toLowerCase();
    return q
      .selectFrom("users")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where((eb) => eb.or([eb(sql`lower(email)`, "=", lower), eb(sql`lower(delivery_email)`, "=", lower)]))
      .orderBy("id")
      .executeTakeFirst();
  },

  async listInRealm(q: Executor, realmId: number): Promise<User[]> {
    return q.selectFrom("users").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
  },

  async countActiveWithRole(q: Executor, realmId: number, role: number): Promise<number> {
    const row = await q
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("realm_id", "=", realmId)
      .where("role", "=", role)
      .where("is_active", "=", 1)
      .where("is_bot", "=", 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async insert(q: Executor, row: NewUser): Promise<User> {
    return q.insertInto("users").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async update(q: Executor, id: number, changes: UserUpdate): Promise<void> {
    await q.updateTable("users").set(changes).where("id", "=", id).execute();
  },
};
