import { sql } from "kysely";
import type { Executor } from "../db/tx.js";

/** What a send needs of its receivers' preferences: who muted the sender, and the organization's alert words. */
export interface ReceiverFilters {
  /** Users who muted the sender: their copy of the message is read already (Zulip's get_muting_users). */
  mutedBy: Set<number>;
  /** The alert words of the organization's active users. */
  alertWords: Array<{ user_id: number; word: string }>;
}

export const receiverFilterStore = {
  /**
   * Both in one statement (a round trip fewer per send on PostgreSQL): muters are the rows without
   * a word. The alert words are read as a semi-join from alert_words: a join let SQLite walk all
   * the organization's users and probe alert_words for each (~2 ms per send with 1,000 users and
   * no word at all); this walks the words (few) and looks each owner up by primary key.
   */
  async forSender(q: Executor, realmId: number, senderId: number): Promise<ReceiverFilters> {
    const rows = await q
      .selectFrom("muted_users")
      .select(["user_id", sql<string | null>`null`.as("word")])
      .where("muted_user_id", "=", senderId)
      .unionAll(
        q
          .selectFrom("alert_words as aw")
          .select(["aw.user_id", "aw.word"])
          .where(({ exists, selectFrom }) =>
            exists(selectFrom("users as u").select("u.id").whereRef("u.id", "=", "aw.user_id").where("u.realm_id", "=", realmId).where("u.is_active", "=", 1)),
          ),
      )
      .execute();
    const filters: ReceiverFilters = { mutedBy: new Set(), alertWords: [] };
    for (const row of rows) {
      if (row.word === null) filters.mutedBy.add(row.user_id);
      else filters.alertWords.push({ user_id: row.user_id, word: row.word });
    }
    return filters;
  },
};
