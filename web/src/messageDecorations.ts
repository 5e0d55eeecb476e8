/**
 * Passes over rendered message HTML that follow the user's settings: how emoji are drawn
 * (emojiset) and the user's alert words (Zulip's alert_words.process_message).
 */

/**
 * The server writes a Unicode emoji as `<span class="emoji emoji-1f389" title="tada">:tada:</span>`
 * (Zulip's web app draws it from a sprite sheet); the app shows the character itself, or the
 * `:name:` text when the emoji set is "text" (Plain text). Either way can be switched back.
 */
export function showEmoji(root: HTMLElement, asText: boolean): void {
  root.querySelectorAll<HTMLElement>(".content span.emoji").forEach((span) => {
    const code = /\bemoji-([0-9a-f]+(?:-[0-9a-f]+)*)\b/.exec(span.className)?.[1];
    if (!code) return;
    span.dataset.name ??= span.textContent?.startsWith(":") ? span.textContent : `:${span.title || code}:`;
    if (asText) {
      span.textContent = span.dataset.name;
      return;
    }
    try {
      span.textContent = String.fromCodePoint(...code.split("-").map((hex) => parseInt(hex, 16)));
    } catch {
      span.textContent = span.dataset.name;
    }
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
      const start = match.index + match[1].length;
      fragment.append(text.slice(last, start));
      const mark = document.createElement("span");
      mark.className = "alert-word";
      mark.textContent = match[2];
      fragment.append(mark);
      last = start + match[2].length;
    }
    fragment.append(text.slice(last));
    node.replaceWith(fragment);
  }
}
