import type { RE2JS } from "re2js";
import { findLinks } from "./markdown/autolink.js";
import { rewriteLocalLink, sanitizeUrl } from "./markdown/urls.js";
import { BoundedCache } from "../util/boundedCache.js";
import { lazyRequire } from "../util/lazy.js";
import { defined, group } from "../util/defined.js";

/** A linkifier as clients see it (Zulip's LinkifierDict). */
export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

export function linkifierPayload(row: Linkifier): Linkifier {
  return { pattern: row.pattern, url_template: row.url_template, id: row.id };
}

/** One linkified span of a text: [index, end) shows `text` and links to `url`. */
export interface LinkifierMatch {
  index: number;
  end: number;
  text: string;
  url: string;
}

// ---- RFC 6570 URL templates (Zulip validates them with the uri_template package) ----

const OPERATORS: Record<string, { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }> = {
  "": { first: "", sep: ",", named: false, ifEmpty: "", reserved: false },
  "+": { first: "", sep: ",", named: false, ifEmpty: "", reserved: true },
  "#": { first: "#", sep: ",", named: false, ifEmpty: "", reserved: true },
  ".": { first: ".", sep: ".", named: false, ifEmpty: "", reserved: false },
  "/": { first: "/", sep: "/", named: false, ifEmpty: "", reserved: false },
  ";": { first: ";", sep: ";", named: true, ifEmpty: "", reserved: false },
  "?": { first: "?", sep: "&", named: true, ifEmpty: "=", reserved: false },
  "&": { first: "&", sep: "&", named: true, ifEmpty: "=", reserved: false },
};
const VARSPEC_RE = /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*)(?::([1-9][0-9]{0,3})|\*)?$/;
// RFC 6570's literals: no spaces, quotes, angle brackets, backslash, caret, backtick, pipe or braces.
const LITERAL_RE = /^(?:[^\s"'<>\\^`{|}%]|%[0-9A-Fa-f]{2})*$/u;

interface Expression {
  operator: string;
  vars: Array<{ name: string; prefix: number | null }>;
}

/** The template as literal strings and expressions, or null if it is not an RFC 6570 template. */
function parseTemplate(template: string): Array<string | Expression> | null {
  const parts: Array<string | Expression> = [];
  let rest = template;
  while (rest !== "") {
    const open = rest.indexOf("{");
    const literal = open < 0 ? rest : rest.slice(0, open);
    if (!LITERAL_RE.test(literal)) return null;
    if (literal !== "") parts.push(literal);
    if (open < 0) break;
    const close = rest.indexOf("}", open);
    if (close < 0) return null;
    let body = rest.slice(open + 1, close);
    const first = body.charAt(0);
    const operator = first !== "" && first in OPERATORS ? first : "";
    if (operator !== "") body = body.slice(1);
    const vars: Expression["vars"] = [];
    for (const spec of body.split(",")) {
      const m = VARSPEC_RE.exec(spec);
      if (!m) return null;
      vars.push({ name: group(m, 1), prefix: m[2] === undefined ? null : Number(m[2]) });
    }
    parts.push({ operator, vars });
    rest = rest.slice(close + 1);
  }
  return parts;
}

export function isValidUrlTemplate(template: string): boolean {
  return parseTemplate(template) !== null;
}

/** The variable names a valid template uses. */
export function templateVariables(template: string): Set<string> {
  const names = new Set<string>();
  for (const part of parseTemplate(template) ?? []) if (typeof part !== "string") for (const v of part.vars) names.add(v.name);
  return names;
}

function encodeValue(value: string, reserved: boolean): string {
  let out = "";
  for (const ch of value) {
    if (/[A-Za-z0-9\-._~]/.test(ch) || (reserved && /[:/?#[\]@!$&'()*+,;=]/.test(ch))) out += ch;
    else out += encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

/** RFC 6570 expansion with string values; undefined variables are left out. */
function expandTemplate(template: string, values: Record<string, string | undefined>): string {
  let out = "";
  for (const part of parseTemplate(template) ?? []) {
    if (typeof part === "string") {
      out += part;
      continue;
    }
    const op = defined(OPERATORS[part.operator], `linkifier operator ${part.operator}`);
    const expanded: string[] = [];
    for (const v of part.vars) {
      const raw = values[v.name];
      if (raw === undefined) continue;
      const value = encodeValue(v.prefix === null ? raw : [...raw].slice(0, v.prefix).join(""), op.reserved);
      expanded.push(op.named ? (value === "" ? `${v.name}${op.ifEmpty}` : `${v.name}=${value}`) : value);
    }
    if (expanded.length > 0) out += op.first + expanded.join(op.sep);
  }
  return out;
}

// ---- Patterns (Zulip's are RE2 regular expressions, matched in linear time) ----

/**
 * Patterns come from administrators, so they never run on JavaScript's backtracking engine
 * (where "(a+)+$" takes seconds per extra character): they are compiled and matched with re2js,
 * a pure-JavaScript RE2, as Zulip compiles them with google-re2. RE2 refuses what it cannot
 * match in linear time (backreferences, lookaround), which Zulip refuses too.
 *
 * Zulip's prepare_linkifier_pattern: a match starts at the start of the text or after a space
 * or an opening delimiter, and is not followed by a letter or digit; the delimiters are part of
 * the RE2 match, the link is the inner group.
 */
const MATCH_GROUP = "linkifier_actual_match";
const BEFORE = `(?:^|[\\s\\x{85}\\p{Z}'"(,:<])`;
const AFTER = `(?:$|[^\\p{L}\\p{N}])`;
/** Compiled linkifier patterns (null: unusable), by pattern. */
const compiled = new BoundedCache<string, RE2JS | null>(1000);

// re2js is loaded by the first linkifier compiled: most organizations have none.
const loadRe2js = lazyRequire<typeof import("re2js")>("re2js");

function compileRe2(pattern: string): RE2JS {
  return loadRe2js().RE2JS.compile(pattern);
}

function compilePattern(pattern: string): RE2JS | null {
  let re = compiled.get(pattern);
  if (re !== undefined) return re;
  try {
    re = compileRe2(`${BEFORE}(?P<${MATCH_GROUP}>${pattern})${AFTER}`);
  } catch {
    re = null;
  }
  compiled.set(pattern, re);
  return re;
}

/** Zulip's filter_pattern_validator and RealmFilter.clean: the error message, or null if the linkifier is valid. */
export function linkifierError(pattern: string, urlTemplate: string): { msg: string; field: string } | null {
  // Django's full_clean order: the fields' own checks, then the model's clean().
  if (pattern === "") return { msg: "This field cannot be blank.", field: "pattern" };
  if (urlTemplate === "") return { msg: "This field cannot be blank.", field: "url_template" };
  if (!isValidUrlTemplate(urlTemplate)) return { msg: "Invalid URL template.", field: "url_template" };
  let re: RE2JS;
  try {
    re = compileRe2(pattern);
    if (compilePattern(pattern) === null) throw new Error("the pattern cannot be used as a linkifier");
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : "";
    return { msg: `Bad regular expression: ${detail}`, field: "__all__" };
  }
  const groups = new Set(Object.keys(re.namedGroups()));
  const variables = templateVariables(urlTemplate);
  const missingInPattern = [...variables].filter((v) => !groups.has(v)).sort();
  if (missingInPattern.length > 0) return { msg: `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`, field: "__all__" };
  const missingInTemplate = [...groups].filter((g) => !variables.has(g)).sort();
  if (missingInTemplate.length > 0) return { msg: `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`, field: "__all__" };
  return null;
}

/** Every match of one linkifier in text, left to right. */
function matchesOf(linkifier: Linkifier, text: string, realmUrl: string | undefined): LinkifierMatch[] {
  const re = compilePattern(linkifier.pattern);
  if (re === null) return [];
  const groupNames = Object.keys(re.namedGroups()).filter((name) => name !== MATCH_GROUP);
  const out: LinkifierMatch[] = [];
  const matcher = re.matcher(text);
  // The next search starts where the link ended: its following delimiter may open the next one.
  for (let from = 0; from <= text.length && matcher.find(from);) {
    const index = matcher.start(MATCH_GROUP);
    const end = matcher.end(MATCH_GROUP);
    from = end > index ? end : matcher.end() > from ? matcher.end() : from + 1;
    if (end === index) continue;
    const values: Record<string, string | undefined> = {};
    for (const name of groupNames) values[name] = matcher.group(name) ?? undefined;
    const url = sanitizeUrl(expandTemplate(linkifier.url_template, values));
    if (url === null) continue;
    out.push({ index, end, text: text.slice(index, end), url: rewriteLocalLink(url, realmUrl) });
  }
  return out;
}

/**
 * The linkified spans of a text, earliest first and not overlapping; at one position, the
 * linkifier that comes first in the organization's order wins.
 */
export function findLinkifierMatches(linkifiers: readonly Linkifier[], text: string, realmUrl?: string): LinkifierMatch[] {
  if (linkifiers.length === 0) return [];
  return withoutOverlaps(linkifiers.flatMap((l) => matchesOf(l, text, realmUrl)));
}

/** Earliest first; a span overlapping an earlier one is dropped (a stable sort keeps the first listed at one position). */
function withoutOverlaps(matches: LinkifierMatch[]): LinkifierMatch[] {
  const kept: LinkifierMatch[] = [];
  for (const m of [...matches].sort((a, b) => a.index - b.index)) if (m.index >= (kept.at(-1)?.end ?? -Infinity)) kept.push(m);
  return kept;
}

/**
 * Zulip's topic_links: the topic's linkifier matches and bare URLs (https:// added where the
 * scheme is missing), earliest first and not overlapping, as {text, url}.
 */
export function topicLinks(linkifiers: readonly Linkifier[], topic: string): Array<{ text: string; url: string }> {
  const bare = findLinks(topic, undefined)
    .filter((l) => !l.href.startsWith("mailto:"))
    .map((l) => ({ index: l.index, end: l.lastIndex, text: l.text, url: /^[a-z][a-z0-9+.-]*:/i.test(l.text) ? l.text : `https://${l.text}` }));
  return withoutOverlaps([...findLinkifierMatches(linkifiers, topic), ...bare]).map((m) => ({ text: m.text, url: m.url }));
}
