import { badRequest } from "../lib/errors.js";

/**
 * Zulip's global time syntax `<time:…>` (datetime_to_global_time) as the monitoring
 * integrations read their times: ISO 8601 text with a zone, or milliseconds.
 */

/**
 * Zulip's datetime_to_global_time(datetime.fromisoformat(text)): `<time:…>` with the time to
 * the second and the offset the text gave (`Z` as `+00:00`); text Python cannot read, or a
 * time without a zone, is a 400.
 */
export function globalTimeFromIso(text: string, path = "payload"): string {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,]\d+)?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?)?)?$/.exec(text);
  if (!m) throw badRequest(`${path} is not an ISO 8601 time`);
  const [, year, month, day, hour = "00", minute = "00", second = "00", zone] = m;
  // Zulip refuses a time without a zone (TimeZoneMissingError).
  if (zone === undefined) throw badRequest(`${path} has no time zone`);
  return `<time:${year}-${month}-${day}T${hour}:${minute}:${second}${isoOffset(zone)}>`;
}

function isoOffset(zone: string): string {
  if (zone === "Z") return "+00:00";
  const digits = zone.slice(1).replace(/[:.,]/g, "");
  const hh = digits.slice(0, 2);
  const mm = digits.slice(2, 4) || "00";
  const ss = digits.slice(4, 6);
  const fraction = /[.,](\d+)$/.exec(zone)?.[1];
  if (/^0*$/.test(hh + mm + (ss || "") + (fraction ?? ""))) return "+00:00";
  let out = `${zone.charAt(0)}${hh}:${mm}`;
  if (ss && (ss !== "00" || fraction)) out += `:${ss}`;
  if (fraction && !/^0*$/.test(fraction)) out += "." + fraction.slice(0, 6).padEnd(6, "0");
  return out;
}

/** Zulip's datetime_to_global_time(timestamp_to_datetime(ms / 1000)): UTC, to the second. */
export function globalTimeFromMillis(ms: number): string {
  const date = new Date(Math.floor(ms / 1000) * 1000);
  if (Number.isNaN(date.getTime())) throw badRequest("Invalid timestamp");
  return `<time:${date.toISOString().slice(0, 19)}+00:00>`;
}
