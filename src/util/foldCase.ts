/**
 * Case folding as PostgreSQL's lower() does it on a UTF-8 database with a libc locale such as
 * C.UTF-8 or en_US.UTF-8: every character to its lower-case letter, in all of Unicode ("Ü" → "ü",
 * "Σ" → "σ"). JavaScript's toLowerCase() is that but for its two mappings that depend on more
 * than the character: "İ" becomes "i" + a combining dot (PostgreSQL: "i") and a word-final "Σ"
 * becomes "ς" (PostgreSQL: "σ").
 */
export function foldCase(value: string): string {
  return value.replace(/[\u0130\u03a3]/g, (c) => (c === "\u0130" ? "i" : "\u03c3")).toLowerCase();
}
