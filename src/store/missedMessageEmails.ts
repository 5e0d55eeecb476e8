import type { Selectable } from "kysely";
import type { MissedMessageEmailsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type MissedMessageEmail = Selectable<MissedMessageEmailsTable>;

/**
 * `scheduled_at` of a row held back because its user was on Zulip when its batch came due: it
 * waits for the user to go idle (actions/receiverIdle.ts), and is no batch's until then.
 */
const HELD = 0;

export const missedMessageEmailStore = {
  /** Of `userIds`, those with messages waiting for a batch (held rows aside). */
  async usersWithPending(q: Executor, userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await q
      .selectFrom("missed_message_emails")
      .select("user_id")
      .distinct()
      .where("user_id", "in", [...userIds])
      .where("scheduled_at", "!=", HELD)
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

  /** The user's rows waiting for a batch (held rows aside). */
  async listForUser(q: Executor, userId: number): Promise<MissedMessageEmail[]> {
    return q.selectFrom("missed_message_emails").selectAll().where("user_id", "=", userId).where("scheduled_at", "!=", HELD).orderBy("message_id").execute();
  },

  /** Holds these rows back until the user goes idle. */
  async hold(q: Executor, userId: number, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await q
      .updateTable("missed_message_emails")
      .set({ scheduled_at: HELD })
      .where("user_id", "=", userId)
      .where("id", "in", [...ids])
      .execute();
  },

  /**
   * The user went idle: held rows of `messageIds` wait for a batch again (scheduled `now`); the
   * user's other held rows are dropped (their messages reached a client). Returns how many wait.
   */
  async releaseHeld(q: Executor, userId: number, messageIds: readonly number[], now: number): Promise<number> {
    let released = 0;
    if (messageIds.length > 0) {
      const result = await q
        .updateTable("missed_message_emails")
        .set({ scheduled_at: now })
        .where("user_id", "=", userId)
        .where("scheduled_at", "=", HELD)
        .where("message_id", "in", [...messageIds])
        .executeTakeFirst();
      released = Number(result.numUpdatedRows);
    }
    await missedMessageEmailStore.dropHeld(q, userId);
    return released;
  },

  async hasHeld(q: Executor, userId: number): Promise<boolean> {
    const row = await q
      .selectFrom("missed_message_emails")
      .select("id")
      .where("user_id", "=", userId)
      .where("scheduled_at", "=", HELD)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Drops the user's held rows (their messages reached a client). */
  async dropHeld(q: Executor, userId: number): Promise<void> {
    await q.deleteFrom("missed_message_emails").where("user_id", "=", userId).where("scheduled_at", "=", HELD).execute();
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
