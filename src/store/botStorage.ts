import type { Selectable } from "kysely";
import type { BotStorageTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

/** Bots' key-value state (Zulip's BotStorageData). */
export const botStorageStore = {
  async get(q: Executor, botId: number, keys: readonly string[] | null): Promise<Array<Selectable<BotStorageTable>>> {
    let query = q.selectFrom("bot_storage").selectAll().where("bot_id", "=", botId);
    if (keys !== null) {
      if (keys.length === 0) return [];
      query = query.where("key", "in", [...keys]);
    }
    return query.orderBy("key").execute();
  },

  /** The characters stored under every key but `except` (keys and values, as Zulip counts them). */
  async sizeExcept(q: Executor, botId: number, except: readonly string[]): Promise<number> {
    const rows = await q.selectFrom("bot_storage").select(["key", "value"]).where("bot_id", "=", botId).execute();
    const skip = new Set(except);
    return rows.filter((r) => !skip.has(r.key)).reduce((sum, r) => sum + r.key.length + r.value.length, 0);
  },

  async put(q: Executor, botId: number, entries: ReadonlyArray<[string, string]>): Promise<void> {
    if (entries.length === 0) return;
    await q
      .insertInto("bot_storage")
      .values(entries.map(([key, value]) => ({ bot_id: botId, key, value })))
      .onConflict((oc) => oc.columns(["bot_id", "key"]).doUpdateSet((eb) => ({ value: eb.ref("excluded.value") })))
      .execute();
  },

  async remove(q: Executor, botId: number, keys: readonly string[] | null): Promise<void> {
    if (keys !== null && keys.length === 0) return;
    let query = q.deleteFrom("bot_storage").where("bot_id", "=", botId);
    if (keys !== null) query = query.where("key", "in", [...keys]);
    await query.execute();
  },
};
