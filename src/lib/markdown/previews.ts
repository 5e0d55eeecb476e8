import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { escapeAttr, escapeText } from "./escape.js";
import { type RenderEnv, renderEnv, type UrlEmbed } from "./types.js";
import { uploadPathId, urlPathLower } from "./urls.js";
import { tokenAt } from "./blockLines.js";

/**
 * Inline previews for links to images and videos (Zulip's InlineInterestingLinkProcessor): a
 * <div class="message_inline_image"> after the paragraph (inside the item for list items), none in
 * quotes, each URL once, none at all past 24 URLs. A paragraph that is only the bare URL is
 * replaced by the preview.
 */
const IMAGE_EXTENSIONS = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];
const VIDEO_EXTENSIONS = [".mp4", ".webm"];
/** What Python's mimetypes.guess_type calls audio/* (Zulip's audio players). */
const AUDIO_EXTENSIONS = [".aac", ".flac", ".m4a", ".mp3", ".oga", ".ogg", ".opus", ".wav", ".weba"];
const PREVIEW_LIMIT = 24;

interface FoundLink {
  href: string;
  title: string | null;
  /** Index of the paragraph_open token, and whether the paragraph holds only this bare link. */
  paragraph: number;
  alone: boolean;
}

type PreviewKind = "image" | "video" | "youtube";

function mediaKind(href: string): PreviewKind | null {
  const path = urlPathLower(href);
  if (IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext))) return "image";
  if (VIDEO_EXTENSIONS.some((ext) => path.endsWith(ext))) return "video";
  if (youtubeId(href) !== null) return "youtube";
  return null;
}

const YOUTUBE_HOSTS = new Set(["m.youtube.com", "www.youtube.com", "www.youtube-nocookie.com", "youtube.com", "youtube-nocookie.com"]);

