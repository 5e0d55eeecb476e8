import { badRequest } from "../lib/errors.js";
import { pyTruthy } from "./python.js";

/**
 * A webhook's JSON, read field by field the way Zulip's WildValue does: every read names the
 * path it took (`payload['pull_request']['title']`), and a missing or mistyped field the handler
 * needs is a 400 naming that path, so a malformed payload posts nothing.
 */
export class Payload {
  constructor(
    readonly value: unknown,
    readonly path = "payload",
  ) {}

  /** The field `key` (of an object) or element `key` (of an array); missing is `undefined`, not an error. */
  get(key: string | number): Payload {
    // Below a missing field, the error names the first missing one, as Zulip's KeyError does.
    if (this.value === undefined) return this;
    const path = `${this.path}[${typeof key === "number" ? key : `'${key}'`}]`;
    if (typeof key === "number") return new Payload(Array.isArray(this.value) ? this.value[key] : undefined, path);
    if (!isObject(this.value) || !Object.hasOwn(this.value, key)) return new Payload(undefined, path);
    return new Payload(this.value[key], path);
  }

  /** `get` along a dotted path: `at("pull_request.user.login")`. */
  at(dotted: string): Payload {
    return dotted.split(".").reduce<Payload>((p, key) => p.get(/^\d+$/.test(key) ? Number(key) : key), this);
  }

  has(key: string): boolean {
    return isObject(this.value) && Object.hasOwn(this.value, key) && this.value[key] !== undefined;
  }

  /** Present and not JSON null. */
  exists(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  /** Python's truthiness of the value (`if payload.get("x"):`): missing, null, false, 0, "", [] and {} are false. */
  truthy(): boolean {
    return pyTruthy(this.value);
  }

  /** Present, though it may be JSON null (Zulip's `payload["x"]` before a check): missing is a 400 naming it. */
  required(): Payload {
    if (this.value === undefined) throw badRequest(`${this.path} is missing`);
    return this;
  }

  str(): string {
    if (typeof this.value === "string") return this.value;
    throw this.wrongType("a string");
  }

  optStr(): string | undefined {
    return this.exists() ? this.str() : undefined;
  }

  int(): number {
    if (typeof this.value === "number" && Number.isInteger(this.value)) return this.value;
    throw this.wrongType("an integer");
  }

  optInt(): number | undefined {
    return this.exists() ? this.int() : undefined;
  }

  num(): number {
    if (typeof this.value === "number" && Number.isFinite(this.value)) return this.value;
    throw this.wrongType("a number");
  }

  bool(): boolean {
    if (typeof this.value === "boolean") return this.value;
    throw this.wrongType("a boolean");
  }

  optBool(): boolean | undefined {
    return this.exists() ? this.bool() : undefined;
  }

  /** A string or a number, as text (ids some services send either way). */
  text(): string {
    if (typeof this.value === "number") return String(this.value);
    return this.str();
  }

  list(): Payload[] {
    if (!Array.isArray(this.value)) throw this.wrongType("a list");
    return this.value.map((_, i) => this.get(i));
  }

  /** The element list, or none when the field is missing or null. */
  optList(): Payload[] {
    return this.exists() ? this.list() : [];
  }

  dict(): Payload {
    if (!isObject(this.value)) throw this.wrongType("a dict");
    return this;
  }

  keys(): string[] {
    return isObject(this.value) ? Object.keys(this.value) : [];
  }

  private wrongType(what: string): Error {
    if (this.value === undefined) return badRequest(`${this.path} is missing`);
    return badRequest(`${this.path} is not ${what}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
