import { LinkifyIt } from "linkify-it";
import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { emoticonHtml, EMOTICON_RE, UNICODE_EMOJI_RE, unicodeEmojiHtml } from "./emoji.js";
import { type RenderEnv, renderEnv } from "./types.js";
import { rewriteLocalLink, sanitizeUrl } from "./urls.js";

/**
 * Plain-text passes over text tokens, in Zulip's priority order: bare URLs and e-mail addresses
 * become links, then Unicode emoji characters (and emoticons, when the sender translates them)
 * become emoji spans.
 */
let linkify: LinkifyIt | undefined;
const linkifier = (): LinkifyIt =>
  (linkify ??= new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: false, urlAuth: true })
    .add("ftp:", null)
    .add("//", null)
    .tlds(["app", "dev", "io", "ai", "cloud", "xyz", "online", "site", "tech", "blog", "page", "zulipchat"], true));

/** File extensions that look like domains (Zulip's common_false_positives). */
const FALSE_TLDS = new Set(["java", "md", "mov", "py", "zip"]);
const MAX_PAREN_DEPTH = 6;

function parenDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (const ch of text) {
    if (ch === "(") max = Math.max(max, ++depth);
    else if (ch === ")") depth--;
  }
  return max;
}

/** Zulip ends a URL before trailing punctuation and unbalanced closing parentheses. */
function trimTrailingPunctuation(m: { raw: string; url: string; lastIndex: number }): void {
  for (;;) {
    const last = m.raw.at(-1);
    if (last === undefined) return;
    const unbalanced = last === ")" && (m.raw.match(/\(/g)?.length ?? 0) < (m.raw.match(/\)/g)?.length ?? 0);
    if (!"!:;?,.'\"".includes(last) && !unbalanced) return;
    m.raw = m.raw.slice(0, -1);
    m.url = m.url.slice(0, -1);
    m.lastIndex--;
  }
}

export interface Found {
  index: number;
  lastIndex: number;
  text: string;
  href: string;
}

/**
 * linkify-it finds no bare domain right after "scheme:" ("about:blank.com"), where Zulip links
 * the domain; matching runs on a copy with such colons (of schemes linkify-it does not know)
 * made spaces, which keeps every index.
 */
function maskSchemeColons(text: string): string {
  return text.replace(/(^|[\s([<'"])([a-zA-Z][\w+.-]*):(?=[^\s/])/g, (whole, lead: string, scheme: string) =>
    scheme.toLowerCase() === "mailto" ? whole : `${lead}${scheme} `,
  );
}

/**
 * linkify-it balances a few levels of parentheses; Zulip allows six. A match with parentheses
 * that stops inside a word, at or after a "(", is extended to the word's end when its
 * parentheses then balance.
 */
function extendNestedParens(m: { raw: string; url: string; lastIndex: number }, text: string): void {
  const rest = /^[^\s<>"]+/.exec(text.slice(m.lastIndex))?.[0];
  if (!rest || !(m.raw.includes("(") || rest.startsWith("("))) return;
  const raw = m.raw + rest;
  if ((raw.match(/\(/g)?.length ?? 0) !== (raw.match(/\)/g)?.length ?? 0)) return;
  m.raw = raw;
  m.url += rest;
  m.lastIndex += rest.length;
}

export function findLinks(text: string, realmUrl: string | undefined): Found[] {
  const matches = linkifier().match(maskSchemeColons(text)) ?? [];
  const found: Found[] = [];
  for (const m of matches) {
    extendNestedParens(m, text);
    trimTrailingPunctuation(m);
    const before = m.index === 0 ? "" : text[m.index - 1];
    if (before && !/[\s'"(,:<]/.test(before)) continue;
    if (!/^[!:;?),.'">]*(\s|$)/.test(text.slice(m.lastIndex))) continue;
    if (m.schema === "") {
      const host = m.raw.split(/[/?#]/)[0] ?? "";
      if (FALSE_TLDS.has(host.slice(host.lastIndexOf(".") + 1).toLowerCase())) continue;
    }
    if (parenDepth(m.raw) > MAX_PAREN_DEPTH) continue;
    const href = sanitizeUrl(m.url);
    if (href === null) continue;
    found.push({ index: m.index, lastIndex: m.lastIndex, text: m.raw, href: rewriteLocalLink(href, realmUrl) });
  }
  return found;
}

function htmlToken(state: StateCore, html: string): Token {
  const token = new state.Token("zulip_html", "", 0);
  token.content = html;
  return token;
}

export function textToken(state: StateCore, content: string): Token {
  const token = new state.Token("text", "", 0);
  token.content = content;
  return token;
}

/** An automatic link (markup "linkify": not a Markdown link) to `href` showing `text`. */
export function autoLinkTokens(state: StateCore, href: string, text: string): Token[] {
  const open = new state.Token("link_open", "a", 1);
  open.attrs = [["href", href]];
  open.markup = "linkify";
  return [open, textToken(state, text), new state.Token("link_close", "a", -1)];
}

/** Splits text into text and emoji tokens. */
function emojify(state: StateCore, text: string, translateEmoticons: boolean): Token[] {
  const out: Token[] = [];
  let last = 0;
  const hits: { index: number; end: number; html: string }[] = [];
  for (const m of text.matchAll(UNICODE_EMOJI_RE)) {
    const html = unicodeEmojiHtml(m[0]);
    if (html) hits.push({ index: m.index, end: m.index + m[0].length, html });
  }
  if (translateEmoticons) {
    for (const m of text.matchAll(EMOTICON_RE)) hits.push({ index: m.index, end: m.index + m[0].length, html: emoticonHtml(m[0]) });
    hits.sort((a, b) => a.index - b.index);
  }
  for (const hit of hits) {
    if (hit.index < last) continue;
    if (hit.index > last) out.push(textToken(state, text.slice(last, hit.index)));
    out.push(htmlToken(state, hit.html));
    last = hit.end;
  }
  if (last < text.length || out.length === 0) out.push(textToken(state, text.slice(last)));
  return out;
}

function processText(state: StateCore, text: string, env: RenderEnv): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const link of findLinks(text, env.options.realmUrl)) {
    if (link.index > last) out.push(...emojify(state, text.slice(last, link.index), env.options.translateEmoticons === true));
    out.push(...autoLinkTokens(state, link.href, link.text));
    last = link.lastIndex;
  }
  if (last < text.length) out.push(...emojify(state, text.slice(last), env.options.translateEmoticons === true));
  return out;
}

function autolinkRule(state: StateCore): void {
  const env = renderEnv(state);
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const result: Token[] = [];
    let linkDepth = 0;
    for (const token of block.children) {
      if (token.type === "link_open") linkDepth++;
      if (token.type === "link_close") linkDepth--;
      if (token.type !== "text" || token.content === "") result.push(token);
      else if (linkDepth > 0) result.push(...emojify(state, token.content, false));
      else result.push(...processText(state, token.content, env));
    }
    block.children = result;
  }
}

export function autolinkPlugin(md: MarkdownIt): void {
  md.core.ruler.after("zulip_links", "zulip_autolink", autolinkRule);
}