/** The video id of a YouTube link (Zulip's youtube_id), or null. */
function youtubeId(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  let id: string | null = null;
  if (YOUTUBE_HOSTS.has(url.hostname)) {
    if ((url.pathname === "/watch" || url.pathname === "/watch_popup") && url.searchParams.has("v")) id = url.searchParams.get("v");
    else if (url.pathname === "/watch_videos" && url.searchParams.has("video_ids")) id = url.searchParams.get("video_ids")?.split(",")[0] ?? null;
    else if (/^\/(embed|shorts|v)\//.test(url.pathname)) id = url.pathname.split("/")[2] ?? null;
  } else if (url.hostname === "youtu.be") {
    id = url.pathname.slice(1);
  }
  return id !== null && /^[0-9A-Za-z_-]+$/.test(id) ? id : null;
}

function isAudioUrl(href: string): boolean {
  const path = urlPathLower(href);
  return AUDIO_EXTENSIONS.some((ext) => path.endsWith(ext));
}

function linksOf(children: Token[]): { href: string; text: string; bare: boolean }[] {
  const links: { href: string; text: string; bare: boolean }[] = [];
  for (const [i, open] of children.entries()) {
    if (open.type !== "link_open") continue;
    const inner = children[i + 1];
    const href = String(open.attrGet("href") ?? "");
    const text = inner?.type === "text" && children[i + 2]?.type === "link_close" ? inner.content : "";
    links.push({ href, text, bare: text === href || open.markup === "linkify" });
  }
  return links;
}

function previewHtml(env: RenderEnv, link: FoundLink, kind: PreviewKind): string {
  if (kind === "youtube") {
    // Zulip's handle_youtube_url_inlining: the thumbnail, through the media proxy.
    const id = youtubeId(link.href)!;
    const thumbnail = proxied(env, `https://i.ytimg.com/vi/${id}/default.jpg`);
    return `<div class="youtube-video message_inline_image"><a data-id="${escapeAttr(id)}" href="${escapeAttr(link.href)}"><img src="${escapeAttr(thumbnail)}"></a></div>`;
  }
  const isUpload = uploadPathId(link.href, env.options.realmUrl) !== null;
  const src = isUpload ? link.href : proxied(env, link.href);
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
  for (const [i, token] of tokens.entries()) {
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    if (token.type !== "paragraph_open" || quoteDepth > 0) continue;
    // A paragraph_open is always followed by its inline token.
    const children = tokens[i + 1]?.children ?? [];
    const links = linksOf(children);
    const onlyChild = children.length === 3;
    for (const link of links) {
      found.push({ href: link.href, title: link.bare ? null : link.text || null, paragraph: i, alone: onlyChild && link.bare });
    }
  }
  const unique = new Set(found.map((link) => link.href));
  if (unique.size === 0 || unique.size > PREVIEW_LIMIT) return;

  const done = new Set<string>();
  const inserts = new Map<number, { html: string[]; remove: boolean }>();
  const embeds: string[] = [];
  for (const link of found) {
    if (done.has(link.href)) continue;
    done.add(link.href);
    const kind = mediaKind(link.href);
    if (kind !== "image" && kind !== "video") websitePreview(env, state, link, kind === "youtube", embeds);
    if (!kind) continue;
    if (kind === "image" || kind === "youtube") env.hasImage = true;
    const entry = inserts.get(link.paragraph) ?? { html: [], remove: false };
    entry.html.push(previewHtml(env, link, kind));
    // A YouTube link stays: only the thumbnail is added.
    entry.remove ||= link.alone && kind !== "youtube";
    inserts.set(link.paragraph, entry);
  }
  // Website previews go at the end of the message (Zulip's add_embed appends to the root).
  if (embeds.length > 0) {
    const html = new state.Token("zulip_html", "", 0);
    html.content = embeds.join("");
    html.block = true;
    tokens.push(html);
  }
  // Apply from the end so earlier indexes stay valid.
  for (const [paragraph, entry] of [...inserts].sort(([a], [b]) => b - a)) {
    const html = new state.Token("zulip_html", "", 0);
    html.content = entry.html.join("");
    html.block = true;
    const hidden = tokenAt(tokens, paragraph).hidden;
    if (entry.remove && !hidden) tokens.splice(paragraph, 3, html);
    else if (entry.remove && hidden) tokens.splice(paragraph + 1, 1, html);
    else tokens.splice(paragraph + 3, 0, html);
  }
}

/**
 * The website preview of an external link (Zulip's url_embed_data part of
 * InlineInterestingLinkProcessor): links not looked at yet are reported for the preview job; a
 * YouTube or oEmbed-video link shown by its bare URL gets the video's title as its text.
 */
function websitePreview(env: RenderEnv, state: StateCore, link: FoundLink, isYoutube: boolean, embeds: string[]): void {
  if (!isExternalHttp(link.href, env.options.realmUrl)) return;
  const known = env.options.urlEmbeds;
  if (!known?.has(link.href)) {
    env.linksForPreview.push(link.href);
    return;
  }
  const embed = known.get(link.href);
  if (!embed) return;
  if (isYoutube) {
    if (embed.title) retitleBareLink(state, link, `YouTube - ${embed.title}`);
    return;
  }
  const html = embedHtml(env, link.href, embed);
  if (html) embeds.push(html);
  if (embed.type === "video" && embed.title && /^https?:\/\/(www\.)?vimeo\.com\//.test(link.href)) retitleBareLink(state, link, `Vimeo - ${embed.title}`);
}

function isExternalHttp(href: string, realmUrl: string | undefined): boolean {
  try {
    const url = new URL(href);
    return (url.protocol === "http:" || url.protocol === "https:") && (!realmUrl || url.host !== new URL(realmUrl).host);
  } catch {
    return false;
  }
}

/** Zulip's add_embed / add_oembed_data: nothing without an image. */
function embedHtml(env: RenderEnv, href: string, embed: UrlEmbed): string | null {
  if (!embed.image) return null;
  const image = proxied(env, embed.image);
  const title = embed.title ? ` title="${escapeAttr(embed.title)}"` : "";
  if (embed.type === "photo") {
    return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${title}><img src="${escapeAttr(image)}"></a></div>`;
  }
  if (embed.type === "video") {
    const dataId = embed.html ? ` data-id="${escapeAttr(embed.html)}"` : "";
    return `<div class="embed-video message_inline_image"><a href="${escapeAttr(href)}"${title}${dataId}><img src="${escapeAttr(image)}"></a></div>`;
  }
  const style = `background-image: url("${image.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\a ")}")`;
  const parts = [
    `<div class="message_embed"><a class="message_embed_image" href="${escapeAttr(href)}" style="${escapeAttr(style)}"></a><div class="data-container">`,
  ];
  if (embed.title)
    parts.push(`<div class="message_embed_title"><a href="${escapeAttr(href)}" title="${escapeAttr(embed.title)}">${escapeText(embed.title)}</a></div>`);
  if (embed.description) parts.push(`<div class="message_embed_description">${escapeText(embed.description)}</div>`);
  parts.push("</div></div>");
  return parts.join("");
}

/** The first link to `link.href` that shows its own URL gets `title` as its text instead. */
function retitleBareLink(state: StateCore, link: FoundLink, title: string): void {
  const children = state.tokens[link.paragraph + 1]?.children ?? [];
  for (const [i, open] of children.entries()) {
    if (open.type !== "link_open" || open.attrGet("href") !== link.href) continue;
    const text = children[i + 1];
    if (text?.type === "text" && text.content === link.href && children[i + 2]?.type === "link_close") text.content = title;
    return;
  }
}

function proxied(env: RenderEnv, url: string): string {
  return env.options.mediaProxy ? env.options.mediaProxy(url) : url;
}

/**
 * `![title](url)` of an audio file becomes Zulip's audio player (Zulip 11's inline audio; the
 * `!` is otherwise plain text before a link, as in Zulip 10).
 */
function audioRule(state: StateCore): void {
  const env = renderEnv(state);
  for (const block of state.tokens) {
    const children = block.type === "inline" ? block.children : null;
    if (!children) continue;
    for (const [i, open] of children.entries()) {
      const before = children[i - 1];
      if (open.type !== "link_open" || open.markup === "linkify" || before?.type !== "text" || !before.content.endsWith("!")) continue;
      const href = String(open.attrGet("href") ?? "");
      if (!isAudioUrl(href)) continue;
      let close = i + 1;
      while (close < children.length && children[close]?.type !== "link_close") close++;
      const title = children
        .slice(i + 1, close)
        .map((t) => t.content)
        .join("");
      const src = uploadPathId(href, env.options.realmUrl) !== null ? href : proxied(env, href);
      const player = new state.Token("zulip_html", "", 0);
      player.content = `<audio controls preload="metadata" src="${escapeAttr(src)}" title="${escapeAttr(title)}"></audio>`;
      children.splice(i, close - i + 1, player);
      before.content = before.content.slice(0, -1);
    }
  }
}

export function previewsPlugin(md: MarkdownIt): void {
  md.core.ruler.push("zulip_audio", audioRule);
  md.core.ruler.push("zulip_previews", previewsRule);
}
