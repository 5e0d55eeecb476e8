import { badRequest, MissingArgumentError } from "../lib/errors.js";
import { Payload } from "./payload.js";

/**
 * Small pieces of Python behaviour the CI/CD integrations (Buildbot, TeamCity, CircleCI, Travis,
 * GoCD, Semaphore, AppVeyor, Netlify, Heroku, Harbor, SonarQube) share, so their texts come out
 * exactly as Zulip's do.
 */

/** Zulip's get_short_sha: the first 11 characters of a commit id. */
export function shortSha(sha: string): string {
  return sha.slice(0, 11);
}

/** Python's str.splitlines() (no keepends): every line boundary Python knows, no trailing empty line. */
export function pySplitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The first line of a text (Python's `text.splitlines()[0]`); a text with no line is a 400 rather than Zulip's 500. */
export function firstLine(text: string, path: string): string {
  const line = pySplitLines(text)[0];
  if (line === undefined) throw badRequest(`${path} is empty`);
  return line;
}

/** Zulip's datetime_to_global_time: `<time:…>` around the ISO 8601 form Python's isoformat gives for a UTC datetime. */
export function globalTime(date: Date): string {
  const iso = date.toISOString().replace(/\.\d{3}Z$/, "");
  const ms = date.getUTCMilliseconds();
  return `<time:${iso}${ms === 0 ? "" : `.${String(ms * 1000).padStart(6, "0")}`}+00:00>`;
}

/** Python's repr() of a str. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return quote + out + quote;
}

/** Python's str() of a list of str: `['a', 'b']`. */
export function pyStrListRepr(items: readonly string[]): string {
  return `[${items.map(pyStrRepr).join(", ")}]`;
}

/** A required form field (Zulip's typed_endpoint `name: str`): missing is Zulip's "Missing 'name' argument". */
export function formField(payload: Payload, name: string): string {
  const value = payload.get(name).value;
  if (typeof value !== "string") throw new MissingArgumentError(name);
  return value;
}

/** A form field holding JSON (Zulip's `Json[...]` parameter), parsed into a Payload rooted at its name. */
export function jsonFormField(payload: Payload, name: string): Payload {
  const text = formField(payload, name);
  try {
    return new Payload(JSON.parse(text), name);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
}

/** `table[key]` for a table's own keys only (an event named "constructor" is not a handler). */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
