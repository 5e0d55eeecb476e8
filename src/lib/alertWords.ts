/**
 * Zulip's alert-word matching (AlertWordNotificationProcessor): a word matches the message source,
 * case-insensitively, where it starts at the beginning or after a space, newline or opening
 * punctuation, and ends at the end or before a space, newline or closing punctuation.
 */
const BEFORE = new Set([" ", "\n", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]);
const AFTER = new Set([" ", "\n", ")", '"', "?", ":", ".", ",", "'", ";", "]", "!", "*", "`"]);

export function containsAlertWord(content: string, word: string): boolean {
  const text = content.toLowerCase();
  const needle = word.toLowerCase();
  if (needle === "") return false;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if ((at === 0 || BEFORE.has(text.charAt(at - 1))) && (end === text.length || AFTER.has(text.charAt(end)))) return true;
  }
  return false;
}

/** Who among the words' owners has one in the content. */
export function usersWithAlertWords(content: string, words: ReadonlyArray<{ user_id: number; word: string }>): Set<number> {
  const users = new Set<number>();
  for (const { user_id, word } of words) if (!users.has(user_id) && containsAlertWord(content, word)) users.add(user_id);
  return users;
}

/** Zulip's AlertWord.MAX_WORD_LENGTH. */
export const MAX_ALERT_WORD_LENGTH = 100;
