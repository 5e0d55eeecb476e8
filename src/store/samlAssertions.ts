import type { Executor } from "../db/tx.js";

/** SAML assertions already accepted, so that none is accepted twice (src/auth/saml.ts). */
export const samlAssertionStore = {
  /** Records the assertion; false when it was recorded before and has not expired (a replay). */
  async remember(q: Executor, id: string, expiresAt: number, now: number): Promise<boolean> {
    await q.deleteFrom("saml_assertions").where("expires_at", "<=", now).execute();
    const inserted = await q
      .insertInto("saml_assertions")
      .values({ id, expires_at: expiresAt })
      .onConflict((oc) => oc.column("id").doNothing())
      .returning("id")
      .executeTakeFirst();
    return inserted !== undefined;
  },
};
