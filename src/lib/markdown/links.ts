import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { renderEnv } from "./types.js";
import { rewriteLocalLink, sanitizeUrl } from "./urls.js";

/**
 * [text](url) links: hrefs pass Zulip's sanitize_url (allow-listed schemes, http:// added when
 * missing) or the link stays plain text; links into the realm become relative; an empty text
 * shows the href. No reference links, no images, no <url> autolinks (auto-linking is ours).
 */
function fixLinks(state: StateCore): void {
  const env = renderEnv(state);
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const children = block.children;
    for (const [i, token] of children.entries()) {
      if (token.type !== "link_open" || token.markup === "linkify") continue;
      const href = sanitizeUrl(String(token.attrGet("href") ?? "")) ?? "";
      const rewritten = rewriteLocalLink(href, env.options.realmUrl);
      token.attrSet("href", rewritten);
      let close = i + 1;
      while (close < children.length && children[close]?.type !== "link_close") close++;
      const inner = children.slice(i + 1, close);
      if (inner.every((t: Token) => t.type === "text" && t.content.trim() === "")) {
        const text = new state.Token("text", "", 0);
        text.content = rewritten;
        children.splice(i + 1, close - i - 1, text);
      }
    }
  }
}

export function linksPlugin(md: MarkdownIt): void {
  md.validateLink = (url: string) => sanitizeUrl(url.trim()) !== null;
  md.normalizeLink = (url: string) => url;
  md.normalizeLinkText = (url: string) => url;
  md.block.ruler.disable(["reference"]);
  md.inline.ruler.disable(["image", "autolink", "linkify"]);
  md.core.ruler.after("inline", "zulip_links", fixLinks);
}
