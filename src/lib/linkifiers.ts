import { findLinks } from "./markdown/autolink.js";
import { rewriteLocalLink, sanitizeUrl } from "./markdown/urls.js";

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
    const operator = body !== "" && body[0] in OPERATORS && body[0] !== "" ? body[0] : "";
    if (operator !== "") body = body.slice(1);
    const vars: Expression["vars"] = [];
    for (const spec of body.split(",")) {
      const m = VARSPEC_RE.exec(spec);
      if (!m) return null;
      vars.push({ name: m[1], prefix: m[2] === undefined ? null : Number(m[2]) });
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
export function expandTemplate(template: string, values: Record<string, string | undefined>): string {
  let out = "";
  for (const part of parseTemplate(template) ?? []) {
    if (typeof part === "string") {
      out += part;
      continue;
    }
    const op = OPERATORS[part.operator];
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

// ---- Patterns (Zulip's are Python/re2 regular expressions) ----

/** A Python pattern in JavaScript syntax: named groups, backreferences, a leading (?i). */
function toJavaScript(pattern: string): { source: string; flags: string } {
  let source = pattern.replaceAll("(?P<", "(?<").replace(/\(\?P=([A-Za-z_]\w*)\)/g, "\\k<$1>");
  let flags = "";
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    if (inline[1].includes("i")) flags += "i";
    if (inline[1].includes("s")) flags += "s";
    if (inline[1].includes("m")) flags += "m";
  }
  return { source, flags };
}

/** Zulip's prepare_linkifier_pattern: after start, a space or an opening delimiter; not before a letter or digit. */
const BEFORE = `(?<=^|[\\s\\u0085'"(,:<])`;
const compiled = new Map<string, RegExp | null>();

function compilePattern(pattern: string): RegExp | null {
  let re = compiled.get(pattern);
  if (re !== undefined) return re;
  const { source, flags } = toJavaScript(pattern);
  try {
    re = new RegExp(`${BEFORE}(?:${source})(?![\\p{L}\\p{N}])`, `gu${flags}`);
  } catch {
    try {
      // Without the u flag (which refuses escapes Python allows): letters and digits checked after.
      re = new RegExp(`${BEFORE}(?:${source})`, `g${flags}`);
    } catch {
      re = null;
    }
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

/** Zulip's filter_pattern_validator and RealmFilter.clean: the error message, or null if the linkifier is valid. */
export function linkifierError(pattern: string, urlTemplate: string): { msg: string; field: string } | null {
  // Django's full_clean order: the fields' own checks, then the model's clean().
  if (pattern === "") return { msg: "This field cannot be blank.", field: "pattern" };
  if (urlTemplate === "") return { msg: "This field cannot be blank.", field: "url_template" };
  if (!isValidUrlTemplate(urlTemplate)) return { msg: "Invalid URL template.", field: "url_template" };
  const { source, flags } = toJavaScript(pattern);
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, "") : "";
    return { msg: `Bad regular expression: ${detail}`, field: "__all__" };
  }
  const groups = new Set([...re.source.matchAll(/\(\?<([A-Za-z_]\w*)>/g)].map((m) => m[1]));
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
  const out: LinkifierMatch[] = [];
  for (const m of text.matchAll(re)) {
    const end = m.index + m[0].length;
    if (m[0] === "" || /^[\p{L}\p{N}]/u.test(text.slice(end))) continue;
    const url = sanitizeUrl(expandTemplate(linkifier.url_template, m.groups ?? {}));
    if (url === null) continue;
    out.push({ index: m.index, end, text: m[0], url: rewriteLocalLink(url, realmUrl) });
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
  for (const m of [...matches].sort((a, b) => a.index - b.index)) if (kept.length === 0 || m.index >= kept[kept.length - 1].end) kept.push(m);
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
