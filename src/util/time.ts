/** The current time in whole UNIX seconds (the unit of every timestamp we store). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** ISO 8601 with the UTC offset written out, as Zulip formats `date_joined`. */
export function isoFromSeconds(seconds: number): string {
  return new Date(seconds * 1000)
    .toISOString()
    .replace("Z", "+00:00")
    .replace(/\.\d{3}/, "");
}
