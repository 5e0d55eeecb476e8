/**
 * The times "Send later" offers, as Zulip's web app does: tomorrow at 9:00 and next Monday at
 * 9:00, in the browser's time zone; and how a scheduled time is shown. Pure.
 */
export function tomorrowAt9(now: Date): Date {
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 9, 0, 0, 0);
  return d;
}

/** The next Monday after today (a week on, when today is Monday). */
export function nextMondayAt9(now: Date): Date {
  const days = (8 - now.getDay()) % 7 || 7;
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + days, 9, 0, 0, 0);
}

/** A `datetime-local` input's value ("2026-11-27T09:00") as seconds since the epoch, or null. */
export function parseLocalDateTime(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  return Math.floor(d.getTime() / 1000);
}

/** Seconds since the epoch as a `datetime-local` value, in local time. */
export function localDateTimeValue(seconds: number): string {
  const d = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

export function formatScheduledTime(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}
