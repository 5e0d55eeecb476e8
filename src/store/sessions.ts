import { createHash } from "node:crypto";
import type { Insertable, Selectable } from "kysely";
import type { SessionsTable } from "../db/schema.js";
import { noteAuthChange } from "../db/authCache.js";
import type { Executor } from "../db/tx.js";

export type Session = Selectable<SessionsTable>;

/**
 * A session's public name (GET /users/me/sessions, the event queues it registered): derived from
 * the cookie's value by a one-way hash, so it names the session without being able to sign in,
 * and needs no column of its own. 22 characters of base64url: 132 bits.
 */
export function sessionIdOf(sessionKey: string): string {
  return createHash("sha256").update(`parley-session-id\0${sessionKey}`).digest("base64url").slice(0, 22);
}

/** Web sessions: the `sessionid` cookie's value is the key. */
export const sessionStore = {
  async insert(q: Executor, row: Insertable<SessionsTable>): Promise<void> {
    await q.insertInto("sessions").values(row).execute();
  },

  async getUnexpired(q: Executor, key: string, now: number): Promise<Session | undefined> {
    return q.selectFrom("sessions").selectAll().where("session_key", "=", key).where("expires_at", ">", now).executeTakeFirst();
  },

  /** The user's sessions that have not expired, the most recently used first. */
  async listUnexpiredForUser(q: Executor, userId: number, now: number): Promise<Session[]> {
    return q
      .selectFrom("sessions")
      .selectAll()
      .where("user_id", "=", userId)
      .where("expires_at", ">", now)
      .orderBy("last_active_at", "desc")
      .orderBy("created_at", "desc")
      .execute();
  },

  /**
   * Records a use of the session, unless one was recorded since `staleBefore` (so a busy session
   * writes once per period, and two processes that both noticed write once). Authentication does
   * not read these columns: no cache entry to drop.
   */
  async noteActivity(q: Executor, key: string, now: number, staleBefore: number, seen: { ip: string | null; userAgent: string | null }): Promise<void> {
    await q
      .updateTable("sessions")
      .set({ last_active_at: now, ip_address: seen.ip, user_agent: seen.userAgent })
      .where("session_key", "=", key)
      .where("last_active_at", "<", staleBefore)
      .execute();
  },

  async delete(q: Executor, key: string): Promise<void> {
    await q.deleteFrom("sessions").where("session_key", "=", key).execute();
    noteAuthChange(q, { endedSessions: [sessionIdOf(key)] });
  },

  /**
   * Ends every web session of the realm's users (the organization was deactivated). The caller
   * notes the realm's auth change, which drops their cache entries everywhere; the event queues
   * they registered stay until the deactivation event is in them (events/queues.ts
   * deleteRealmQueues), so that a parked poll still gets it.
   */
  async deleteForRealm(q: Executor, realmId: number): Promise<number> {
    const result = await q
      .deleteFrom("sessions")
      .where("user_id", "in", (eb) => eb.selectFrom("users").select("users.id").where("users.realm_id", "=", realmId))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /**
   * Ends the user's sessions, all of them or all but the one named `exceptId` (a password change
   * keeps the session it was made from); returns how many ended. Their cache entries and the event queues
   * they registered go at once, in every process.
   */
  async deleteForUser(q: Executor, userId: number, exceptId?: string): Promise<number> {
    const keys = (await q.selectFrom("sessions").select("session_key").where("user_id", "=", userId).execute())
      .map((row) => row.session_key)
      .filter((key) => exceptId === undefined || sessionIdOf(key) !== exceptId);
    if (keys.length === 0) return 0;
    await q.deleteFrom("sessions").where("session_key", "in", keys).execute();
    noteAuthChange(q, { endedSessions: keys.map(sessionIdOf) });
    return keys.length;
  },
};
