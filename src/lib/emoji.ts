import { createRequire } from "node:module";

/**
 * Zulip's emoji names and code points. The table is generated from Zulip's emoji_names data by
 * scripts/generate-emoji-table.mjs (never edited by hand). Codes are Zulip's: lowercase hex code
 * points joined by "-", without variation selector U+FE0F ("1f642", "0023-20e3").
 */
interface EmojiTable {
  nameToCode: Record<string, string>;
  codeToName: Record<string, string>;
  extra: Record<string, string>;
}

const table = createRequire(import.meta.url)("./emojiTable.json") as EmojiTable;
const nameToCode = new Map(Object.entries(table.nameToCode));
const codeToName = new Map(Object.entries(table.codeToName));
const extraEmoji = new Map(Object.entries(table.extra));

/** The code of a Unicode emoji name or alias ("smile" → "1f642"), or undefined. */
export function emojiCodeForName(name: string): string | undefined {
  return nameToCode.get(name);
}

/** The canonical name of a Unicode emoji code ("1f642" → "smile"), or undefined. */
export function canonicalNameForCode(code: string): string | undefined {
  return codeToName.get(code);
}

/** Zulip's extra emoji (reaction_type "zulip_extra_emoji"): name → emoji_code. */
export function zulipExtraEmojiCode(name: string): string | undefined {
  return extraEmoji.get(name);
}

/** Zulip's code for an emoji character sequence ("🙂" → "1f642", "#️⃣" → "0023-20e3"); no lookup. */
export function unicodeEmojiToCode(emoji: string): string {
  return Array.from(emoji.replaceAll("\uFE0F", ""), (ch) => ch.codePointAt(0)!.toString(16).padStart(4, "0")).join("-");
}

/** The character sequence of a code ("1f642" → "🙂"). */
export function codeToUnicodeEmoji(code: string): string {
  return String.fromCodePoint(...code.split("-").map((part) => parseInt(part, 16)));
}
