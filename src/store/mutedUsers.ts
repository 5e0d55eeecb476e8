import type { Executor } from "../db/tx.js";

/** Users a user muted (Zulip's MutedUser). */
export const mutedUserStore = {
  /** The user's muted users, as POST /register and the muted_users event list them. */
  async list(q: Executor, userId: number): Promise<Array<{ id: number; timestamp: number }>> {
    const rows = await q.selectFrom("muted_users").select(["muted_user_id", "date_muted"]).where("user_id", "=", userId).orderBy("muted_user_id").execute();
    return rows.map((r) => ({ id: r.muted_user_id, timestamp: r.date_muted }));
  },

  async exists(q: Executor, userId: number, mutedUserId: number): Promise<boolean> {
    const row = await q.selectFrom("muted_users").select("user_id").where("user_id", "=", userId).where("muted_user_id", "=", mutedUserId).executeTakeFirst();
    return row !== undefined;
  },

  /** Inserts the mute; false when it exists already (the primary key decides, race-free). */
  async insertIfAbsent(q: Executor, userId: number, mutedUserId: number, date: number): Promise<boolean> {
    const row = await q
      .insertInto("muted_users")
      .values({ user_id: userId, muted_user_id: mutedUserId, date_muted: date })
      .onConflict((oc) => oc.columns(["user_id", "muted_user_id"]).doNothing())
      .returning("user_id")
      .executeTakeFirst();
    return row !== undefined;
  },

  async delete(q: Executor, userId: number, mutedUserId: number): Promise<boolean> {
    const result = await q.deleteFrom("muted_users").where("user_id", "=", userId).where("muted_user_id", "=", mutedUserId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
