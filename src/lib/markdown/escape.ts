/** Text content as Zulip's renderer writes it: only &, < and > are escaped. */
export function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (ch) => (ch === "&" ? "&amp;" : ch === "<" ? "&lt;" : "&gt;"));
}

/** Attribute values (always double-quoted). */
export function escapeAttr(text: string): string {
  return escapeText(text).replaceAll('"', "&quot;");
}

/** Code block content as Pygments writes it. */
export function escapeCode(text: string): string {
  return escapeAttr(text).replaceAll("'", "&#39;");
}

/** Python's html.escape (used by Zulip for TeX errors in display math). */
export function escapeHtmlFull(text: string): string {
  return escapeAttr(text).replaceAll("'", "&#x27;");
}
