import { badRequest } from "../lib/errors.js";

/**
 * The webhook URL's only_events and exclude_events (JSON lists of Unix shell patterns, matched
 * as Python's fnmatch does on Linux: `*`, `?`, `[seq]`, `[!seq]`, case-sensitive), applied to a
 * message's event type as Zulip's check_send_webhook_message does.
 */
export interface EventFilter {
  readonly only?: readonly RegExp[];
  readonly exclude?: readonly RegExp[];
}

export function parseEventFilter(query: { only_events?: string; exclude_events?: string }): EventFilter {
  return { only: patternList("only_events", query.only_events), exclude: patternList("exclude_events", query.exclude_events) };
}

/** Whether a message of `eventType` is posted; a message without a type always is. */
export function eventPasses(filter: EventFilter, eventType: string | undefined): boolean {
  if (eventType === undefined) return true;
  if (filter.only && !filter.only.some((re) => re.test(eventType))) return false;
  if (filter.exclude?.some((re) => re.test(eventType))) return false;
  return true;
}

function patternList(name: string, text: string | undefined): RegExp[] | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (!Array.isArray(parsed)) throw badRequest(`${name} is not a list`);
  return parsed.map((item, i) => {
    if (typeof item !== "string") throw badRequest(`${name}[${i}] is not a string`);
    return fnmatchRegExp(item);
  });
}

/** Python's fnmatch.translate, for one pattern. */
export function fnmatchRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === "*") out += "[\\s\\S]*";
    else if (c === "?") out += "[\\s\\S]";
    else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        out += "\\[";
        continue;
      }
      let set = pattern.slice(i + 1, j).replace(/\\/g, "\\\\");
      if (set.startsWith("!")) set = "^" + set.slice(1);
      else if (set.startsWith("^")) set = "\\" + set;
      out += `[${set}]`;
      i = j;
    } else out += c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}
