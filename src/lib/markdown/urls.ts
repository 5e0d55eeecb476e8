/**
 * Link rules shared by Markdown links, auto-links and previews (Zulip's sanitize_url and
 * rewrite_local_links_to_relative; hash_util_encode is the API contract's, src/contract/hash.ts).
 */

import { group } from "../../util/defined.js";

/** https://html.spec.whatwg.org/multipage/system-state.html#safelisted-scheme */
const SAFELISTED_SCHEMES = [
  "bitcoin",
  "geo",
  "im",
  "irc",
  "ircs",
  "magnet",
  "mailto",
  "matrix",
  "mms",
  "news",
  "nntp",
  "openpgp4fpr",
  "sip",
  "sms",
  "smsto",
  "ssh",
  "tel",
  "urn",
  "webcal",
  "wtai",
  "xmpp",
];
const ALLOWED_SCHEMES = new Set(["http", "https", "ftp", ...SAFELISTED_SCHEMES]);

interface UrlParts {
  scheme: string;
  netloc: string;
  path: string;
  rest: string;
}

/** Python's urlsplit, reduced to what sanitizing needs. */
function splitUrl(url: string): UrlParts {
  let rest = url;
  let scheme = "";
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (schemeMatch) {
    scheme = group(schemeMatch, 1).toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  }
  let netloc = "";
  if (rest.startsWith("//")) {
    const end = rest.slice(2).search(/[/?#]/);
    netloc = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    rest = end < 0 ? "" : rest.slice(end + 2);
  }
  const pathEnd = rest.search(/[?#]/);
  const path = pathEnd < 0 ? rest : rest.slice(0, pathEnd);
  return { scheme, netloc, path, rest: pathEnd < 0 ? "" : rest.slice(pathEnd) };
}

/**
 * The href to render for a user-supplied URL, or null when it must stay plain text: schemes on
 * the allow-list only; no scheme means http (or mailto for an address); "/path" and "#fragment"
 * stay relative.
 */
export function sanitizeUrl(rawUrl: string, depth = 0): string | null {
  const url = rawUrl.replaceAll(" ", "%20");
  if (/[\u0000-\u001f\u007f]/.test(url)) return null;
  const { scheme, netloc, path, rest } = splitUrl(url);
  if (!scheme && !netloc) {
    if (path.includes("@")) return `mailto:${url}`;
    if (path.startsWith("/")) return url;
    if (path === "" && rest.startsWith("#") && rest.length > 1) return url;
  }
  if (!scheme) return depth === 0 ? sanitizeUrl(`http://${url}`, 1) : null;
  if (!ALLOWED_SCHEMES.has(scheme)) return null;
  return url;
}

/** Links into the realm's own narrows and uploads become relative (open in the same window). */
export function rewriteLocalLink(href: string, realmUrl: string | undefined): string {
  if (!realmUrl) return href;
  const prefix = `${realmUrl}/`;
  if (href.startsWith(`${prefix}#`) || href.startsWith(`${prefix}user_uploads/`)) return href.slice(prefix.length);
  return href;
}

/** The upload path id an href points to ("/user_uploads/2/ab/x.png" → "2/ab/x.png"), if any. */
export function uploadPathId(href: string, realmUrl: string | undefined): string | null {
  let path: string;
  if (href.startsWith("/user_uploads/")) path = href;
  else if (href.startsWith("user_uploads/")) path = `/${href}`;
  else {
    const { scheme, netloc, path: p } = splitUrl(href);
    if (!scheme || !realmUrl || netloc === "" || netloc !== splitUrl(realmUrl).netloc) return null;
    path = p;
  }
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  if (!path.startsWith("/user_uploads/")) return null;
  const id = path.slice("/user_uploads/".length);
  return id === "" ? null : id;
}

/** The path of a URL without query or fragment, lowercased (for extension checks). */
export function urlPathLower(href: string): string {
  return splitUrl(href).path.toLowerCase();
}
