import fs from "node:fs";
import type { Executor } from "../db/tx.js";
import { badRequest } from "./errors.js";
import { realmEmojiStore } from "../store/realmEmoji.js";

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

interface EmojiMaps {
  nameToCode: Map<string, string>;
  codeToName: Map<string, string>;
  extra: Map<string, string>;
}

let maps: EmojiMaps | undefined;

/**
 * The table, read on first use (an idle server, and one whose messages name no emoji, never holds
 * it), parsed without require() so that only the maps stay in memory, not also the parsed JSON.
 */
function emojiMaps(): EmojiMaps {
  if (maps) return maps;
  const table = JSON.parse(fs.readFileSync(new URL("./emojiTable.json", import.meta.url), "utf8")) as EmojiTable;
  return (maps = {
    nameToCode: new Map(Object.entries(table.nameToCode)),
    codeToName: new Map(Object.entries(table.codeToName)),
    extra: new Map(Object.entries(table.extra)),
  });
}

/**
 * Zulip's emoji_api.json (server_emoji_data_url): every Unicode emoji code with its names,
 * the canonical name first.
 */
export function emojiCodeToNames(): Record<string, string[]> {
  const { nameToCode, codeToName } = emojiMaps();
  const out: Record<string, string[]> = {};
  for (const [code, name] of codeToName) out[code] = [name];
  for (const [name, code] of nameToCode) if (out[code] && !out[code].includes(name)) out[code].push(name);
  return out;
}

/** The code of a Unicode emoji name or alias ("smile" → "1f642"), or undefined. */
export function emojiCodeForName(name: string): string | undefined {
  return emojiMaps().nameToCode.get(name);
}

/** The canonical name of a Unicode emoji code ("1f642" → "smile"), or undefined. */
export function canonicalNameForCode(code: string): string | undefined {
  return emojiMaps().codeToName.get(code);
}

/** Where Zulip's apps (and our rendered messages) load the image of the extra emoji `:zulip:`. */
export const ZULIP_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png";

/** Zulip's extra emoji (reaction_type "service_extra_emoji"): name → emoji_code. */
export function zulipExtraEmojiCode(name: string): string | undefined {
  return emojiMaps().extra.get(name);
}

/** Zulip's code for an emoji character sequence ("🙂" → "1f642", "#️⃣" → "0023-20e3"); no lookup. */
export function unicodeEmojiToCode(emoji: string): string {
  return Array.from(emoji.replaceAll("\uFE0F", ""), (ch) => ch.codePointAt(0)!.toString(16).padStart(4, "0")).join("-");
}

/**
 * Emoji namespaces. Our API spec names the built-in extra emoji "service_extra_emoji" (Zulip
 * calls it "zulip_extra_emoji"). We store the spec's name and accept Zulip's as an input alias;
 * Zulip's own clients are answered with Zulip's name (lib/clientDialect.ts), others with ours.
 */
export const REACTION_TYPES = ["unicode_emoji", "realm_emoji", "service_extra_emoji"] as const;
export type ReactionType = (typeof REACTION_TYPES)[number];
const REACTION_TYPE_ALIASES: Record<string, ReactionType> = { zulip_extra_emoji: "service_extra_emoji" };

/** A client's reaction_type with Zulip's name for the extra emoji mapped to ours. */
export function normalizeReactionType(type: string): string {
  return REACTION_TYPE_ALIASES[type] ?? type;
}

/**
 * An emoji name's current code and type in a realm (Zulip's get_emoji_data): an active custom
 * emoji wins over Zulip's extra emoji, which wins over a Unicode name.
 */
export async function getEmojiData(q: Executor, realmId: number, name: string): Promise<{ emoji_code: string; reaction_type: ReactionType }> {
  const custom = await realmEmojiStore.getActiveByName(q, realmId, name);
  if (custom) return { emoji_code: String(custom.id), reaction_type: "realm_emoji" };
  const extra = zulipExtraEmojiCode(name);
  if (extra !== undefined) return { emoji_code: extra, reaction_type: "service_extra_emoji" };
  const unicode = emojiCodeForName(name);
  if (unicode !== undefined) return { emoji_code: unicode, reaction_type: "unicode_emoji" };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Whether (name, code, type) names a usable emoji in the realm (Zulip's check_emoji_request). */
export async function checkEmojiRequest(q: Executor, realmId: number, name: string, code: string, type: string): Promise<void> {
  switch (normalizeReactionType(type)) {
    case "realm_emoji": {
      const custom = /^\d{1,15}$/.test(code) ? await realmEmojiStore.getById(q, realmId, Number(code)) : undefined;
      if (!custom) throw badRequest("Invalid custom emoji.");
      if (custom.name !== name) throw badRequest("Invalid custom emoji name.");
      if (custom.deactivated) throw badRequest("This custom emoji has been deactivated.");
      return;
    }
    case "service_extra_emoji":
      if (zulipExtraEmojiCode(code) === undefined) throw badRequest("Invalid emoji code.");
      if (name !== code) throw badRequest("Invalid emoji name.");
      return;
    case "unicode_emoji":
      if (canonicalNameForCode(code) === undefined) throw badRequest("Invalid emoji code.");
      if (emojiCodeForName(name) !== code) throw badRequest("Invalid emoji name.");
      return;
    default:
      throw badRequest("Invalid emoji type.");
  }
}
