import { createRequire } from "node:module";
import type markdownItModule from "markdown-it";
import type { MarkdownIt } from "markdown-it";
import { autolinkPlugin } from "./autolink.js";
import { backticksPlugin } from "./backticks.js";
import { emojiPlugin } from "./emoji.js";
import { emphasisPlugin } from "./emphasis.js";
import { escapeText } from "./escape.js";
import { fencesPlugin } from "./fences.js";
import { linkifiersPlugin } from "./linkifiers.js";
import { linksPlugin } from "./links.js";
import { listsPlugin } from "./lists.js";
import { mentionsPlugin } from "./mentions.js";
import { previewsPlugin } from "./previews.js";
import { quotesPlugin } from "./quotes.js";
import { streamLinksPlugin } from "./streamLinks.js";
import { texPlugin } from "./tex.js";
import { timePlugin } from "./time.js";
import { tokenAt } from "./blockLines.js";

/** Deeper structure than this (quotes in lists in quotes…) is rendered as plain text. */
const MAX_NESTING = 32;

/**
 * The markdown-it instance with Zulip's dialect. Raw HTML is off, so every "<" in the source is
 * escaped; the only verbatim HTML is "zulip_html" tokens, which the plugins build from escaped
 * parts.
 */
export function buildEngine(): MarkdownIt {
  // Loaded here, on first use (its CommonJS build, as rendering is synchronous): an idle server
  // does not need it.
  const markdownIt = createRequire(import.meta.url)("markdown-it") as typeof markdownItModule;
  const md = markdownIt("default", { html: false, linkify: false, typographer: false, breaks: true, maxNesting: MAX_NESTING });
  md.block.ruler.disable(["lheading", "html_block"]);
  md.inline.ruler.disable(["html_inline", "escape"]);
  md.renderer.rules.text = (tokens, idx) => escapeText(tokenAt(tokens, idx).content);
  md.renderer.rules.code_inline = (tokens, idx) => `<code>${escapeText(tokenAt(tokens, idx).content)}</code>`;
  md.renderer.rules.zulip_html = (tokens, idx) => tokenAt(tokens, idx).content;
  for (const plugin of [
    listsPlugin,
    fencesPlugin,
    quotesPlugin,
    backticksPlugin,
    emphasisPlugin,
    mentionsPlugin,
    texPlugin,
    streamLinksPlugin,
    timePlugin,
    linksPlugin,
    emojiPlugin,
    autolinkPlugin,
    linkifiersPlugin,
    previewsPlugin,
  ]) {
    md.use(plugin);
  }
  return md;
}
