import { createRequire } from "node:module";
import type { HLJSApi, LanguageFn } from "highlight.js";
import { escapeAttr, escapeCode, escapeText } from "./escape.js";
import { pygmentsHtml } from "./pygmentsTokens.js";

/**
 * Code blocks in Zulip's structure (Pygments' codehilite):
 * <div class="codehilite" data-code-language="Python"><pre><span></span><code>…</code></pre></div>.
 * Tokens are highlighted with highlight.js and given Pygments' short class names, which is what
 * Zulip clients' stylesheets know (pygmentsTokens.ts).
 */

/** Pygments' display name and the highlight.js grammar for common language aliases. */
const LANGUAGES: Record<string, [pretty: string, grammar: string]> = {};
function define(pretty: string, grammar: string, ...aliases: string[]): void {
  for (const alias of aliases) LANGUAGES[alias] = [pretty, grammar];
}
define("Python", "python", "python", "py", "py3", "python3", "sage", "bazel", "starlark");
define("Python 2.x", "python", "python2", "py2");
define("Python console session", "python-repl", "pycon");
define("JavaScript", "javascript", "javascript", "js", "mjs", "cjs");
define("TypeScript", "typescript", "typescript", "ts");
define("JSX", "javascript", "jsx", "react");
define("TSX", "typescript", "tsx");
define("JSON", "json", "json", "json-object");
define("Java", "java", "java");
define("Kotlin", "kotlin", "kotlin", "kt");
define("Scala", "scala", "scala");
define("C", "c", "c");
define("C++", "cpp", "cpp", "c++");
define("C#", "csharp", "csharp", "c#", "cs");
define("Objective-C", "objectivec", "objective-c", "objectivec", "obj-c", "objc");
define("Swift", "swift", "swift");
define("Go", "go", "go", "golang");
define("Rust", "rust", "rust", "rs");
define("Ruby", "ruby", "ruby", "rb", "duby");
define("PHP", "php", "php", "php3", "php4", "php5", "inc");
define("CSS+PHP", "php", "css+php");
define("HTML+PHP", "php", "html+php");
define("JavaScript+PHP", "php", "javascript+php", "js+php");
define("XML+PHP", "php", "xml+php");
define("Perl", "perl", "perl", "pl");
define("Lua", "lua", "lua");
define("R", "r", "r", "splus", "s");
define("Julia", "julia", "julia", "jl");
define("Haskell", "haskell", "haskell", "hs");
define("Elixir", "elixir", "elixir", "ex", "exs");
define("Erlang", "erlang", "erlang");
define("Clojure", "clojure", "clojure", "clj");
define("Common Lisp", "lisp", "common-lisp", "cl", "lisp");
define("Scheme", "scheme", "scheme", "scm");
define("OCaml", "ocaml", "ocaml");
define("F#", "fsharp", "fsharp", "f#");
define("Dart", "dart", "dart");
define("Bash", "bash", "bash", "sh", "ksh", "zsh", "shell");
define("Bash Session", "shell", "console", "shell-session");
define("PowerShell", "powershell", "powershell", "pwsh", "posh", "ps1", "psm1");
define("Batchfile", "dos", "batch", "bat", "dosbatch", "winbatch");
define("SQL", "sql", "sql");
define("PostgreSQL SQL dialect", "pgsql", "postgresql", "postgres");
define("MySQL", "sql", "mysql");
define("HTML", "xml", "html");
define("XML", "xml", "xml");
define("CSS", "css", "css");
define("SCSS", "scss", "scss");
define("Sass", "scss", "sass");
define("LESS", "less", "less");
define("YAML", "yaml", "yaml", "yml");
define("TOML", "ini", "toml");
define("INI", "ini", "ini", "cfg", "dosini");
define("Docker", "dockerfile", "docker", "dockerfile");
define("Makefile", "makefile", "make", "makefile", "mf", "bsdmake");
define("CMake", "cmake", "cmake");
define("Nginx configuration file", "nginx", "nginx");
define("Diff", "diff", "diff", "udiff");
define("Markdown", "markdown", "markdown", "md");
define("reStructuredText", "plaintext", "restructuredtext", "rst", "rest");
define("TeX", "latex", "tex", "latex");
define("Groovy", "groovy", "groovy");
define("Protocol Buffer", "protobuf", "protobuf", "proto");
define("GraphQL", "graphql", "graphql");
define("Handlebars", "handlebars", "handlebars");
define("Django/Jinja", "django", "django", "jinja");
define("Vim Script", "vim", "vim");
define("Matlab", "matlab", "matlab");
define("Fortran", "fortran", "fortran", "f90");
define("Nim", "nim", "nim", "nimrod");
define("Zig", "zig", "zig");
define("Verilog", "verilog", "verilog", "v");
define("VHDL", "vhdl", "vhdl");
define("Assembly", "x86asm", "nasm", "asm");
define("Text only", "plaintext", "text");

