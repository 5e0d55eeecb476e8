import type { Executor } from "../db/tx.js";

/** Event queues saved between a graceful shutdown and the next start. */
export const eventQueueStore = {
  async replaceAll(q: Executor, rows: ReadonlyArray<{ id: string; user_id: number; data: string }>): Promise<void> {
    await q.deleteFrom("event_queues").execute();
    for (let i = 0; i < rows.length; i += 200) {
      await q
        .insertInto("event_queues")
        .values(rows.slice(i, i + 200))
        .execute();
    }
  },

  /** Every saved queue, removed as it is read (a queue is restored once). */
  async takeAll(q: Executor): Promise<Array<{ id: string; user_id: number; data: string }>> {
    const rows = await q.selectFrom("event_queues").selectAll().execute();
    await q.deleteFrom("event_queues").execute();
    return rows;
  },
};
