import type { Selectable } from "kysely";
import type { PushDevicesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type PushDevice = Selectable<PushDevicesTable>;
export const PushDeviceKind = { APNS: 1, FCM: 2 } as const;

/** Mobile devices registered for push notifications (Zulip's PushDeviceToken). */
export const pushDeviceStore = {
  /** Registers the token; a token already registered keeps its row (its app id is updated). */
  async upsert(q: Executor, row: { user_id: number; kind: number; token: string; ios_app_id: string | null; date_created: number }): Promise<void> {
    await q
      .insertInto("push_devices")
      .values(row)
      .onConflict((oc) => oc.columns(["user_id", "kind", "token"]).doUpdateSet({ ios_app_id: row.ios_app_id }))
      .execute();
  },

  async remove(q: Executor, userId: number, kind: number, token: string): Promise<boolean> {
    const result = await q.deleteFrom("push_devices").where("user_id", "=", userId).where("kind", "=", kind).where("token", "=", token).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  async listForUser(q: Executor, userId: number): Promise<PushDevice[]> {
    return q.selectFrom("push_devices").selectAll().where("user_id", "=", userId).orderBy("id").execute();
  },

  /** Of these users, the ones with at least one device. */
  async usersWithDevices(q: Executor, userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await q
      .selectFrom("push_devices")
      .select("user_id")
      .distinct()
      .where("user_id", "in", [...userIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },
};
