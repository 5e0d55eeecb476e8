import type { Executor } from "../db/tx.js";

/** Users' alert words (Zulip's AlertWord); words are unique per user, case-insensitively. */
export const alertWordStore = {
  async list(q: Executor, userId: number): Promise<string[]> {
    return (await q.selectFrom("alert_words").select("word").where("user_id", "=", userId).orderBy("id").execute()).map((r) => r.word);
  },

  async add(q: Executor, userId: number, words: readonly string[]): Promise<void> {
    if (words.length === 0) return;
    await q
      .insertInto("alert_words")
      .values(words.map((word) => ({ user_id: userId, word })))
      .execute();
  },

  async remove(q: Executor, userId: number, words: readonly string[]): Promise<void> {
    if (words.length === 0) return;
    const rows = await q.selectFrom("alert_words").select(["id", "word"]).where("user_id", "=", userId).execute();
    const lower = new Set(words.map((w) => w.toLowerCase()));
    const ids = rows.filter((r) => lower.has(r.word.toLowerCase())).map((r) => r.id);
    if (ids.length > 0) await q.deleteFrom("alert_words").where("id", "in", ids).execute();
  },

  /**
   * Every active user's words in the organization (Zulip's alert_words_in_realm); read for every
   * message sent. Written as a semi-join from alert_words: a join lets SQLite walk all the
   * organization's users and probe alert_words for each (~2 ms per send with 1,000 users and no
   * word at all); this walks the words (few) and looks each owner up by primary key.
   */
  async inRealm(q: Executor, realmId: number): Promise<Array<{ user_id: number; word: string }>> {
    return q
      .selectFrom("alert_words as aw")
      .select(["aw.user_id", "aw.word"])
      .where(({ exists, selectFrom }) =>
        exists(selectFrom("users as u").select("u.id").whereRef("u.id", "=", "aw.user_id").where("u.realm_id", "=", realmId).where("u.is_active", "=", 1)),
      )
      .execute();
  },
};
