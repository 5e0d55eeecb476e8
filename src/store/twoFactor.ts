import type { Selectable } from "kysely";
import type { TwoFactorLoginsTable, UserTwoFactorTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type TwoFactorDevice = Selectable<UserTwoFactorTable>;
export type PendingTwoFactorLogin = Selectable<TwoFactorLoginsTable>;

/** Users' TOTP devices (src/auth/twoFactor.ts). Every change that must happen once is a compare-and-set. */
export const twoFactorStore = {
  async get(q: Executor, userId: number): Promise<TwoFactorDevice | undefined> {
    return q.selectFrom("user_two_factor").selectAll().where("user_id", "=", userId).executeTakeFirst();
  },

  /** Starts (or starts again) setting up a device; false when the user already has a confirmed one. */
  async startSetup(q: Executor, userId: number, secret: string): Promise<boolean> {
    await q.deleteFrom("user_two_factor").where("user_id", "=", userId).where("confirmed_at", "is", null).execute();
    const taken = await q.selectFrom("user_two_factor").select("user_id").where("user_id", "=", userId).executeTakeFirst();
    if (taken) return false;
    await q.insertInto("user_two_factor").values({ user_id: userId, secret }).execute();
    return true;
  },

  /** Confirms the device set up with `secret` (not another set up since), accepting the code of `step`. */
  async confirm(q: Executor, userId: number, secret: string, step: number, backupCodes: string, now: number): Promise<boolean> {
    const result = await q
      .updateTable("user_two_factor")
      .set({ confirmed_at: now, last_step: step, backup_codes: backupCodes })
      .where("user_id", "=", userId)
      .where("secret", "=", secret)
      .where("confirmed_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Records the step of an accepted code; false when that step (or a later one) was used already. */
  async useStep(q: Executor, userId: number, step: number): Promise<boolean> {
    const result = await q
      .updateTable("user_two_factor")
      .set({ last_step: step })
      .where("user_id", "=", userId)
      .where("confirmed_at", "is not", null)
      .where("last_step", "<", step)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Replaces the backup codes if they are still `before` (a code is used once, even by two requests at once). */
  async replaceBackupCodes(q: Executor, userId: number, before: string, after: string): Promise<boolean> {
    const result = await q
      .updateTable("user_two_factor")
      .set({ backup_codes: after })
      .where("user_id", "=", userId)
      .where("backup_codes", "=", before)
      .where("confirmed_at", "is not", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  async delete(q: Executor, userId: number): Promise<void> {
    await q.deleteFrom("user_two_factor").where("user_id", "=", userId).execute();
  },

  async insertPendingLogin(q: Executor, row: PendingTwoFactorLogin, now: number): Promise<void> {
    await q.deleteFrom("two_factor_logins").where("expires_at", "<=", now).execute();
    await q.insertInto("two_factor_logins").values(row).execute();
  },

  async getPendingLogin(q: Executor, id: string, now: number): Promise<PendingTwoFactorLogin | undefined> {
    return q.selectFrom("two_factor_logins").selectAll().where("id", "=", id).where("expires_at", ">", now).executeTakeFirst();
  },

  /** Ends the pending login; false if it was ended already (by a request that came first). */
  async takePendingLogin(q: Executor, id: string): Promise<boolean> {
    const result = await q.deleteFrom("two_factor_logins").where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  },
};
