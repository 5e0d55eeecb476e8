/**
 * A keydown event as a shortcut name, with Zulip's modifier rules (hotkey.ts get_keydown_hotkey):
 * letters are named in capitals, "Shift+" marks a shifted letter or named key (so Caps Lock does
 * not change a shortcut), Shift is ignored on characters that need it on common layouts (`?`, `+`,
 * `:`…), then "Alt+" and "Ctrl+" (Cmd on a Mac) are prefixed. A layout that cannot type the
 * letter (Cyrillic, Greek…) is read by the physical key's position on a QWERTY keyboard.
 */
const SHIFT_IGNORED = new Set(["*", "+", "=", "-", "/", ":", "<", ">", "?", "@"]);
const NAMED = new Set([
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "ArrowUp",
  "Backspace",
  "Delete",
  "End",
  "Enter",
  "Escape",
  "Home",
  "PageDown",
  "PageUp",
  "Tab",
]);
const BY_CODE: Record<string, string> = {
  BracketLeft: "[",
  Equal: "=",
  Minus: "-",
  Period: ".",
  Slash: "/",
  Space: " ",
  "Shift+Digit2": "@",
  "Shift+Digit8": "*",
  "Shift+Equal": "+",
  "Shift+Comma": "<",
  "Shift+Period": ">",
  "Shift+Semicolon": ":",
  "Shift+Slash": "?",
};

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

export function hotkeyOf(e: Pick<KeyboardEvent, "key" | "code" | "shiftKey" | "altKey" | "ctrlKey" | "metaKey">): string | null {
  if (e.key === undefined) return null;
  let key = e.key;
  const printable = key.length === 1 && key >= " " && key <= "~";
  if (!printable && !NAMED.has(key)) {
    const letter = /^Key([A-Z])$/.exec(e.code);
    const mapped = letter ? (e.shiftKey ? letter[1] : letter[1]!.toLowerCase()) : BY_CODE[`${e.shiftKey ? "Shift+" : ""}${e.code}`];
    if (!mapped) return null;
    key = mapped;
  }
  // Cmd on a Mac plays the part of Ctrl elsewhere (except Ctrl+[, an Esc on every system).
  const ctrl = isMac ? e.metaKey : e.ctrlKey;
  if (isMac ? e.ctrlKey && key !== "[" : e.metaKey) return null;
  if (/^[a-z]$/.test(key)) key = key.toUpperCase();
  if (e.shiftKey && !SHIFT_IGNORED.has(key)) key = `Shift+${key}`;
  if (e.altKey) key = `Alt+${key}`;
  if (ctrl || (isMac && e.ctrlKey && key === "[")) key = `Ctrl+${key}`;
  return key;
}
