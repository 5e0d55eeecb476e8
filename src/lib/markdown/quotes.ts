import type { MarkdownIt, StateBlock, StateCore } from "markdown-it";
import { renderEnv } from "./types.js";
import { lineIndent, lineText } from "./blockLines.js";

/**
 * Quotes as Zulip (Python-Markdown): a block whose lines are only ">" is a paragraph, not an
 * empty quote; lines after empty ">" lines up to the next blank line belong to the quote
 * (Python-Markdown's quote takes the whole block, CommonMark's lazy continuation needs an open
 * paragraph); and mentions inside quotes (">" or ```quote) are silent, so quoting a message
 * notifies nobody.
 */
const EMPTY_QUOTE_LINE = /^ {0,3}>\s*$/;

function wrapBlockquote(md: MarkdownIt): void {
  const original = findRule(md, "blockquote");
  if (!original) throw new Error("markdown-it blockquote rule not found");
  md.block.ruler.at(
    "blockquote",
    (state: StateBlock, startLine: number, endLine: number, silent: boolean) => {
      let line = startLine;
      let allEmpty = true;
      for (; line < endLine; line++) {
        const text = state.src.slice(state.bMarks[line], state.eMarks[line]);
        if (text.trim() === "") break;
        if (!EMPTY_QUOTE_LINE.test(text.slice(Math.min(text.length, state.blkIndent)))) {
          allEmpty = false;
          break;
        }
      }
      if (allEmpty) return false;
      if (line > startLine && isLazyText(state, line)) return quoteAfterEmptyLines(state, startLine, line, endLine, silent);
      return original(state, startLine, endLine, silent);
    },
    { alt: ["paragraph", "reference", "blockquote", "list"] },
  );
}

/** A line that is neither a quote line nor indented code. */
function isLazyText(state: StateBlock, line: number): boolean {
  const text = lineText(state, line);
  return lineIndent(state, line) - state.blkIndent < 4 && lineIndent(state, line) >= state.blkIndent && !text.startsWith(">");
}

/**
 * The quote opened by empty ">" lines (startLine to firstText - 1) whose text follows without
 * a ">" (Zulip's non_empty_blockquote): the lines up to the next blank line are its content.
 */
function quoteAfterEmptyLines(state: StateBlock, startLine: number, firstText: number, endLine: number, silent: boolean): boolean {
  if (silent) return true;
  let end = firstText;
  while (end < endLine && !state.isEmpty(end) && lineIndent(state, end) >= state.blkIndent) end++;
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = "blockquote";
  state.lineMax = end;
  state.push("blockquote_open", "blockquote", 1).map = [startLine, end];
  state.md.block.tokenize(state, firstText, end);
  state.push("blockquote_close", "blockquote", -1);
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = end;
  return true;
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

function findRule(md: MarkdownIt, name: string): BlockRule | undefined {
  const ruler = md.block.ruler as unknown as { __rules__: { name: string; fn: BlockRule }[] };
  return ruler.__rules__.find((rule) => rule.name === name)?.fn;
}

/** markdown-it's core "inline" step, telling the inline rules whether they are inside a quote. */
function inlineWithQuoteContext(state: StateCore): void {
  const env = renderEnv(state);
  let depth = 0;
  for (const token of state.tokens) {
    if (token.type === "blockquote_open") depth++;
    else if (token.type === "blockquote_close") depth--;
    else if (token.type === "inline") {
      env.inQuote = depth > 0;
      state.md.inline.parse(token.content, state.md, state.env, token.children ?? (token.children = []));
    }
  }
  env.inQuote = false;
}

export function quotesPlugin(md: MarkdownIt): void {
  wrapBlockquote(md);
  md.core.ruler.at("inline", inlineWithQuoteContext);
}
