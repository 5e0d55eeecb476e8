import { escapeHtml } from "../../util/html.js";

/**
 * The `search` operator on the database's full-text index (FTS5 / tsvector, db/dialect.ts):
 * every word must occur in the message's rendered text or its topic, as a whole word,
 * case-insensitively; the last word also matches as a prefix (search-as-you-type). Words
 * without a letter or digit are ignored, as punctuation is not indexed.
 */
export function searchWords(operand: string): string[] {
  return operand
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^["']+|["']+$/g, ""))
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
}

const WORD_CHAR = "[\\p{L}\\p{N}_]";

/** Whole-word matches of `words` (the last one also as a prefix), for highlighting. */
function wordPattern(words: string[]): RegExp {
  const alternatives = words.map((w, i) => escapeRegExp(escapeHtml(w)) + (i === words.length - 1 ? `${WORD_CHAR}*` : ""));
  return new RegExp(`(?<!${WORD_CHAR})(?:${alternatives.join("|")})(?!${WORD_CHAR})`, "giu");
}

/** Zulip's highlight_string: wraps matches outside of HTML tags in <span class="highlight">. */
function highlight(html: string, words: string[]): string {
  if (words.length === 0) return html;
  const pattern = wordPattern(words);
  return html.replace(/(<[^>]*>)|([^<]+)/g, (_m, tag: string | undefined, text: string | undefined) =>
    tag !== undefined ? tag : text!.replace(pattern, (match) => `<span class="highlight">${match}</span>`),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** match_content / match_subject of a message for a search narrow. */
export function searchFields(renderedContent: string, topic: string, words: string[]): { match_content: string; match_subject: string } {
  return { match_content: highlight(renderedContent, words), match_subject: highlight(escapeHtml(topic), words) };
}
