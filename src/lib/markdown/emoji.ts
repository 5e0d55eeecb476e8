import type { MarkdownIt, StateInline } from "markdown-it";
import { canonicalNameForCode, emojiCodeForName, unicodeEmojiToCode, ZULIP_EMOJI_URL, zulipExtraEmojiCode } from "../emoji.js";
import { escapeAttr, escapeText } from "./escape.js";
import { type RenderEnv, renderEnv } from "./types.js";
import { defined, group } from "../../util/defined.js";

/** :name: emoji (realm emoji, Zulip's extra emoji, Unicode names) and Unicode emoji characters. */
export const EMOJI_NAME_RE = /^:([\p{L}\p{N}_\-+]+):/u;

function unicodeEmojiSpan(code: string, name: string): string {
  const title = escapeAttr(name.replaceAll("_", " "));
  return `<span aria-label="${title}" class="emoji emoji-${escapeAttr(code)}" role="img" title="${title}">:${escapeText(name)}:</span>`;
}

function imageEmoji(src: string, name: string): string {
  return `<img alt=":${escapeAttr(name)}:" class="emoji" src="${escapeAttr(src)}" title="${escapeAttr(name.replaceAll("_", " "))}">`;
}

function emojiHtmlForName(env: RenderEnv, name: string): string | null {
  const realm = env.refs.realmEmoji.get(name);
  if (realm && !realm.deactivated) return imageEmoji(realm.source_url, name);
  if (zulipExtraEmojiCode(name)) return imageEmoji(ZULIP_EMOJI_URL, name);
  const code = emojiCodeForName(name);
  return code ? unicodeEmojiSpan(code, name) : null;
}

function emojiNameRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  const m = EMOJI_NAME_RE.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  // An unknown :name: is consumed as text, as Zulip's pattern does, so its closing colon
  // cannot open another emoji.
  if (!silent) {
    const html = emojiHtmlForName(renderEnv(state), group(m, 1));
    if (html) state.push("zulip_html", "", 0).content = html;
    else state.pending += m[0];
  }
  state.pos += m[0].length;
  return true;
}

/** Unicode's emoji sequence grammar (UTS #51), as Zulip's POSSIBLE_EMOJI_RE. */
const ELEMENT = String.raw`(?:\p{RI}\p{RI}|\p{Emoji}(?:\p{EMod}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?)`;
export const UNICODE_EMOJI_RE = new RegExp(`${ELEMENT}(?:\\u200D${ELEMENT})*`, "gu");
const TEXT_PRESENTATION_RE = /^\P{Emoji_Presentation}\u20E3?$/u;

/** The emoji span for a matched sequence, or null (text-style symbols, unknown sequences). */
export function unicodeEmojiHtml(sequence: string): string | null {
  if (TEXT_PRESENTATION_RE.test(sequence)) return null;
  const code = unicodeEmojiToCode(sequence);
  const name = canonicalNameForCode(code);
  return name ? unicodeEmojiSpan(code, name) : null;
}

/** Zulip's emoticon translations (translate_emoticons setting). */
const EMOTICONS: Record<string, string> = {
  ":)": "smile",
  "(:": "smile",
  ":(": "frown",
  "<3": "heart",
  ":|": "neutral",
  ":/": "confused",
  ";)": "wink",
  ":D": "grinning",
  ":o": "open_mouth",
  ":O": "open_mouth",
  ":p": "stuck_out_tongue",
  ":P": "stuck_out_tongue",
};
const TERMINALS = String.raw`,.;?!()\[\] "'\n\t`;
export const EMOTICON_RE = new RegExp(
  `(?<![^${TERMINALS}])(${Object.keys(EMOTICONS)
    .map((e) => e.replace(/[()|/]/g, "\\$&"))
    .join("|")})(?![^${TERMINALS}])`,
  "g",
);

export function emoticonHtml(emoticon: string): string {
  const name = defined(EMOTICONS[emoticon], `emoticon ${emoticon}`);
  return unicodeEmojiSpan(emojiCodeForName(name)!, name);
}

export function emojiPlugin(md: MarkdownIt): void {
  md.inline.ruler.push("zulip_emoji", emojiNameRule);
}
