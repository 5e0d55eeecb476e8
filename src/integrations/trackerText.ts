import { badRequest } from "../lib/errors.js";
import type { Payload } from "./payload.js";

/**
 * Text helpers the issue-tracker and support-desk integrations share (Jira, Linear, Sentry,
 * Trello, Taiga, Wekan, Front, Intercom): Zulip's global times, and HTML
 * reduced to its text (no service HTML is ever passed through as HTML).
 */

/** A nullable string field (Zulip's check_none_or(check_string)): absent or null is undefined. */
export function optString(p: Payload): string | undefined {
  return p.exists() ? p.str() : undefined;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Zulip's datetime_to_global_time(datetime.fromisoformat(text)): `<time:…>` to the second,
 * keeping the offset the text gives (Z is +00:00; a text without one is read as UTC). A text
 * that is not an ISO 8601 date is a 400, as Python's ValueError would be an error there.
 */
export function globalTime(text: string): string {
  const m = ISO_RE.exec(text.trim());
  if (!m) throw badRequest(`Invalid isoformat string: '${text}'`);
  const [, y, mo, d, h = "00", mi = "00", s = "00", zone] = m;
  let offset = "+00:00";
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.replace(":", "");
    offset = `${digits.slice(0, 3)}:${digits.slice(3)}`;
  }
  return `<time:${y}-${mo}-${d}T${h}:${mi}:${s}${offset}>`;
}

/** Zulip's datetime_to_global_time of a Unix time (seconds), in UTC. */
export function globalTimeFromUnix(seconds: number): string {
  return `<time:${new Date(Math.floor(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** HTML character references decoded (named: the common ones; numeric: all). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);?/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = NAMED_ENTITIES[ref.toLowerCase()];
    return named ?? whole;
  });
}

/**
 * The text of an HTML fragment, as Zulip's strip_tags (an HTMLParser keeping only the data):
 * tags and comments are dropped, character references decoded. What is left is plain text.
 */
export function stripTags(html: string): string {
  const withoutComments = html.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  const withoutTags = withoutComments.replace(/<\/?[a-zA-Z][^>]*>|<![^>]*>|<\?[^>]*>/g, "");
  return decodeEntities(withoutTags);
}
