const UTF8 = new TextEncoder();

/**
 * `value` if it is a path on this server (`/…`, but not `//host` or `/\host`, which browsers
 * read as another host), else undefined: where a `next` parameter may send a browser after
 * signing in (Zulip's get_safe_redirect_to, which falls back to the organization's URL).
 * Characters outside printable ASCII come back percent-encoded: browsers drop tabs and newlines
 * from a URL, so `/<tab>/evil.example` would otherwise lead to another host, and Node refuses a
 * `Location` header with control characters or characters beyond U+00FF.
 */
export function localPath(value: unknown): string | undefined {
  if (typeof value !== "string" || !/^\/(?![/\\])/.test(value)) return undefined;
  return value.replace(/[^\x21-\x7e]+/g, (run) => Array.from(UTF8.encode(run), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""));
}
