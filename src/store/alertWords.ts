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
};
