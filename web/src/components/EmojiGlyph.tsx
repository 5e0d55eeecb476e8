import { emojiGlyph, ZULIP_EMOJI_URL } from "../emojiSearch.js";
import { realmEmoji } from "../state.js";

/**
 * An emoji as the app shows it anywhere (reaction chips, the picker, typeahead, statuses): a
 * Unicode emoji as its characters; a custom emoji or Zulip's `:zulip:` as its image; an emoji we
 * cannot draw (a deleted custom emoji, an unknown type) as `:name:`.
 */
export function EmojiGlyph({ name, code, type, url }: { name: string; code: string; type: string; url?: string }) {
  if (type === "unicode_emoji") return <>{emojiGlyph(code)}</>;
  const src =
    type === "zulip_extra_emoji" || type === "service_extra_emoji"
      ? ZULIP_EMOJI_URL
      : type === "realm_emoji"
        ? (url ?? realmEmoji.value.get(code)?.source_url)
        : undefined;
  return src ? <img class="emoji" src={src} alt={`:${name}:`} /> : <>{`:${name}:`}</>;
}
