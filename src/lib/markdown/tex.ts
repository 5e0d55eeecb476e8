import type katexModule from "katex";
import type { MarkdownIt, StateInline } from "markdown-it";
import { lazyRequire } from "../../util/lazy.js";
import { escapeHtmlFull, escapeText } from "./escape.js";

// KaTeX (10 MB, 30 ms to load) is loaded by the first message with math, not at start.
const loadKatex = lazyRequire<typeof katexModule>("katex");

/** KaTeX with bounded work: no \href or other trusted commands, limited macro expansion. */
function renderTex(tex: string, displayMode: boolean): string | null {
  try {
    return loadKatex().renderToString(tex, { displayMode, throwOnError: true, trust: false, maxExpand: 1000, maxSize: 100, strict: "ignore" });
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
    const html = renderTex(m[1], false);
    state.push("zulip_html", "", 0).content = html ?? `<span class="tex-error">${escapeText(m[0])}</span>`;
  }
  state.pos += m[0].length;
  return true;
}

export function texPlugin(md: MarkdownIt): void {
  md.inline.ruler.before("emphasis", "zulip_tex", texRule);
}
