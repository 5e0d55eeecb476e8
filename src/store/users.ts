import { sql } from "kysely";
import type { Dialect } from "../db/dialect.js";
import { noteAuthChange } from "../db/authCache.js";
import type { Executor } from "../db/tx.js";
import { lowered } from "./caseless.js";
import type { NewUser, Realm, Unlinked, User, UserUpdate } from "../db/schema.js";
import { type PrefixedRealm, prefixedRealmColumns, splitPrefixedRealm } from "./realms.js";

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

  /** Users of a realm whose API email is one of `emails`, case-insensitively. */
  async listByApiEmails(q: Executor, realmId: number, emails: readonly string[]): Promise<User[]> {
    if (emails.length === 0) return [];
    const wanted = [...new Set(emails.map((e) => e.trim()))];
    return q
      .selectFrom("users")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where((eb) => eb(eb.fn("lower", ["email"]), "in", wanted.map(lowered)))
      .execute();
  },

  /** Active accounts of a realm with their roles (audiences of events that depend on the role). */
  async listActiveRoles(q: Executor, realmId: number): Promise<Array<{ id: number; role: number }>> {
    return q.selectFrom("users").select(["id", "role"]).where("realm_id", "=", realmId).where("is_active", "=", 1).execute();
  },

  /** Users (any realm) whose API email or delivery email is `email`, case-insensitively. */
  async listByApiEmail(q: Executor, email: string): Promise<User[]> {
    const lower = lowered(email);
    return q
      .selectFrom("users")
      .selectAll()
      .where((eb) => eb.or([eb(sql`lower(email)`, "=", lower), eb(sql`lower(delivery_email)`, "=", lower)]))
      .execute();
  },

  /**
   * listByApiEmail with each user's realm, in one statement (API authentication runs it on every
   * request).
   */
  async listByApiEmailWithRealm(q: Executor, email: string): Promise<Array<{ user: User; realm: Realm }>> {
    const lower = lowered(email);
    const rows = await q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .select(prefixedRealmColumns)
      .where((eb) => eb.or([eb(sql`lower(users.email)`, "=", lower), eb(sql`lower(users.delivery_email)`, "=", lower)]))
      .execute();
    return rows.map(userAndRealm);
  },

  /** The user of an unexpired web session, with their realm and the session's CSRF token, in one statement. */
  async getWithRealmBySession(
    q: Executor,
    sessionKey: string,
    now: number,
  ): Promise<{ user: User; realm: Realm; csrfToken: string; expiresAt: number; lastActiveAt: number } | undefined> {
    const row = await q
      .selectFrom("sessions")
      .innerJoin("users", "users.id", "sessions.user_id")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .selectAll("users")
      .select(prefixedRealmColumns)
      .select([
        "sessions.csrf_token as session__csrf_token",
        "sessions.expires_at as session__expires_at",
        "sessions.last_active_at as session__last_active_at",
      ])
      .where("sessions.session_key", "=", sessionKey)
      .where("sessions.expires_at", ">", now)
      .executeTakeFirst();
    if (!row) return undefined;
    const { session__csrf_token: csrfToken, session__expires_at: expiresAt, session__last_active_at: lastActiveAt, ...rest } = row;
    return { ...userAndRealm(rest), csrfToken, expiresAt, lastActiveAt };
  },

  async getByApiKey(q: Executor, apiKey: string): Promise<User | undefined> {
    return q.selectFrom("users").selectAll().where("api_key", "=", apiKey).executeTakeFirst();
  },

  /** Case-insensitive lookup by email (API or delivery) within a realm. */
  async getByEmail(q: Executor, realmId: number, email: string): Promise<User | undefined> {
    return (await userStore.listByEmailInRealm(q, realmId, email))[0];
  },

  async listInRealm(q: Executor, realmId: number): Promise<User[]> {
    return q.selectFrom("users").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
  },

  /**
   * Ids of the realm's active human users with `role`, locked until the transaction ends, so two
   * concurrent demotions cannot both see another owner left.
   */
  async lockActiveWithRole(q: Executor, dialect: Dialect, realmId: number, role: number): Promise<number[]> {
    const rows = await dialect
      .forUpdate(q.selectFrom("users").select("id").where("realm_id", "=", realmId).where("role", "=", role).where("is_active", "=", 1).where("is_bot", "=", 0))
      .execute();
    return rows.map((r) => r.id);
  },

  /** The user comes back without its personal recipient, which the caller links. */
  async insert(q: Executor, row: Omit<NewUser, "recipient_id">): Promise<Unlinked<User>> {
    return { ...(await q.insertInto("users").values(row).returningAll().executeTakeFirstOrThrow()), recipient_id: null };
  },

  /** Replaces the password hash only if it is still `current` (a concurrent password change wins). */
  async replacePasswordHash(q: Executor, id: number, current: string, next: string): Promise<void> {
    await q.updateTable("users").set({ password_hash: next }).where("id", "=", id).where("password_hash", "=", current).execute();
    noteAuthChange(q, { userId: id });
  },

  async update(q: Executor, id: number, changes: UserUpdate): Promise<void> {
    await q.updateTable("users").set(changes).where("id", "=", id).execute();
    noteAuthChange(q, { userId: id });
  },
  /** Ids of the active accounts (humans and bots) of a realm: the audience of realm-wide events. */
  async listActiveIds(q: Executor, realmId: number): Promise<number[]> {
    const rows = await q.selectFrom("users").select("id").where("realm_id", "=", realmId).where("is_active", "=", 1).execute();
    return rows.map((r) => r.id);
  },

  /** Active human accounts of a realm (what a user limit counts; bots do not). */
  async countActiveHumansInRealm(q: Executor, realmId: number): Promise<number> {
    const row = await q
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("realm_id", "=", realmId)
      .where("is_active", "=", 1)
      .where("is_bot", "=", 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async countActiveInRealm(q: Executor, realmId: number): Promise<number> {
    const row = await q
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("realm_id", "=", realmId)
      .where("is_active", "=", 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Active human administrators and owners of a realm. */
  async listActiveAdminIds(q: Executor, realmId: number): Promise<number[]> {
    const rows = await q
      .selectFrom("users")
      .select("id")
      .where("realm_id", "=", realmId)
      .where("is_active", "=", 1)
      .where("is_bot", "=", 0)
      .where("role", "<=", 200)
      .execute();
    return rows.map((r) => r.id);
  },

  /** Whether an active account of the realm already has this full name (any case). */
  async activeFullNameTaken(q: Executor, realmId: number, fullName: string): Promise<boolean> {
    const row = await q
      .selectFrom("users")
      .select("id")
      .where("realm_id", "=", realmId)
      .where("is_active", "=", 1)
      .where((eb) => eb(eb.fn("lower", ["full_name"]), "=", lowered(fullName)))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  async listActiveBotsOwnedBy(q: Executor, ownerId: number): Promise<User[]> {
    return q.selectFrom("users").selectAll().where("bot_owner_id", "=", ownerId).where("is_bot", "=", 1).where("is_active", "=", 1).orderBy("id").execute();
  },

  /** Marks an account active or not, with its subscriptions; deactivation also ends its web sessions. */
  async setActive(q: Executor, id: number, active: boolean): Promise<void> {
    const flag = active ? 1 : 0;
    await q.updateTable("users").set({ is_active: flag }).where("id", "=", id).execute();
    await q.updateTable("subscriptions").set({ is_user_active: flag }).where("user_id", "=", id).execute();
    if (!active) await q.deleteFrom("sessions").where("user_id", "=", id).execute();
    // A deactivated user's credentials all die, so do the event queues they opened (events/queues.ts).
    noteAuthChange(q, active ? { userId: id } : { userId: id, cutOff: true });
  },

  /** Named groups (system groups included) the user is a direct member of. */
  async listDirectNamedGroupIds(q: Executor, userId: number): Promise<number[]> {
    const rows = await q
      .selectFrom("user_group_members")
      .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
      .select("user_groups.id")
      .where("user_group_members.user_id", "=", userId)
      .where("user_groups.named", "=", 1)
      .orderBy("user_groups.id")
      .execute();
    return rows.map((r) => r.id);
  },

  /** The newest message the user received, -1 if none (Zulip's max_message_id). */
  async maxMessageIdForUser(q: Executor, userId: number): Promise<number> {
    const row = await q
      .selectFrom("user_messages")
      .select((eb) => eb.fn.max("message_id").as("max_id"))
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return row?.max_id == null ? -1 : Number(row.max_id);
  },
  /** Users of a realm whose API email or delivery email is `email`, case-insensitively, by id. */
  async listByEmailInRealm(q: Executor, realmId: number, email: string): Promise<User[]> {
    const lower = lowered(email);
    return q
      .selectFrom("users")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where((eb) => eb.or([eb(sql`lower(email)`, "=", lower), eb(sql`lower(delivery_email)`, "=", lower)]))
      .orderBy("id")
      .execute();
  },
};

function userAndRealm(row: User & PrefixedRealm): { user: User; realm: Realm } {
  const { realm, rest } = splitPrefixedRealm(row);
  return { user: rest, realm };
}
