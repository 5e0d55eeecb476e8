import type { Insertable, Selectable } from "kysely";
import type { SessionsTable } from "../db/schema.js";
import { noteAuthChange } from "../db/authCache.js";
import type { Executor } from "../db/tx.js";

export type Session = Selectable<SessionsTable>;

/** Web sessions: the `sessionid` cookie's value is the key. */
export const sessionStore = {
  async insert(q: Executor, row: Insertable<SessionsTable>): Promise<void> {
    await q.insertInto("sessions").values(row).execute();
  },

  async getUnexpired(q: Executor, key: string, now: number): Promise<Session | undefined> {
    return q.selectFrom("sessions").selectAll().where("session_key", "=", key).where("expires_at", ">", now).executeTakeFirst();
  },

  async delete(q: Executor, key: string): Promise<void> {
    await q.deleteFrom("sessions").where("session_key", "=", key).execute();
    noteAuthChange(q, { sessionKey: key });
  },

  /** Ends every web session of the user (a password reset). */
  async deleteForUser(q: Executor, userId: number): Promise<void> {
    await q.deleteFrom("sessions").where("user_id", "=", userId).execute();
    noteAuthChange(q, { userId });
  },
};
