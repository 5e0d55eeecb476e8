import { badRequest, MissingArgumentError } from "../lib/errors.js";
import { Payload } from "./payload.js";
import { pySplitLines } from "./python.js";

/**
 * Small pieces of Python behaviour the CI/CD integrations (Buildbot, TeamCity, CircleCI, Travis,
 * GoCD, Semaphore, AppVeyor, Netlify, Heroku, Harbor, SonarQube) share, so their texts come out
 * exactly as Zulip's do.
 */

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
