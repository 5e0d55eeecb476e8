import type { Insertable, Selectable } from "kysely";
import type { ConfirmationsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type Confirmation = Selectable<ConfirmationsTable>;

/** One-time confirmation links (Zulip's Confirmation): email changes, invitations, resets. */
export const confirmationStore = {
  async insert(q: Executor, row: Insertable<ConfirmationsTable>): Promise<Confirmation> {
    return q.insertInto("confirmations").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async getByKey(q: Executor, kind: string, key: string): Promise<Confirmation | undefined> {
    return q.selectFrom("confirmations").selectAll().where("kind", "=", kind).where("confirmation_key", "=", key).executeTakeFirst();
  },

  /** Expires every unused, unexpired confirmation of `kind` for the user (a newer one replaces them). */
  async expireOpenForUser(q: Executor, userId: number, kind: string, now: number): Promise<void> {
    await q
      .updateTable("confirmations")
      .set({ expires_at: now })
      .where("user_id", "=", userId)
      .where("kind", "=", kind)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .execute();
  },

  /** Marks the confirmation used unless it already was; true when this call used it. */
  async markUsed(q: Executor, id: number, now: number): Promise<boolean> {
    const result = await q.updateTable("confirmations").set({ used_at: now }).where("id", "=", id).where("used_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};
