import type { Executor } from "../db/tx.js";

/** Which directory entry each account signed in as through LDAP (DNs lower-cased). */
export const ldapAccountStore = {
  async getUserIdByDn(q: Executor, realmId: number, dn: string): Promise<number | undefined> {
    const row = await q.selectFrom("ldap_accounts").select("user_id").where("realm_id", "=", realmId).where("dn", "=", dn.toLowerCase()).executeTakeFirst();
    return row?.user_id;
  },

  /** DN by user id, for the users given. */
  async listDns(q: Executor, userIds: readonly number[]): Promise<Map<number, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await q.selectFrom("ldap_accounts").select(["user_id", "dn"]).where("user_id", "in", userIds).execute();
    return new Map(rows.map((r) => [r.user_id, r.dn]));
  },

  /** Links the account to the entry, replacing what either was linked to. */
  async link(q: Executor, realmId: number, userId: number, dn: string): Promise<void> {
    const lower = dn.toLowerCase();
    await q
      .deleteFrom("ldap_accounts")
      .where((eb) => eb.or([eb("user_id", "=", userId), eb.and([eb("realm_id", "=", realmId), eb("dn", "=", lower)])]))
      .execute();
    await q.insertInto("ldap_accounts").values({ user_id: userId, realm_id: realmId, dn: lower }).execute();
  },
};
