import type { Executor } from "../db/tx.js";

/** Event queues saved between a graceful shutdown and the next start. */
/**
 * `owner`: multi-process mode, where each process with a lasting identity saves and restores the
 * queues whose ids start with `<owner>:` and leaves the others' alone.
 */
export const eventQueueStore = {
  async replaceAll(q: Executor, rows: ReadonlyArray<{ id: string; user_id: number; data: string }>, owner?: string): Promise<void> {
    await q
      .deleteFrom("event_queues")
      .$if(owner !== undefined, (d) => d.where("id", "like", `${owner}:%`))
      .execute();
    for (let i = 0; i < rows.length; i += 200) {
      await q
        .insertInto("event_queues")
        .values(rows.slice(i, i + 200))
        .execute();
    }
  },

  /** Every saved queue, removed as it is read (a queue is restored once). */
  async takeAll(q: Executor, owner?: string): Promise<Array<{ id: string; user_id: number; data: string }>> {
    const rows = await q
      .selectFrom("event_queues")
      .selectAll()
      .$if(owner !== undefined, (s) => s.where("id", "like", `${owner}:%`))
      .execute();
    await q
      .deleteFrom("event_queues")
      .$if(owner !== undefined, (d) => d.where("id", "like", `${owner}:%`))
      .execute();
    return rows;
  },

  /** The saved queue `id`, removed as it is read, or undefined when it is not saved. */
  async take(q: Executor, id: string): Promise<{ id: string; user_id: number; data: string } | undefined> {
    const row = await q.selectFrom("event_queues").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) return undefined;
    const deleted = await q.deleteFrom("event_queues").where("id", "=", id).executeTakeFirst();
    // Another process (or poll) took it first.
    return deleted.numDeletedRows > 0n ? row : undefined;
  },

  /** When queue `id` was saved (milliseconds), or null when it is not saved. */
  async savedAt(q: Executor, id: string): Promise<number | null> {
    const row = await q.selectFrom("event_queues").select("data").where("id", "=", id).executeTakeFirst();
    if (!row) return null;
    const savedAt = (JSON.parse(row.data) as { lastActivityMs?: unknown }).lastActivityMs;
    return typeof savedAt === "number" ? savedAt : null;
  },

  async delete(q: Executor, id: string): Promise<void> {
    await q.deleteFrom("event_queues").where("id", "=", id).execute();
  },
};
