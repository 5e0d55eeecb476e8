import type { MarkdownIt, StateInline } from "markdown-it";
import { escapeText } from "./escape.js";
import { group } from "../../util/defined.js";

/**
 * <time:…> global times → <time datetime="2017-06-05T22:30:00Z">as typed</time>, or Zulip's
 * timestamp-error span. Accepts ISO 8601, UNIX seconds and common English dates ("Jun 5th 2017,
 * 10:30PM", "31 Dec 2017 5:30 am IST"); times without a zone are UTC.
 */
const TIME_RE = /^<time:([^>]*?)>/;

/** A few zone abbreviations people type (Zulip's common_timezones holds more). */
const ZONES: Record<string, string> = {
  UTC: "+0000",
  GMT: "+0000",
  Z: "+0000",
  IST: "+0530",
  EST: "-0500",
  EDT: "-0400",
  CST: "-0600",
  CDT: "-0500",
  MST: "-0700",
  MDT: "-0600",
  PST: "-0800",
  PDT: "-0700",
  CET: "+0100",
  CEST: "+0200",
  EET: "+0200",
  EEST: "+0300",
  BST: "+0100",
  JST: "+0900",
  KST: "+0900",
  AEST: "+1000",
  AEDT: "+1100",
};

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseIso(text: string): number | null {
  const m = ISO_RE.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0", zone] = m;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0"));
    if (Math.abs(offsetMinutes) >= 24 * 60) return NaN;
  }
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(frac.padEnd(3, "0").slice(0, 3)));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) return NaN;
  return date.getTime() - offsetMinutes * 60_000;
}

function parseEnglish(text: string): number {
  if (!/\d/.test(text) || /[*_<>`]/.test(text)) return NaN;
  let cleaned = text.replace(/(\d)(st|nd|rd|th)\b/gi, "$1").replace(/(\d)\s*([ap]m)\b/gi, "$1 $2");
  let zone = "+0000";
  cleaned = cleaned.replace(/\b([A-Z]{1,4})\s*$/, (whole, abbr: string) => {
    const offset = ZONES[abbr];
    if (offset === undefined) return whole;
    zone = offset;
    return "";
  });
  if (/[+-]\d{2}:?\d{2}\s*$/.test(cleaned)) zone = "";
  return Date.parse(zone ? `${cleaned.trim()} GMT${zone}` : cleaned.trim());
}

/** Milliseconds since the epoch, or null when the text is not a time Zulip would accept. */
function parseGlobalTime(text: string): number | null {
  const trimmed = text.trim();
  let ms: number | null;
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else ms = parseIso(trimmed) ?? parseEnglish(trimmed);
  if (ms === null || !Number.isFinite(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999 ? ms : null;
}

function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

function timeRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  const m = TIME_RE.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  if (!silent) {
    const ms = parseGlobalTime(group(m, 1));
    state.push("zulip_html", "", 0).content =
      ms === null
        ? `<span class="timestamp-error">Invalid time format: ${escapeText(group(m, 1))}</span>`
        : `<time datetime="${formatTime(ms)}">${escapeText(group(m, 1))}</time>`;
  }
  state.pos += m[0].length;
  return true;
}

export function timePlugin(md: MarkdownIt): void {
  md.inline.ruler.before("emphasis", "zulip_time", timeRule);
}
