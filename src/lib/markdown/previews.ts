import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { escapeAttr } from "./escape.js";
import { type RenderEnv, renderEnv } from "./types.js";
import { uploadPathId, urlPathLower } from "./urls.js";

/**
 * Inline previews for links to images and videos (Zulip's InlineInterestingLinkProcessor): a
 * <div class="message_inline_image"> after the paragraph (inside the item for list items), none in
 * quotes, each URL once, none at all past 24 URLs. A paragraph that is only the bare URL is
 * replaced by the preview.
 */
const IMAGE_EXTENSIONS = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];
const VIDEO_EXTENSIONS = [".mp4", ".webm"];
const PREVIEW_LIMIT = 24;

interface FoundLink {
  href: string;
  title: string | null;
  /** Index of the paragraph_open token, and whether the paragraph holds only this bare link. */
  paragraph: number;
  alone: boolean;
}

function mediaKind(href: string): "image" | "video" | null {
  const path = urlPathLower(href);
  if (IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext))) return "image";
  if (VIDEO_EXTENSIONS.some((ext) => path.endsWith(ext))) return "video";
  return null;
}

function linksOf(children: Token[]): { href: string; text: string; bare: boolean }[] {
  const links: { href: string; text: string; bare: boolean }[] = [];
  for (let i = 0; i < children.length; i++) {
    if (children[i].type !== "link_open") continue;
    const inner = children[i + 1];
    const href = String(children[i].attrGet("href") ?? "");
    const text = inner?.type === "text" && children[i + 2]?.type === "link_close" ? inner.content : "";
    links.push({ href, text, bare: text === href || children[i].markup === "linkify" });
  }
  return links;
}

function previewHtml(env: RenderEnv, link: FoundLink, kind: "image" | "video"): string {
  const isUpload = uploadPathId(link.href, env.options.realmUrl) !== null;
  const src = isUpload || !env.options.mediaProxy ? link.href : env.options.mediaProxy(link.href);
  const title = link.title ? ` title="${escapeAttr(link.title)}"` : "";
  const a = `<a href="${escapeAttr(link.href)}"${title}>`;
  if (kind === "video") {
    return `<div class="message_inline_image message_inline_video">${a}<video preload="metadata" src="${escapeAttr(src)}"></video></a></div>`;
  }
  return `<div class="message_inline_image">${a}<img src="${escapeAttr(src)}"></a></div>`;
}

function previewsRule(state: StateCore): void {
  const env = renderEnv(state);
  const tokens = state.tokens;
  const found: FoundLink[] = [];
  let quoteDepth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    if (token.type !== "paragraph_open" || quoteDepth > 0) continue;
    const inline = tokens[i + 1];
    const links = linksOf(inline.children ?? []);
    const onlyChild = (inline.children ?? []).length === 3;
    for (const link of links) {
      found.push({ href: link.href, title: link.bare ? null : link.text || null, paragraph: i, alone: onlyChild && link.bare });
    }
  }
  const unique = new Set(found.map((link) => link.href));
  if (unique.size === 0 || unique.size > PREVIEW_LIMIT) return;

  const done = new Set<string>();
  const inserts = new Map<number, { html: string[]; remove: boolean }>();
  for (const link of found) {
    const kind = mediaKind(link.href);
    if (!kind || done.has(link.href)) continue;
    done.add(link.href);
    if (kind === "image") env.hasImage = true;
    const entry = inserts.get(link.paragraph) ?? { html: [], remove: false };
    entry.html.push(previewHtml(env, link, kind));
    entry.remove ||= link.alone;
    inserts.set(link.paragraph, entry);
  }
  // Apply from the end so earlier indexes stay valid.
  for (const [paragraph, entry] of [...inserts].sort(([a], [b]) => b - a)) {
    const html = new state.Token("zulip_html", "", 0);
    html.content = entry.html.join("");
    html.block = true;
    const hidden = tokens[paragraph].hidden;
    if (entry.remove && !hidden) tokens.splice(paragraph, 3, html);
    else if (entry.remove && hidden) tokens.splice(paragraph + 1, 1, html);
    else tokens.splice(paragraph + 3, 0, html);
  }
}

export function previewsPlugin(md: MarkdownIt): void {
  md.core.ruler.push("zulip_previews", previewsRule);
}
