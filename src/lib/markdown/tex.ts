import type { KatexOptions } from "katex";
import type { MarkdownIt, StateInline } from "markdown-it";
import { lazyRequire } from "../../util/lazy.js";
import { escapeHtmlFull, escapeText } from "./escape.js";
import { group } from "../../util/defined.js";

// KaTeX (large, slow to load) is loaded by the first message with math, not at start.
const loadKatex = lazyRequire<KatexInternals>("katex");

/** The parts of KaTeX's build tree that {@link mergeItalicRuns} reads (KaTeX's `__` API, not typed). */
interface KatexNode {
  children?: KatexNode[];
}
interface KatexSymbol extends KatexNode {
  text: string;
  height: number;
  depth: number;
  italic: number;
  skew: number;
  maxFontSize: number;
  classes: string[];
  style: Record<string, unknown>;
}
interface KatexInternals {
  __renderToDomTree(tex: string, options: KatexOptions): KatexNode & { toMarkup(): string };
  __domTree: { SymbolNode: abstract new (...args: never[]) => KatexSymbol };
}

const sameStyle = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => a[k] === b[k]);

/**
 * Zulip's KaTeX (before 0.16.32) joins adjacent math-italic letters into one glyph run even when the
 * left one has an italic correction (`j` then `a` → `ja`); since 0.16.32 such a letter ends its run.
 * Join those runs again, with the rule KaTeX used then (same classes, skew, font size and style; a
 * bare `mord`/`mbin` never joins), so that messages render as Zulip renders them. A run keeps its
 * last letter's italic correction, which KaTeX writes as the run's right margin.
 */
function mergeItalicRuns(node: KatexNode, SymbolNode: KatexInternals["__domTree"]["SymbolNode"]): void {
  const children = node.children;
  if (!children) return;
  for (let i = 0; i < children.length - 1; i++) {
    const prev = children[i];
    const next = children[i + 1];
    if (
      prev instanceof SymbolNode &&
      next instanceof SymbolNode &&
      prev.italic !== 0 &&
      prev.classes.includes("mathnormal") &&
      prev.classes.join(" ") === next.classes.join(" ") &&
      prev.skew === next.skew &&
      prev.maxFontSize === next.maxFontSize &&
      sameStyle(prev.style, next.style)
    ) {
      prev.text += next.text;
      prev.height = Math.max(prev.height, next.height);
      prev.depth = Math.max(prev.depth, next.depth);
      prev.italic = next.italic;
      children.splice(i + 1, 1);
      i--;
    }
  }
  for (const child of children) mergeItalicRuns(child, SymbolNode);
}

/** KaTeX with bounded work: no \href or other trusted commands, limited macro expansion. */
function renderTex(tex: string, displayMode: boolean): string | null {
  try {
    const katex = loadKatex();
    const tree = katex.__renderToDomTree(tex, { displayMode, throwOnError: true, trust: false, maxExpand: 1000, maxSize: 100, strict: "ignore" });
    mergeItalicRuns(tree, katex.__domTree.SymbolNode);
    return tree.toMarkup();
  } catch {
    return null;
  }
}

/** ```math blocks: <p><span class="katex-display">…</span></p>, or Zulip's tex-error span. */
export function renderDisplayMath(tex: string): string {
  const html = renderTex(tex, true);
  return html === null ? `<p><span class="tex-error">${escapeHtmlFull(tex)}</span></p>\n` : `<p>${html}</p>\n`;
}

/** Zulip's TEX_RE: $$body$$ on one line, not touching other $ signs or word characters. */
const INLINE_TEX_RE = /^\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/;
const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

export function inlineTexSpan(src: string, pos: number): RegExpExecArray | null {
  if (src.charCodeAt(pos) !== 0x24 /* $ */ || src.charCodeAt(pos + 1) !== 0x24) return null;
  const before = pos > 0 ? src[pos - 1] : undefined;
  if (before === "$" || isWordChar(before)) return null;
  const m = INLINE_TEX_RE.exec(src.slice(pos));
  if (!m || isWordChar(src[pos + m[0].length])) return null;
  return m;
}

function texRule(state: StateInline, silent: boolean): boolean {
  const m = inlineTexSpan(state.src, state.pos);
  if (!m || state.pos + m[0].length > state.posMax) return false;
  if (!silent) {
    const html = renderTex(group(m, 1), false);
    state.push("zulip_html", "", 0).content = html ?? `<span class="tex-error">${escapeText(m[0])}</span>`;
  }
  state.pos += m[0].length;
  return true;
}

export function texPlugin(md: MarkdownIt): void {
  md.inline.ruler.before("emphasis", "zulip_tex", texRule);
}
