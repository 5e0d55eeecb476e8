import type { Insertable, Selectable } from "kysely";
import type { BotServicesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type BotService = Selectable<BotServicesTable>;

/** The outgoing-webhook endpoint of a bot (Zulip's Service): URL, payload interface and token. */
export const botServiceStore = {
  async insert(q: Executor, row: Insertable<BotServicesTable>): Promise<BotService> {
    return q.insertInto("bot_services").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async listByBotIds(q: Executor, botIds: readonly number[]): Promise<BotService[]> {
    if (botIds.length === 0) return [];
    return q
      .selectFrom("bot_services")
      .selectAll()
      .where("bot_id", "in", [...botIds])
      .orderBy("id")
      .execute();
  },

  async updateForBot(q: Executor, botId: number, changes: { base_url: string; interface: number }): Promise<void> {
    await q.updateTable("bot_services").set(changes).where("bot_id", "=", botId).execute();
  },
};
