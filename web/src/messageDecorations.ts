import { emojiImage, emojiImageUrl } from "./emojiImages.js";
import { settings } from "./state.js";

/**
 * Passes over rendered message HTML that follow the user's settings: how emoji are drawn
 * (emojiset) and the user's alert words (Zulip's alert_words.process_message); and KaTeX's
 * stylesheet, fetched when the first message with math is shown.
 */

let mathStyle: Promise<unknown> | null = null;

/** Loads KaTeX's stylesheet and fonts (a chunk of their own) once `root` shows math. */
function loadMathStyle(root: ParentNode): void {
  if (mathStyle || !root.querySelector(".katex")) return;
  mathStyle = import("./katexStyle.js").catch(() => {
    mathStyle = null; // a later render tries again
  });
}

/**
 * The server writes a Unicode emoji as `<span class="emoji emoji-1f389" title="tada">:tada:</span>`
 * (Zulip's web app draws it from a sprite sheet); the app shows the image of the user's emoji set
 * (google, twitter; google-blob draws as google) in the span, loaded lazily, or the `:name:` text
 * when the emoji set is "text" (Plain text). Either way can be switched back. Also loads KaTeX's
 * stylesheet when `root` has math (this pass runs on every render of the message list).
 */
export function showEmoji(root: HTMLElement, asText: boolean): void {
  loadMathStyle(root);
  const emojiset = asText ? "text" : ((settings.value.emojiset as string | undefined) ?? "google");
  root.querySelectorAll<HTMLElement>(".content span.emoji").forEach((span) => {
    const code = /\bemoji-([0-9a-f]+(?:-[0-9a-f]+)*)\b/.exec(span.className)?.[1];
    if (!code) return;
    span.dataset.name ??= span.textContent?.startsWith(":") ? span.textContent : `:${span.title || code}:`;
    let glyph: string;
    try {
      glyph = String.fromCodePoint(...code.split("-").map((hex) => parseInt(hex, 16)));
    } catch {
      span.textContent = span.dataset.name;
      return;
    }
    const src = emojiImageUrl(emojiset, code);
    if (!src) {
      span.textContent = span.dataset.name;
      return;
    }
    if (span.dataset.missing === src) {
      span.textContent = glyph; // the set has no image of it
      return;
    }
    const shown = span.firstElementChild;
    if (shown instanceof HTMLImageElement && shown.getAttribute("src") === src) return;
    span.replaceChildren(emojiImage(src, glyph, () => (span.dataset.missing = src)));
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Wraps the user's alert words in `<span class="alert-word">` inside the message text (not in
 * links, code or mentions), as whole words, any case. Already marked text is left alone.
 */
export function markAlertWords(content: HTMLElement, words: readonly string[]): void {
  const usable = words.filter((w) => w.trim() !== "");
  if (usable.length === 0 || content.querySelector(".alert-word")) return;
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])(${usable.map(escapeRegExp).join("|")})(?=$|[^\\p{L}\\p{N}_])`, "giu");
  const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement?.closest("a, code, pre, .user-mention, .user-group-mention, .emoji") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const nodes: Text[] = [];
  while (walker.nextNode()) nodes.push(walker.currentNode as Text);
  for (const node of nodes) {
    const text = node.data;
    pattern.lastIndex = 0;
    if (!pattern.test(text)) continue;
    pattern.lastIndex = 0;
    const fragment = document.createDocumentFragment();
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      const start = match.index + match[1]!.length;
      fragment.append(text.slice(last, start));
      const mark = document.createElement("span");
      mark.className = "alert-word";
      mark.textContent = match[2]!;
      fragment.append(mark);
      last = start + match[2]!.length;
    }
    fragment.append(text.slice(last));
    node.replaceWith(fragment);
  }
}
