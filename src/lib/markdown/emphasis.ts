import type { MarkdownIt, StateInline } from "markdown-it";
import { protectedSpanEnd } from "./protectedSpans.js";

/**
 * Zulip's emphasis: ***x*** (strong+em), **x** (strong, one line), *x* (em: no "*" or "^" inside,
 * no space just inside the stars), ~~x~~ (del). Underscores are never emphasis.
 */
interface Delimited {
  contentStart: number;
  contentEnd: number;
  end: number;
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/** Finds `close` after pos, skipping protected spans; null at a newline or a forbidden char. */
function scanTo(src: string, from: number, max: number, close: string, forbidden: string, lazy: boolean): number {
  let i = from;
  let found = -1;
  while (i < max) {
    const skip = protectedSpanEnd(src, i, max);
    if (skip > i) {
      i = skip;
      continue;
    }
    if (src.startsWith(close, i) && i > from) {
      found = i;
      if (lazy) return found;
    }
    const ch = src.charAt(i);
    if (ch === "\n" || forbidden.includes(ch)) return found;
    i++;
  }
  return found;
}

function matchStrongEm(src: string, pos: number, max: number): Delimited | null {
  if (!src.startsWith("***", pos) || isSpace(src[pos + 3])) return null;
  const close = scanTo(src, pos + 3, max, "***", "*^", true);
  if (close < 0 || isSpace(src[close - 1])) return null;
  return { contentStart: pos + 3, contentEnd: close, end: close + 3 };
}

function matchStrong(src: string, pos: number, max: number): Delimited | null {
  if (!src.startsWith("**", pos)) return null;
  const close = scanTo(src, pos + 2, max, "**", "", true);
  if (close < 0) return null;
  return { contentStart: pos + 2, contentEnd: close, end: close + 2 };
}

function matchEm(src: string, pos: number, max: number): Delimited | null {
  if (src[pos] !== "*" || isSpace(src[pos + 1])) return null;
  // The content is a maximal run without "*", "^" or newline: the closing star follows it.
  let i = pos + 1;
  while (i < max) {
    const skip = protectedSpanEnd(src, i, max);
    if (skip > i) {
      i = skip;
      continue;
    }
    if ("*^\n".includes(src.charAt(i))) break;
    i++;
  }
  if (i === pos + 1 || src[i] !== "*" || i >= max || isSpace(src[i - 1])) return null;
  return { contentStart: pos + 1, contentEnd: i, end: i + 1 };
}

function matchDel(src: string, pos: number, max: number): Delimited | null {
  if (!src.startsWith("~~", pos) || src[pos - 1] === "~" || src[pos + 2] === "~") return null;
  const close = scanTo(src, pos + 2, max, "~~", "~", true);
  if (close < 0 || src[close + 2] === "~") return null;
  return { contentStart: pos + 2, contentEnd: close, end: close + 2 };
}

function wrap(state: StateInline, match: Delimited, tags: string[], silent: boolean): boolean {
  if (!silent) {
    for (const tag of tags) state.push(`${tag}_open`, tag, 1).markup = tag;
    const oldPos = state.pos;
    const oldMax = state.posMax;
    state.pos = match.contentStart;
    state.posMax = match.contentEnd;
    state.md.inline.tokenize(state);
    state.pos = oldPos;
    state.posMax = oldMax;
    for (const tag of [...tags].reverse()) state.push(`${tag}_close`, tag, -1).markup = tag;
  }
  state.pos = match.end;
  return true;
}

function emphasisRule(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  const ch = src[pos];
  if (ch === "*") {
    const strongEm = matchStrongEm(src, pos, posMax);
    if (strongEm) return wrap(state, strongEm, ["strong", "em"], silent);
    const strong = matchStrong(src, pos, posMax);
    if (strong) return wrap(state, strong, ["strong"], silent);
    const em = matchEm(src, pos, posMax);
    if (em) return wrap(state, em, ["em"], silent);
  } else if (ch === "~") {
    const del = matchDel(src, pos, posMax);
    if (del) return wrap(state, del, ["s"], silent);
  } else return false;
  if (!silent) state.pending += ch;
  state.pos += 1;
  return true;
}

export function emphasisPlugin(md: MarkdownIt): void {
  md.inline.ruler.at("emphasis", emphasisRule);
  md.inline.ruler.disable("strikethrough");
  md.inline.ruler2.disable(["emphasis", "strikethrough"]);
  md.renderer.rules.s_open = () => "<del>";
  md.renderer.rules.s_close = () => "</del>";
}
