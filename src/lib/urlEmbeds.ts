import type * as htmlparser2 from "htmlparser2";
import { lazyRequire } from "../util/lazy.js";
import type { UrlEmbed } from "./markdown/types.js";
import { OutgoingHttpError, requestOutgoing } from "./outgoingHttp.js";

/** Loaded when the first page is parsed for its preview. */
const loadHtmlParser = lazyRequire<typeof htmlparser2>("htmlparser2");

/**
 * What a link's page says about itself, for website previews (Zulip's get_link_embed_data):
 * oEmbed when the page announces it (videos and photos: YouTube, Vimeo, ...), else its Open
 * Graph tags, else its <title> and meta description. Fetched through the outgoing-HTTP guard.
 */
const PAGE_BYTES = 512 * 1024;
const OEMBED_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;

interface PageHead {
  og: Record<string, string>;
  title: string | null;
  description: string | null;
  oembed: string | null;
}

export async function fetchUrlEmbed(url: string, allowHosts: readonly string[]): Promise<UrlEmbed | null> {
  let page;
  try {
    page = await requestOutgoing({
      method: "GET",
      url,
      headers: { Accept: "text/html,application/xhtml+xml" },
      timeoutMs: TIMEOUT_MS,
      allowHosts,
      maxBytes: PAGE_BYTES,
      maxRedirects: 3,
    });
  } catch (error) {
    if (error instanceof OutgoingHttpError || error instanceof TypeError) return null;
    throw error;
  }
  const type = (String(page.headers["content-type"] ?? "").split(";")[0] ?? "").trim().toLowerCase();
  if (page.status !== 200 || (type !== "text/html" && type !== "application/xhtml+xml")) return null;
  const head = parseHead(page.body.toString("utf8"));
  if (head.oembed) {
    const embed = await fetchOembed(new URL(head.oembed, page.url).toString(), allowHosts);
    if (embed) return embed;
  }
  const image = head.og["og:image"];
  return {
    type: "page",
    title: head.og["og:title"] || head.title,
    description: head.og["og:description"] || head.description,
    image: image ? absolute(image, page.url) : null,
    html: null,
  };
}

/** The <head>'s meta tags, title and oEmbed discovery link; parsing stops at <body>. */
function parseHead(html: string): PageHead {
  const head: PageHead = { og: {}, title: null, description: null, oembed: null };
  let inTitle = false;
  let title = "";
  const parser = new (loadHtmlParser().Parser)(
    {
      onopentag(name, attrs) {
        if (name === "body") parser.pause();
        else if (name === "title") inTitle = true;
        else if (name === "meta") {
          const key = (attrs.property ?? attrs.name ?? "").toLowerCase();
          if (key.startsWith("og:") && attrs.content !== undefined && !(key in head.og)) head.og[key] = attrs.content.trim();
          if (key === "description" && attrs.content) head.description ??= attrs.content.trim();
        } else if (name === "link" && attrs.type === "application/json+oembed" && /\balternate\b/i.test(attrs.rel ?? "") && attrs.href) {
          head.oembed ??= attrs.href;
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  head.title = title.trim() || null;
  return head;
}

async function fetchOembed(endpoint: string, allowHosts: readonly string[]): Promise<UrlEmbed | null> {
  try {
    const response = await requestOutgoing({
      method: "GET",
      url: endpoint,
      headers: { Accept: "application/json" },
      timeoutMs: TIMEOUT_MS,
      allowHosts,
      maxBytes: OEMBED_BYTES,
      maxRedirects: 3,
    });
    if (response.status !== 200 || response.truncated) return null;
    const data = JSON.parse(response.body.toString("utf8")) as Record<string, unknown>;
    const text = (key: string) => (typeof data[key] === "string" && data[key] !== "" ? (data[key] as string) : null);
    if (data.type === "video")
      return { type: "video", title: text("title"), description: text("description"), image: text("thumbnail_url"), html: text("html") };
    if (data.type === "photo") return { type: "photo", title: text("title"), description: null, image: text("url"), html: null };
    return null;
  } catch (error) {
    if (error instanceof OutgoingHttpError || error instanceof SyntaxError || error instanceof TypeError) return null;
    throw error;
  }
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : null;
  } catch {
    return null;
  }
}
