import { sql, type Insertable, type Selectable } from "kysely";
import type { InvitationsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { lowered } from "./caseless.js";

export type Invitation = Selectable<InvitationsTable>;

/** invitations.status */
export const InvitationStatus = { OPEN: 0, USED: 1, REVOKED: 2 } as const;

/** Email invitations and reusable invitation links (Zulip's PreregistrationUser and MultiuseInvite). */
export const invitationStore = {
  async insert(q: Executor, row: Insertable<InvitationsTable>): Promise<Invitation> {
    return q.insertInto("invitations").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async getById(q: Executor, realmId: number, id: number, isMultiuse: boolean): Promise<Invitation | undefined> {
    return q
      .selectFrom("invitations")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("id", "=", id)
      .where("is_multiuse", "=", isMultiuse ? 1 : 0)
      .executeTakeFirst();
  },

  async getByKey(q: Executor, key: string): Promise<Invitation | undefined> {
    return q.selectFrom("invitations").selectAll().where("confirmation_key", "=", key).executeTakeFirst();
  },

  /** Open, unexpired invitations of the realm (of one referrer when `referredBy` is set), email ones first. */
  async listValid(q: Executor, realmId: number, now: number, referredBy?: number): Promise<Invitation[]> {
    let query = q
      .selectFrom("invitations")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("status", "=", InvitationStatus.OPEN)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">=", now)]));
    if (referredBy !== undefined) query = query.where("referred_by", "=", referredBy);
    return query.orderBy("is_multiuse").orderBy("id").execute();
  },

  /** Sets the status of an open invitation; false if it was not open any more (a concurrent use or revocation). */
  async closeOpen(q: Executor, id: number, status: number, createdUserId: number | null = null): Promise<boolean> {
    const result = await q
      .updateTable("invitations")
      .set({ status, created_user_id: createdUserId })
      .where("id", "=", id)
      .where("status", "=", InvitationStatus.OPEN)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async revoke(q: Executor, id: number): Promise<void> {
    await q.updateTable("invitations").set({ status: InvitationStatus.REVOKED }).where("id", "=", id).execute();
  },

  /** Makes the referrer's open, unexpired invitations expired at `expiredAt`; returns how many. */
  async expireOpenByReferrer(q: Executor, referredBy: number, expiredAt: number): Promise<number> {
    const result = await q
      .updateTable("invitations")
      .set({ expires_at: expiredAt })
      .where("referred_by", "=", referredBy)
      .where("status", "=", InvitationStatus.OPEN)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", expiredAt)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },

  /** Revokes the realm's open email invitations of `email` (any case); returns their referrers. */
  async revokeOpenForEmail(q: Executor, realmId: number, email: string): Promise<number[]> {
    const rows = await q
      .updateTable("invitations")
      .set({ status: InvitationStatus.REVOKED })
      .where("realm_id", "=", realmId)
      .where("is_multiuse", "=", 0)
      .where("status", "=", InvitationStatus.OPEN)
      .where(sql`lower(email)`, "=", lowered(email))
      .returning("referred_by")
      .execute();
    return rows.map((r) => r.referred_by);
  },
};
