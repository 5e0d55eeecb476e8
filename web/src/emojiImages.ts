import "./emojiImages.css";

/**
 * Where the image of a Unicode emoji is, for the user's emoji set: Zulip's paths,
 * `/static/generated/emoji/images-<set>-64/<code>.png`, served by the server from the
 * emoji-datasource-google and -twitter packages (src/http/emojiImages.ts). "google-blob" (Zulip's
 * older Google set, in no maintained package) is drawn with Google's current images; "text" has
 * no image (null).
 */
export function emojiImageUrl(emojiset: string | undefined, code: string): string | null {
  if (emojiset === "text") return null;
  const set = emojiset === "twitter" ? "twitter" : "google";
  return `/static/generated/emoji/images-${set}-64/${code}.png`;
}

/**
 * An `<img>` of a Unicode emoji, loaded when it nears the viewport. A browser that cannot load it
 * (an emoji newer than the image set) shows the character instead.
 */
export function emojiImage(src: string, name: string, glyph: string): HTMLImageElement {
  const img = document.createElement("img");
  img.className = "emoji";
  img.loading = "lazy";
  img.decoding = "async";
  img.alt = `:${name}:`;
  img.src = src;
  img.addEventListener(
    "error",
    () => {
      if (img.parentElement) img.parentElement.dataset.missing = src;
      img.replaceWith(glyph);
    },
    { once: true },
  );
  return img;
}
