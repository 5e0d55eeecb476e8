import { codeSpanEnd } from "./backticks.js";
import { inlineTexSpan } from "./tex.js";

/**
 * Zulip's inline patterns run by priority: code, mentions, TeX, channel links, times and links are
 * replaced before emphasis looks for its delimiters. Emphasis scanning here skips these spans so
 * that "*see @**King Hamlet***" and "**a `**` b**" group as Zulip's do.
 */
const PATTERNS = [
  /^@_?\*\*[^*]+\*\*/, // user mention
  /^#\*\*[^*]+\*\*/, // channel, topic or message link
  /^<time:[^>]*?>/, // global time
  /^@_?\*[^*]+\*/, // group mention
  /^\[[^\]\n]*\]\([^)\s]*\)/, // simple Markdown link
];

/** The end of a protected span starting at pos, or -1. */
export function protectedSpanEnd(src: string, pos: number, max: number): number {
  const ch = src[pos];
  if (ch === "`") return codeSpanEnd(src, pos, max)?.end ?? -1;
  if (ch === "$") {
    const m = inlineTexSpan(src, pos);
    return m ? pos + m[0].length : -1;
  }
  if (ch !== "@" && ch !== "#" && ch !== "<" && ch !== "[") return -1;
  const rest = src.slice(pos, max);
  for (const re of PATTERNS) {
    const m = re.exec(rest);
    if (m) return pos + m[0].length;
  }
  return -1;
}
