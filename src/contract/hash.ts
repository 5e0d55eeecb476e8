/**
 * Zulip's URL hash component encoding (docs/webapp.md, hash routing): the text
 * percent-encoded, then "%" written "." (some browsers percent-decode location.hash), so "." itself
 * is escaped too. Zulip's two implementations differ only in which of the characters
 * encodeURIComponent keeps they escape as well: the web client's (internal_url.ts
 * encodeHashComponent) escapes "(" and ")", the server's (hash_util_encode, Python's
 * quote(safe="")) also "!", "'" and "*". Both decode alike.
 */

const escapeChar = (c: string) => `.${c.charCodeAt(0).toString(16).toUpperCase()}`;

/** The web client's encoding: `it's ok!` → `it's.20ok!`, `v1.2` → `v1.2E2`. */
export function encodeHashComponent(text: string): string {
  return encodeURIComponent(text).replace(/[%().]/g, (c) => (c === "%" ? "." : escapeChar(c)));
}

/** The server's encoding (links in rendered messages and notices): `it's ok!` → `it.27s.20ok.21`. */
export function serverHashEncode(text: string): string {
  return encodeURIComponent(text).replace(/[%!'()*.]/g, (c) => (c === "%" ? "." : escapeChar(c)));
}

/** The text of an encoded component, or null when it is not valid (e.g. a raw "." typed by hand). */
export function decodeHashComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\./g, "%"));
  } catch {
    return null;
  }
}

/** A channel's slug in a narrow: `<id>-<name with spaces as "-">`, then encoded. */
export function channelSlug(id: number, name: string, encode: (text: string) => string = encodeHashComponent): string {
  return encode(`${id}-${name.replace(/ /g, "-")}`);
}

/** The overlay hashes the web app opens (`#settings/…`, `#channels/…`; `streams` is an old name of `channels`). */
export const OVERLAY_HASHES: readonly string[] = [
  "settings",
  "organization",
  "channels",
  "streams",
  "groups",
  "drafts",
  "scheduled",
  "invite",
  "keyboard-shortcuts",
  "message-formatting",
  "search-operators",
  "about-zulip",
  "user",
  "reminders",
];

/**
 * The first parts of the location hashes the web app routes (web/src/hash.ts parseHash): the
 * views, `narrow` and the overlays. Anything else opens the home view. The sign-in page passes a
 * link's hash with one of these through sign-in (http/loginPage.ts).
 */
export const ROUTED_HASHES: readonly string[] = ["narrow", "inbox", "recent", "recent_topics", "feed", "all_messages", ...OVERLAY_HASHES];
