import { type Executor } from "../db/tx.js";
import { insertInBatches } from "./batches.js";

export const recipientStore = {
  /** A recipient (RecipientType: a user, a channel or a direct-message group); returns its id. */
  async insert(q: Executor, type: number, typeId: number): Promise<number> {
    const row = await q.insertInto("recipients").values({ type, type_id: typeId }).returning("id").executeTakeFirstOrThrow();
    return row.id;
  },

  /** Recipients of one type for many objects in one statement: type_id → recipient id. */
  async insertMany(q: Executor, type: number, typeIds: readonly number[]): Promise<Map<number, number>> {
    if (typeIds.length === 0) return new Map();
    const rows = await insertInBatches(
      typeIds.map((type_id) => ({ type, type_id })),
      (batch) => q.insertInto("recipients").values(batch).returning(["id", "type_id"]).execute(),
    );
    return new Map(rows.map((r) => [r.type_id, r.id]));
  },

  async listByIds(q: Executor, ids: readonly number[]): Promise<Array<{ id: number; type: number; type_id: number }>> {
    if (ids.length === 0) return [];
    return q
      .selectFrom("recipients")
      .selectAll()
      .where("id", "in", [...new Set(ids)])
      .execute();
  },
};
