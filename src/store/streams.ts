import type { Insertable, Updateable } from "kysely";
import type { Stream, StreamsTable, SubscriptionsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export const streamStore = {
  async insert(q: Executor, row: Insertable<StreamsTable>): Promise<Stream> {
    return q.insertInto("streams").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async update(q: Executor, id: number, changes: Updateable<StreamsTable>): Promise<void> {
    await q.updateTable("streams").set(changes).where("id", "=", id).execute();
  },

  /** Makes the channels default channels of the realm (new users are subscribed to them). */
  async addDefaultStreams(q: Executor, realmId: number, streamIds: readonly number[]): Promise<void> {
    if (streamIds.length === 0) return;
    await q
      .insertInto("default_streams")
      .values(streamIds.map((stream_id) => ({ realm_id: realmId, stream_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },
};

export const subscriptionStore = {
  async insertMany(q: Executor, rows: readonly Insertable<SubscriptionsTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await q.insertInto("subscriptions").values([...rows]).execute();
  },
};
