import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { alertWordStore } from "../store/alertWords.js";

/** Zulip's do_add_alert_words: trimmed, blanks dropped, a word the user has (in any case) not added twice. */
export async function doAddAlertWords(tx: Tx, user: User, words: readonly string[]): Promise<string[]> {
  const existing = new Set((await alertWordStore.list(tx.q, user.id)).map((w) => w.toLowerCase()));
  const added: string[] = [];
  for (const word of words.map((w) => w.trim()).filter((w) => w !== "")) {
    if (existing.has(word.toLowerCase())) continue;
    existing.add(word.toLowerCase());
    added.push(word);
  }
  await alertWordStore.add(tx.q, user.id, added);
  return notifyAlertWords(tx, user);
}

/** Zulip's do_remove_alert_words: case-insensitive; words the user does not have are ignored. */
export async function doRemoveAlertWords(tx: Tx, user: User, words: readonly string[]): Promise<string[]> {
  await alertWordStore.remove(tx.q, user.id, words);
  return notifyAlertWords(tx, user);
}

async function notifyAlertWords(tx: Tx, user: User): Promise<string[]> {
  const words = await alertWordStore.list(tx.q, user.id);
  tx.sendEventOnCommit({ type: "alert_words", alert_words: words }, [user.id]);
  return words;
}
