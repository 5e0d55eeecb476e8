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
