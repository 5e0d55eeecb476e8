import { sql, type RawBuilder } from "kysely";
import { escapeHtml } from "../../util/html.js";

/**
 * The `search` operator, LIKE-based: every word must occur in the content or the topic
 * (case-insensitive substring). TODO: full-text search (FTS5 / tsvector) behind dialect helpers.
 */
export function searchWords(operand: string): string[] {
  return operand
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^["']+|["']+$/g, ""))
    .filter((w) => w !== "");
}

export function searchCondition(words: string[]): RawBuilder<boolean> {
  if (words.length === 0) return sql<boolean>`1 = 1`;
  const conds = words.map((word) => {
    const pattern = `%${word.replace(/[\\%_]/g, (c) => "\\" + c)}%`;
    return sql<boolean>`(lower(m.content) like ${pattern} escape '\\' or lower(m.subject) like ${pattern} escape '\\')`;
  });
  return sql<boolean>`(${sql.join(conds, sql` and `)})`;
}

/** Zulip's highlight_string: wraps matches outside of HTML tags in <span class="highlight">. */
export function highlight(html: string, words: string[]): string {
  if (words.length === 0) return html;
  const pattern = new RegExp(words.map((w) => escapeRegExp(escapeHtml(w))).join("|"), "gi");
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
