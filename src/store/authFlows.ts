import type { Executor } from "../db/tx.js";

/** Sign-ins through an identity provider in progress (src/auth/flows.ts). */
export const authFlowStore = {
  async insert(q: Executor, row: { id: string; backend: string; data: string; expires_at: number }): Promise<void> {
    await q.insertInto("auth_flows").values(row).execute();
  },

  /** Deletes the flow and returns it if it was there and unexpired: a flow is taken once. */
  async take(q: Executor, id: string, now: number): Promise<{ backend: string; data: string } | undefined> {
    const row = await q.deleteFrom("auth_flows").where("id", "=", id).returning(["backend", "data", "expires_at"]).executeTakeFirst();
    return row && row.expires_at > now ? { backend: row.backend, data: row.data } : undefined;
  },

  async deleteExpired(q: Executor, now: number): Promise<void> {
    await q.deleteFrom("auth_flows").where("expires_at", "<=", now).execute();
  },
};
