import type { Selectable } from "kysely";
import type { MissedMessageEmailsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type MissedMessageEmail = Selectable<MissedMessageEmailsTable>;

export const missedMessageEmailStore = {
  /** Of `userIds`, those with messages already waiting. */
  async usersWithPending(q: Executor, userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await q
      .selectFrom("missed_message_emails")
      .select("user_id")
      .distinct()
      .where("user_id", "in", [...userIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },

  async addMany(q: Executor, rows: ReadonlyArray<{ user_id: number; message_id: number; trigger: string; scheduled_at: number }>): Promise<void> {
    for (let i = 0; i < rows.length; i += 500) {
      await q
        .insertInto("missed_message_emails")
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
        .execute();
    }
  },

  async listForUser(q: Executor, userId: number): Promise<MissedMessageEmail[]> {
    return q.selectFrom("missed_message_emails").selectAll().where("user_id", "=", userId).orderBy("message_id").execute();
  },

  async deleteForUser(q: Executor, userId: number, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await q
      .deleteFrom("missed_message_emails")
      .where("user_id", "=", userId)
      .where("id", "in", [...ids])
      .execute();
  },
};
