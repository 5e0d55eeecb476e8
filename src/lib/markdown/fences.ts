import type { MarkdownIt, StateBlock } from "markdown-it";
import { renderCodeBlock } from "./highlight.js";
import { renderDisplayMath } from "./tex.js";
import { lineEnd, lineIndent, lineStart, lineText, tokenAt } from "./blockLines.js";
import { group } from "../../util/defined.js";

/**
 * Zulip's fenced blocks (``` or ~~~, 3 or more): code with an optional language, ```quote,
 * ```spoiler Header, and ```math. Quote and spoiler bodies are Markdown and may hold further
 * fences; a bare fence line equal to the innermost open fence closes it (Zulip's fenced_code).
 * An unclosed fence runs to the end of its container.
 */
const FENCE_RE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?[ ]*$/;

type Kind = "code" | "quote" | "spoiler" | "math";

function kindOf(lang: string): Kind {
  const lower = lang.toLowerCase();
  if (lower === "quote" || lower === "quoted") return "quote";
  if (lower === "spoiler") return "spoiler";
  if (lower === "math") return "math";
  return "code";
}

function parseFence(state: StateBlock, line: number): { fence: string; lang: string; header: string } | null {
  if (lineIndent(state, line) - state.blkIndent >= 4) return null;
  const m = FENCE_RE.exec(lineText(state, line));
  if (!m) return null;
  // A backtick fence's info string may not contain backticks: "```code```" is inline code.
  return { fence: group(m, 1), lang: m[2] ?? "", header: (m[3] ?? "").trim() };
}

/** The closing line of the fence opened at startLine, or -1 when it runs to the container's end. */
function findClose(state: StateBlock, startLine: number, endLine: number, fence: string, opaque: boolean): number {
  const stack: { fence: string; opaque: boolean }[] = [];
  for (let line = startLine + 1; line < endLine; line++) {
    if (lineIndent(state, line) < state.blkIndent && lineStart(state, line) < lineEnd(state, line)) return -1;
    const m = parseFence(state, line);
    if (!m) continue;
    const top = stack[stack.length - 1];
    if (opaque || top?.opaque) {
      if (!m.lang && m.fence === (top?.fence ?? fence)) {
        if (top) stack.pop();
        else return line;
      }
      continue;
    }
    if (m.lang) stack.push({ fence: m.fence, opaque: kindOf(m.lang) === "code" || kindOf(m.lang) === "math" });
    else if (m.fence === (top?.fence ?? fence)) {
      if (top) stack.pop();
      else return line;
    } else stack.push({ fence: m.fence, opaque: true });
  }
  return -1;
}

function rawContent(state: StateBlock, from: number, to: number): string {
  const lines: string[] = [];
  for (let line = from; line < to; line++) {
    const indent = Math.max(0, lineIndent(state, line) - state.blkIndent);
    lines.push(" ".repeat(indent) + lineText(state, line));
  }
  return lines.join("\n");
}

function fenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const open = parseFence(state, startLine);
  if (!open) return false;
  if (silent) return true;
  const kind = kindOf(open.lang);
  const close = findClose(state, startLine, endLine, open.fence, kind === "code" || kind === "math");
  const contentEnd = close < 0 ? endLine : close;
  const map: [number, number] = [startLine, close < 0 ? endLine : close + 1];

  if (kind === "code" || kind === "math") {
    const token = state.push("zulip_html", "", 0);
    const content = rawContent(state, startLine + 1, contentEnd);
    token.content = kind === "math" ? renderDisplayMath(content) : renderCodeBlock(content, open.lang);
    token.block = true;
    token.map = map;
  } else {
    const oldParent = state.parentType;
    const oldLineMax = state.lineMax;
    state.parentType = "blockquote" as typeof state.parentType;
    state.lineMax = contentEnd;
    if (kind === "quote") {
      state.push("blockquote_open", "blockquote", 1).map = map;
    } else {
      state.push("spoiler_open", "div", 1).map = map;
      if (open.header) {
        state.push("paragraph_open", "p", 1);
        const inline = state.push("inline", "", 0);
        inline.content = open.header;
        inline.children = [];
        state.push("paragraph_close", "p", -1);
      }
      state.push("spoiler_content", "div", 0);
    }
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push(kind === "quote" ? "blockquote_close" : "spoiler_close", kind === "quote" ? "blockquote" : "div", -1);
    state.parentType = oldParent;
    state.lineMax = oldLineMax;
  }
  state.line = map[1];
  return true;
}

export function fencesPlugin(md: MarkdownIt): void {
  md.block.ruler.at("fence", fenceRule, { alt: ["paragraph", "reference", "blockquote", "list"] });
  md.renderer.rules.spoiler_open = () => '<div class="spoiler-block"><div class="spoiler-header">\n';
  md.renderer.rules.spoiler_content = () => '</div><div class="spoiler-content" aria-hidden="true">\n';
  md.renderer.rules.spoiler_close = () => "</div></div>\n";
  md.renderer.rules.code_block = (tokens, idx) => renderCodeBlock(tokenAt(tokens, idx).content, "");
}
