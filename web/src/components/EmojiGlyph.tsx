import { useState } from "preact/hooks";
import { emojiImageUrl } from "../emojiImages.js";
import { emojiGlyph, ZULIP_EMOJI_URL } from "../emojiSearch.js";
import { realmEmoji, settings } from "../state.js";

/**
 * An emoji as the app shows it anywhere (reaction chips, the picker, typeahead, statuses): a
 * Unicode emoji as the image of the user's emoji set (loaded when near the viewport; the
 * characters if the image is missing) with its characters as hidden text, or as its characters
 * with the "text" set; a custom emoji
 * or Zulip's `:zulip:` as its image; an emoji we cannot draw (a deleted custom emoji, an unknown
 * type) as `:name:`.
 */
export function EmojiGlyph({
  name,
  code,
  type,
  url,
  deferImage = false,
}: {
  name: string;
  code: string;
  type: string;
  url?: string;
  /** Hold the set's image back (an empty box of its size) until the place showing it says it is in view. */
  deferImage?: boolean;
}) {
  const [broken, setBroken] = useState<string | null>(null);
  if (type === "unicode_emoji") {
    const image = emojiImageUrl(settings.value.emojiset as string | undefined, code);
    if (!image || broken === image) return <>{emojiGlyph(code)}</>;
    // The image for the eye; the characters for screen readers and the clipboard (emojiImages.ts).
    return (
      <>
        {deferImage ? (
          <span class="emoji unicode pending" aria-hidden="true" />
        ) : (
          <img class="emoji unicode" src={image} alt="" aria-hidden="true" loading="lazy" decoding="async" onError={() => setBroken(image)} />
        )}
        <span class="emoji-text">{emojiGlyph(code)}</span>
      </>
    );
  }
  const src =
    type === "zulip_extra_emoji" || type === "service_extra_emoji"
      ? ZULIP_EMOJI_URL
      : type === "realm_emoji"
        ? (url ?? realmEmoji.value.get(code)?.source_url)
        : undefined;
  return src ? <img class="emoji" src={src} alt={`:${name}:`} /> : <>{`:${name}:`}</>;
}
