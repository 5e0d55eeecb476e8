import { defined } from "../../util/defined.js";
/**
 * Turns highlight.js's HTML into Pygments' token spans: flat `<span class="k">` runs with
 * Pygments' short class names (what Zulip clients' stylesheets colour), adjacent tokens of one
 * class merged and plain text unwrapped, as Pygments' HtmlFormatter writes them. highlight.js
 * leaves identifiers, operators and punctuation unmarked, so that text is split here the way
 * Pygments' lexers of the common languages split it.
 */

/** highlight.js scopes → Pygments token classes (the most specific scope wins). */
const CLASS_FOR_SCOPE: Record<string, string> = {
  keyword: "k",
  built_in: "nb",
  type: "kt",
  literal: "kc",
  number: "m",
  operator: "o",
  punctuation: "p",
  property: "py",
  regexp: "sr",
  string: "s",
  "char.escape": "se",
  subst: "si",
  symbol: "ss",
  variable: "nv",
  "variable.language": "bp",
  "variable.constant": "no",
  title: "nf",
  "title.class": "nc",
  "title.class.inherited": "n",
  "title.function": "nf",
  "title.function.invoke": "n",
  comment: "c",
  doctag: "sd",
  meta: "cp",
  "meta.keyword": "cp",
  "meta.string": "s",
  section: "gh",
  tag: "nt",
  name: "nt",
  attr: "na",
  attribute: "na",
  "selector-tag": "nt",
  "selector-id": "nn",
  "selector-class": "nc",
  "selector-attr": "na",
  "selector-pseudo": "nd",
  addition: "gi",
  deletion: "gd",
  emphasis: "ge",
  strong: "gs",
  link: "nl",
  quote: "c1",
  bullet: "m",
  code: "sb",
  formula: "m",
  template: "si",
  "template-tag": "cp",
  "template-variable": "nv",
};

/** How a language's Pygments lexer classes what highlight.js leaves unmarked. */
interface Profile {
  /** Class of a plain identifier (Pygments' Name or Name.Other). */
  ident: string;
  /** Characters that are Punctuation; other symbols are Operator. */
  punct: string;
  /** Words with their own class (keywords by kind, self…). */
  words?: Record<string, string>;
  /** Keywords after which the space is a Whitespace token (Python's def/class). */
  spaceAfter?: Set<string>;
  /** Only these characters of plain text are tokens (TeX: braces are Name.Builtin). */
  plainSymbols?: Record<string, string>;
}

const C_LIKE: Profile = { ident: "n", punct: "[](){},;." };
const JS_WORDS: Record<string, string> = {
  var: "kd",
  let: "kd",
  const: "kd",
  function: "kd",
  class: "kd",
  import: "kn",
  export: "kn",
  from: "kn",
  true: "kc",
  false: "kc",
  null: "kc",
  undefined: "kc",
  NaN: "kc",
  Infinity: "kc",
  this: "k",
};
const PROFILES: Record<string, Profile> = {
  python: {
    ident: "n",
    punct: "[]{}:(),;",
    words: { self: "bp", cls: "bp", import: "kn", from: "kn", and: "ow", or: "ow", not: "ow", in: "ow", is: "ow" },
    spaceAfter: new Set(["def", "class"]),
  },
  php: { ident: "nx", punct: "[]{}();," },
  javascript: { ident: "nx", punct: "[]{}();,.", words: JS_WORDS },
  typescript: { ident: "nx", punct: "[]{}();,.", words: JS_WORDS },
  latex: { ident: "", punct: "", plainSymbols: { "{": "nb", "}": "nb", "&": "nb", _: "nb", "^": "nb" } },
};
PROFILES["python-repl"] = defined(PROFILES.python, "the python profile");

interface Token {
  text: string;
  cls: string | null;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };

function decode(html: string): string {
  return html.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** "hljs-title function_" → "title.function", then its mapped class, most specific first. */
function scopeClass(hljsClasses: string): string | null {
  const [first = "", ...rest] = hljsClasses.split(" ");
  const scope = [first.replace(/^hljs-/, ""), ...rest.map((part) => part.replace(/_+$/, ""))].join(".");
  for (let s = scope; s; s = s.includes(".") ? s.slice(0, s.lastIndexOf(".")) : "") {
    const cls = CLASS_FOR_SCOPE[s];
    if (cls) return cls;
  }
  return null;
}

/** highlight.js output as text runs, each with the class of its innermost mapped scope. */
function leaves(html: string): Token[] {
  const out: Token[] = [];
  const stack: (string | null)[] = [];
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+)/g)) {
    if (m[1] !== undefined) stack.push(scopeClass(m[1]) ?? stack[stack.length - 1] ?? null);
    else if (m[2] !== undefined) out.push({ text: decode(m[2]), cls: stack[stack.length - 1] ?? null });
    else stack.pop();
  }
  return out;
}

