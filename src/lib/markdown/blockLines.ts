import type { StateBlock, Token } from "markdown-it";
import { defined } from "../../util/defined.js";

// markdown-it keeps a block's lines in parallel arrays indexed by line number; a rule reads only
// lines below state.lineMax, and a renderer rule only the token it is given, so these are there.

/** Where the text of `line` starts (after its indentation). */
export function lineStart(state: StateBlock, line: number): number {
  return defined(state.bMarks[line], `line ${line}`) + defined(state.tShift[line], `line ${line}`);
}

/** Where `line` ends. */
export function lineEnd(state: StateBlock, line: number): number {
  return defined(state.eMarks[line], `line ${line}`);
}

/** The indentation of `line`, in columns. */
export function lineIndent(state: StateBlock, line: number): number {
  return defined(state.sCount[line], `line ${line}`);
}

/** The text of `line` after its indentation. */
export function lineText(state: StateBlock, line: number): string {
  return state.src.slice(lineStart(state, line), lineEnd(state, line));
}

/** The token a renderer rule is called for. */
export function tokenAt(tokens: readonly Token[], idx: number): Token {
  return defined(tokens[idx], `token ${idx}`);
}
