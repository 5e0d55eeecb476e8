import type { MarkdownIt, StateInline } from "markdown-it";

/**
 * Inline code as Zulip: a run of N backticks up to the next run of exactly N on the same line;
 * the content keeps its spaces (no CommonMark trimming).
 */
export function codeSpanEnd(src: string, pos: number, max: number): { end: number; content: string } | null {
  let open = pos;
  while (open < max && src.charCodeAt(open) === 0x60) open++;
  const n = open - pos;
  if (n === 0) return null;
  let i = open;
  while (i < max) {
    const ch = src.charCodeAt(i);
    if (ch === 0x0a) return null;
    if (ch !== 0x60) {
      i++;
      continue;
    }
    let j = i;
    while (j < max && src.charCodeAt(j) === 0x60) j++;
    if (j - i === n && i > open) return { end: j, content: src.slice(open, i) };
    i = j;
  }
  return null;
}

function backticksRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x60) return false;
  const span = codeSpanEnd(state.src, state.pos, state.posMax);
  if (!span) {
    let end = state.pos;
    while (end < state.posMax && state.src.charCodeAt(end) === 0x60) end++;
    if (!silent) state.pending += state.src.slice(state.pos, end);
    state.pos = end;
    return true;
  }
  if (!silent) {
    const token = state.push("code_inline", "code", 0);
    token.content = span.content;
  }
  state.pos = span.end;
  return true;
}

export function backticksPlugin(md: MarkdownIt): void {
  md.inline.ruler.at("backticks", backticksRule);
}
