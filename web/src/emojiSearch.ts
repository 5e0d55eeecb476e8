/**
 * The emoji picker's catalogue and search, as Zulip's typeahead matches emoji: a query matches a
 * name (or alias) that starts with it, or one of whose "_"-separated words starts with it; exact
 * names first, then prefixes of the whole name, then of a word. Pure: the tables are passed in.
 */
export interface EmojiTable {
  nameToCode: Record<string, string>;
  codeToName: Record<string, string>;
  /** Zulip's own emoji outside Unicode (`zulip`): name → code. */
  extra?: Record<string, string>;
}

/** Where Zulip's clients (and the server's rendered messages) load the `:zulip:` emoji's image. */
export const ZULIP_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png";

export interface Emoji {
  name: string;
  /** Unicode: Zulip's code ("1f44d"); custom: the realm emoji id; Zulip's extra emoji: its name. */
  code: string;
  type: "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";
  /** The image of a custom emoji or of Zulip's extra emoji. */
  url?: string;
}

export interface Catalogue {
  /** Every emoji once, under its canonical name, in the picker's order. */
  all: Emoji[];
  /** Every name and alias with its emoji. */
  names: Array<{ name: string; emoji: Emoji }>;
}

/** Smileys and people first, then by code point. */
function order(code: string): number {
  const first = parseInt(code.split("-")[0]!, 16);
  if (first >= 0x1f600 && first <= 0x1f64f) return first - 0x100000;
  if (first >= 0x1f910 && first <= 0x1f9ff) return first - 0x80000;
  return first;
}

export function buildCatalogue(table: EmojiTable, custom: Array<{ id: string; name: string; source_url: string; deactivated: boolean }>): Catalogue {
  const byCode = new Map<string, Emoji>();
  const codes = Object.keys(table.codeToName).sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const all: Emoji[] = [];
  const names: Catalogue["names"] = [];
  for (const e of custom) {
    if (e.deactivated) continue;
    const emoji: Emoji = { name: e.name, code: e.id, type: "realm_emoji", url: e.source_url };
    all.push(emoji);
    names.push({ name: e.name, emoji });
  }
  const customNames = new Set(names.map((n) => n.name));
  // Zulip's extra emoji (:zulip:) after the custom ones, unless a custom emoji took its name.
  for (const [name, code] of Object.entries(table.extra ?? {})) {
    if (customNames.has(name)) continue;
    const emoji: Emoji = { name, code, type: "zulip_extra_emoji", url: ZULIP_EMOJI_URL };
    all.push(emoji);
    names.push({ name, emoji });
  }
  for (const code of codes) {
    const emoji: Emoji = { name: table.codeToName[code]!, code, type: "unicode_emoji" };
    byCode.set(code, emoji);
    // A custom emoji of the same name replaces the Unicode one (as in Zulip).
    if (!customNames.has(emoji.name)) all.push(emoji);
  }
  for (const [name, code] of Object.entries(table.nameToCode)) {
    const emoji = byCode.get(code);
    if (emoji && !customNames.has(name)) names.push({ name, emoji: name === emoji.name ? emoji : { ...emoji, name } });
  }
  return { all, names };
}

/** Emoji matching `query` (each emoji once, under the best-matching name), at most `limit`. */
export function searchEmoji(catalogue: Catalogue, query: string, limit = 200): Emoji[] {
  const q = query.trim().toLowerCase().replace(/^:|:$/g, "").replace(/ /g, "_");
  if (q === "") return catalogue.all.slice(0, limit);
  const ranked: Array<{ rank: number; emoji: Emoji }> = [];
  for (const { name, emoji } of catalogue.names) {
    let rank = -1;
    if (name === q) rank = 0;
    else if (name.startsWith(q)) rank = 1;
    else if (name.split(/[_-]/).some((word) => word.startsWith(q))) rank = 2;
    if (rank >= 0) ranked.push({ rank, emoji });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.emoji.name.length - b.emoji.name.length || a.emoji.name.localeCompare(b.emoji.name));
  const seen = new Set<string>();
  const out: Emoji[] = [];
  for (const { emoji } of ranked) {
    const key = `${emoji.type}:${emoji.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(emoji);
    if (out.length >= limit) break;
  }
  return out;
}

/** The character(s) of a Unicode emoji code. */
export function emojiGlyph(code: string): string {
  return String.fromCodePoint(...code.split("-").map((hex) => parseInt(hex, 16)));
}