/** The pretty name Zulip puts in data-code-language, or the language as typed if unknown. */
function codeLanguageName(lang: string): string {
  return LANGUAGES[lang.toLowerCase()]?.[0] ?? lang;
}

/**
 * highlight.js is loaded on the first code block, and only the grammars used (with the grammars
 * they embed, e.g. CSS and JavaScript in HTML): loading all of them slowed the start and held memory.
 * The core module is highlight.js's singleton, which its full build registers every grammar on,
 * so a language outside LANGUAGES (looked up by highlight.js's own names and aliases) loads the
 * full build once and then sees exactly what the eager import did.
 */
const require = createRequire(import.meta.url);
let hljsCore: HLJSApi | undefined;
let allGrammarsLoaded = false;
const tried = new Set<string>();

function registerGrammar(hljs: HLJSApi, grammar: string): void {
  if (tried.has(grammar) || allGrammarsLoaded) return;
  tried.add(grammar);
  let definition: LanguageFn;
  try {
    definition = require(`highlight.js/lib/languages/${grammar}`) as LanguageFn;
  } catch {
    return; // not a highlight.js grammar (e.g. "zig")
  }
  hljs.registerLanguage(grammar, definition);
  for (const embedded of embeddedGrammars(hljs.getLanguage(grammar))) registerGrammar(hljs, embedded);
}

/** Every subLanguage a grammar's modes name. */
function embeddedGrammars(language: unknown): Set<string> {
  const found = new Set<string>();
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === "subLanguage") for (const name of [item].flat()) if (typeof name === "string") found.add(name);
      walk(item);
    }
  };
  walk(language);
  return found;
}

/** highlight.js with `grammar` registered if it exists; `known` grammars need not load all. */
function highlighter(grammar: string, known: boolean): HLJSApi {
  hljsCore ??= require("highlight.js/lib/core") as HLJSApi;
  if (known) registerGrammar(hljsCore, grammar);
  else if (!allGrammarsLoaded && !hljsCore.getLanguage(grammar)) {
    require("highlight.js");
    allGrammarsLoaded = true;
  }
  return hljsCore;
}

/**
 * Pygments escapes quotes too; Zulip then re-serialises blocks that have a language (to add
 * data-code-language) with lxml, which writes quotes in text unescaped.
 */
function highlightedLines(code: string, lang: string, escape: (text: string) => string): string {
  if (!lang) return escape(code);
  const known = LANGUAGES[lang.toLowerCase()]?.[1];
  const hljs = highlighter(known ?? lang, known !== undefined);
  const grammar = known ?? (hljs.getLanguage(lang) ? lang : undefined);
  if (!grammar || grammar === "plaintext" || !hljs.getLanguage(grammar)) return escape(code);
  try {
    return pygmentsHtml(hljs.highlight(code, { language: grammar, ignoreIllegals: true }).value, grammar, escape);
  } catch {
    return escape(code);
  }
}

/**
 * Python-Markdown's CodeHilite header, as Zulip keeps it: in a block without a language, a
 * first line "#!python", "#!/usr/bin/python" or ":::python" names the language to highlight
 * with (the line stays, and no data-code-language is set).
 */
const HEADER_RE = /^(?:::+|#!)(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/u;

/** Trailing whitespace is dropped per line, and blank lines around the code, as Pygments does. */
export function renderCodeBlock(code: string, lang: string): string {
  const lines = code.split("\n").map((line) => line.replace(/\s+$/, ""));
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const highlightAs = lang || (HEADER_RE.exec(lines[0] ?? "")?.[1]?.toLowerCase() ?? "");
  const body = lines.length === 0 ? "" : `${highlightedLines(lines.join("\n"), highlightAs, lang ? escapeText : escapeCode)}\n`;
  const langAttr = lang ? ` data-code-language="${escapeAttr(codeLanguageName(lang))}"` : "";
  return `<div class="codehilite"${langAttr}><pre><span></span><code>${body}</code></pre></div>\n`;
}
