import { badRequest } from "../lib/errors.js";

/**
 * Python's view of a payload, for integrations whose text must match Zulip's byte for byte:
 * json.loads' numbers (a JSON `2.0` stays a float, a huge integer keeps its digits), str() and
 * repr() of values, truthiness, str.splitlines(). One copy for every integration.
 */

/** A JSON number written with a fraction or an exponent: Python's json reads it as a float. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A JSON integer too large for a double: kept as its digits, as Python's int keeps it. */
export class PyBigInt {
  constructor(readonly digits: string) {}
}

/**
 * The body parsed as Python's json.loads parses it: like JSON.parse, except that floats are
 * PyFloat and integers beyond 2^53 are PyBigInt, so pyStr can print them as Zulip would.
 */
export function parsePyJson(raw: string): unknown {
  return new PyJsonParser(raw).document();
}

// Sticky: matched where the parser stands, without copying the rest of the text.
const STRING = /"(?:[^"\\\u0000-\u001f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class PyJsonParser {
  private i = 0;
  constructor(private readonly text: string) {}

  private sticky(re: RegExp): RegExpExecArray | null {
    re.lastIndex = this.i;
    return re.exec(this.text);
  }

  document(): unknown {
    const value = this.value();
    this.space();
    if (this.i !== this.text.length) throw badRequest("Malformed JSON");
    return value;
  }

  private space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text.charAt(this.i))) this.i++;
  }

  private value(): unknown {
    this.space();
    const c = this.text.charAt(this.i);
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return value;
      }
    }
    throw badRequest("Malformed JSON");
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.space();
    if (this.text.charAt(this.i) === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text.charAt(this.i) !== '"') throw badRequest("Malformed JSON");
      const key = this.string();
      this.space();
      if (this.text.charAt(this.i) !== ":") throw badRequest("Malformed JSON");
      this.i++;
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.space();
      const next = this.text.charAt(this.i++);
      if (next === "}") return out;
      if (next !== ",") throw badRequest("Malformed JSON");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.space();
    if (this.text.charAt(this.i) === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.space();
      const next = this.text.charAt(this.i++);
      if (next === "]") return out;
      if (next !== ",") throw badRequest("Malformed JSON");
    }
  }

  private string(): string {
    const match = this.sticky(STRING);
    if (!match) throw badRequest("Malformed JSON");
    this.i += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  private number(): number | PyFloat | PyBigInt {
    const match = this.sticky(NUMBER);
    if (!match) throw badRequest("Malformed JSON");
    this.i += match[0].length;
    const value = Number(match[0]);
    if (match[1] !== undefined || match[2] !== undefined) return new PyFloat(value);
    if (!Number.isSafeInteger(value)) return new PyBigInt(match[0].replace(/^(-?)0+(?=\d)/, "$1"));
    return value;
  }
}

/** Python's repr() (and str()) of a float. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  // The shortest digits that round-trip, as both languages choose them; only the layout differs.
  const [mantissa = "", exp = "0"] = x.toExponential().split("e");
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const exponent = Number(exp);
  let out: string;
  if (exponent < -4 || exponent >= 16) {
    const rest = digits.slice(1);
    out = digits.charAt(0) + (rest ? "." + rest : "") + "e" + (exponent < 0 ? "-" : "+") + String(Math.abs(exponent)).padStart(2, "0");
  } else if (exponent < 0) {
    out = "0." + "0".repeat(-exponent - 1) + digits;
  } else if (digits.length <= exponent + 1) {
    out = digits + "0".repeat(exponent + 1 - digits.length) + ".0";
  } else {
    out = digits.slice(0, exponent + 1) + "." + digits.slice(exponent + 1);
  }
  return (negative ? "-" : "") + out;
}

/** Python's repr() of a value read by parsePyJson (or JSON.parse): what str() shows inside lists and dicts. */
export function pyRepr(value: unknown): string {
  if (typeof value === "string") return pyStringRepr(value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  if (value !== null && typeof value === "object" && !(value instanceof PyFloat) && !(value instanceof PyBigInt)) {
    return (
      "{" +
      Object.entries(value)
        .map(([k, v]) => `${pyStringRepr(k)}: ${pyRepr(v)}`)
        .join(", ") +
      "}"
    );
  }
  return pyStr(value);
}

/** Python's str() of a value read by parsePyJson (or JSON.parse): `f"{value}"`. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (value instanceof PyBigInt) return value.digits;
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** Python's repr() of a str: single quotes unless the text has one and no double quote. */
function pyStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + quote;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0");
    else out += ch;
  }
  return quote + out + quote;
}

/** Whether a parsed JSON value is a number (int or float) as Python's check_int/check_float see it. */
export function isPyNumber(value: unknown): boolean {
  return typeof value === "number" || value instanceof PyFloat || value instanceof PyBigInt;
}

/** Python's truthiness of a parsed JSON value ("if payload.get(...)"). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === "" || value === 0) return false;
  if (value instanceof PyFloat) return value.value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object" && !(value instanceof PyBigInt)) return Object.keys(value).length > 0;
  return true;
}

/** Python's repr() of a str (exported for lists of names). */
export function pyStrRepr(text: string): string {
  return pyStringRepr(text);
}

/** Python's str() of a list of str: `['a', 'b']`. */
export function pyStrListRepr(items: readonly string[]): string {
  return `[${items.map(pyStringRepr).join(", ")}]`;
}

/** Python's str.splitlines() (no keepends): every line boundary Python knows, no trailing empty line. */
export function pySplitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