function numberClass(text: string): string {
  if (/^0[xX]/.test(text)) return "mh";
  if (/^0[oO]/.test(text)) return "mo";
  if (/^0[bB]/.test(text)) return "mb";
  return /[.eE]/.test(text) ? "mf" : "mi";
}

function stringClass(text: string): string {
  const quote = text.replace(/^[a-zA-Z]+(?=["'`])/, "")[0];
  return quote === "'" ? "s1" : quote === '"' ? "s2" : quote === "`" ? "sb" : "s";
}

function commentClass(text: string, atStart: boolean): string {
  if (atStart && text.startsWith("#!")) return "ch";
  if (text.startsWith("/*")) return "cm";
  return /^(?:#|\/\/|--|;|%)/.test(text) ? "c1" : "c";
}

const PLAIN_TOKEN = /\s+|[\p{L}_$][\p{L}\p{N}_$]*|\p{N}[\p{L}\p{N}_.]*|[^\s\p{L}\p{N}_$]/gu;

/** Pygments' tokens for the text highlight.js left unmarked. */
function splitPlain(text: string, profile: Profile): Token[] {
  if (profile.plainSymbols) {
    const symbols = profile.plainSymbols;
    return [...text].map((ch) => ({ text: ch, cls: symbols[ch] ?? null }));
  }
  return [...text.matchAll(PLAIN_TOKEN)].map(([part]) => {
    if (/^\s/.test(part)) return { text: part, cls: null };
    if (/^\p{N}/u.test(part)) return { text: part, cls: numberClass(part) };
    if (/^[\p{L}_$]/u.test(part)) return { text: part, cls: profile.words?.[part] ?? profile.ident };
    return { text: part, cls: profile.punct.includes(part) ? "p" : "o" };
  });
}

function refine(token: Token, profile: Profile, grammar: string, atStart: boolean): Token[] {
  switch (token.cls) {
    case null:
      return splitPlain(token.text, profile);
    case "m":
      return [{ text: token.text, cls: numberClass(token.text) }];
    case "s":
      return [{ text: token.text, cls: stringClass(token.text) }];
    case "c":
      return [{ text: token.text, cls: commentClass(token.text, atStart) }];
    case "k":
    case "kc":
      return [{ text: token.text, cls: profile.words?.[token.text] ?? token.cls }];
    case "cp":
      // Zulip highlights PHP with startinline: "<?php" is an operator and a name.
      if (grammar === "php" && token.text.startsWith("<?")) {
        return [{ text: "<?", cls: "o" }, ...splitPlain(token.text.slice(2), profile)];
      }
      return [token];
    default:
      return [token];
  }
}

/** Adjacent tokens of one class as one run; the space after Python's def/class marked. */
function merge(tokens: Token[], profile: Profile): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    if (token.text === "") continue;
    const prev = out[out.length - 1];
    let cls = token.cls;
    if (cls === null && prev?.cls === "k" && profile.spaceAfter?.has(prev.text) && /^[^\S\n]+$/.test(token.text)) cls = "w";
    if (prev && prev.cls === cls) prev.text += token.text;
    else out.push({ text: token.text, cls });
  }
  return out;
}

/** A run as Pygments writes it: each line's part in its own span, newlines outside spans. */
function renderToken(token: Token, escape: (text: string) => string): string {
  if (!token.cls) return escape(token.text);
  return token.text
    .split("\n")
    .map((part) => (part ? `<span class="${token.cls}">${escape(part)}</span>` : ""))
    .join("\n");
}

/** highlight.js's HTML for `grammar` as Pygments' HTML. */
export function pygmentsHtml(hljsHtml: string, grammar: string, escape: (text: string) => string): string {
  const profile = PROFILES[grammar] ?? C_LIKE;
  const tokens: Token[] = [];
  let offset = 0;
  for (const leaf of leaves(hljsHtml)) {
    tokens.push(...refine(leaf, profile, grammar, offset === 0));
    offset += leaf.text.length;
  }
  return merge(tokens, profile)
    .map((token) => renderToken(token, escape))
    .join("");
}
