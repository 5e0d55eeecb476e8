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
 * A Unicode emoji as the image of its set, loaded when it nears the viewport, and its character(s)
 * in text that only screen readers and the clipboard get (so a copied message still has its
 * emoji, and the text of the page is what was written). A browser that cannot load the image (an
 * emoji newer than the set) shows the characters instead; `onMissing` hears of it.
 */
export function emojiImage(src: string, glyph: string, onMissing?: () => void): DocumentFragment {
  const img = document.createElement("img");
  img.className = "emoji-image"; // not "emoji": that names the span around it
  img.loading = "lazy";
  img.decoding = "async";
  img.alt = "";
  img.setAttribute("aria-hidden", "true");
  img.src = src;
  const text = document.createElement("span");
  text.className = "emoji-text";
  text.textContent = glyph;
  img.addEventListener(
    "error",
    () => {
      onMissing?.();
      img.remove();
      text.replaceWith(glyph);
    },
    { once: true },
  );
  const fragment = document.createDocumentFragment();
  fragment.append(img, text);
  return fragment;
}
