import type * as z from "zod";
import { type ApiError, badRequest } from "../lib/errors.js";
import { checkJsonLimits } from "./jsonLimits.js";
import { defined } from "../util/defined.js";

/**
 * Declarative request parameters, Zulip's `typed_endpoint` for TypeScript. Every value arrives as
 * text (query string, urlencoded or multipart field); list, object, integer and boolean values are
 * JSON inside that text. Each parser turns text into a typed value or throws Zulip's error text for
 * the failure ("{var_name} is not an integer", "Invalid {var_name}", ...).
 */
export class Param<T> {
  constructor(
    readonly parseText: (raw: string, name: string) => T,
    readonly isOptional = false,
    readonly defaultValue: T | undefined = undefined,
    readonly aliases: readonly string[] = [],
  ) {}

  /** The parameter may be absent: the handler sees `undefined`. */
  optional(): Param<T | undefined> {
    return new Param<T | undefined>(this.parseText, true, undefined, this.aliases);
  }

  /** Absent means `value`. */
  default(value: T): Param<T> {
    return new Param<T>(this.parseText, true, value, this.aliases);
  }

  /** Other request names accepted for this parameter (e.g. `subject` for `topic`). */
  alias(...names: string[]): Param<T> {
    return new Param<T>(this.parseText, this.isOptional, this.defaultValue, [...this.aliases, ...names]);
  }

  /** Further validation/transformation after parsing; throw ApiError to reject. */
  refine<U>(fn: (value: T, name: string) => U): Param<U> {
    const inner = this.parseText;
    return new Param<U>((raw, name) => fn(inner(raw, name), name), this.isOptional, undefined, this.aliases);
  }
}

export type ParamSpec = Record<string, Param<any>>;
export type ParamValues<S extends ParamSpec> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

function parseJson(raw: string, name: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  checkJsonLimits(value, name);
  return value;
}

const NUL = /\u0000/;

function checkString(raw: string, name: string, opts: StringOptions): string {
  if (NUL.test(raw)) throw badRequest(`${name} contains NULL (0x00) characters.`);
  const value = opts.trim === false ? raw : raw.trim();
  if (opts.maxLength !== undefined && value.length > opts.maxLength) {
    throw badRequest(`${name} is too long (limit: ${opts.maxLength} characters)`);
  }
  if (opts.nonEmpty && value.length === 0) throw badRequest(`${name} cannot be blank`);
  return value;
}

interface StringOptions {
  maxLength?: number;
  nonEmpty?: boolean;
  /** Default true for `p.string`: surrounding whitespace is dropped. */
  trim?: boolean;
}

function intFromJson(value: unknown, name: string, min?: number, max?: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw badRequest(`${name} is not an integer`);
  if (min !== undefined && value < min) throw badRequest(`${name} is too small`);
  if (max !== undefined && value > max) throw badRequest(`${name} is too large`);
  return value;
}

/** The sub-schema at `path` inside `schema`, through arrays, objects, records and wrappers. */
function schemaAt(schema: z.core.$ZodType | undefined, path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let at: any = schema;
  for (let i = 0; at && i <= path.length;) {
    const def = at._zod.def;
    if (["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"].includes(def.type)) at = def.innerType;
    else if (def.type === "pipe") at = def.in;
    else if (i === path.length) break;
    else if (def.type === "array") {
      at = def.element;
      i++;
    } else if (def.type === "object") {
      at = def.shape[path[i] as string];
      i++;
    } else if (def.type === "record") {
      at = def.valueType;
      i++;
    } else if (def.type === "tuple") {
      at = def.items[path[i] as number] ?? def.rest;
      i++;
    } else return undefined;
  }
  return at;
}

/** z.int() carries its format itself; z.number().int() as a check. */
function isIntSchema(schema: z.core.$ZodType | undefined): boolean {
  const def = (schema as any)?._zod?.def;
  const formats = [def?.format, ...(def?.checks ?? []).map((c: any) => c?._zod?.def?.format)];
  return formats.some((f) => typeof f === "string" && f.includes("int"));
}

/**
 * Zod issues → Zulip's error templates (first issue wins, as in Zulip). Pass the schema so a
 * non-number where an integer belongs reads "is not an integer" (zod reports it as a number).
 */
function zodIssueToApiError(issue: z.core.$ZodIssue, name: string, schema?: z.core.$ZodType): ApiError {
  const decisive = issue.code === "invalid_union" ? decisiveUnionIssue(issue) : undefined;
  if (decisive) return zodIssueToApiError(decisive, name, schema);
  const varName = name + issue.path.map((p) => `[${JSON.stringify(p)}]`).join("");
  switch (issue.code) {
    case "invalid_type": {
      const expected = issue.expected === "number" && isIntSchema(schemaAt(schema, issue.path)) ? "int" : String(issue.expected);
      const noun: Record<string, string> = {
        int: "an integer",
        number: "a float",
        string: "a string",
        boolean: "a boolean",
        array: "a list",
        object: "a dict",
        record: "a dict",
      };
      if (expected in noun) return badRequest(`${varName} is not ${noun[expected]}`);
      return badRequest(`Invalid ${varName}`);
    }
    case "too_small":
      if (issue.origin === "string" && issue.minimum === 1) return badRequest(`${varName} cannot be blank`);
      if (issue.origin === "string") return badRequest(`${varName} is too short.`);
      return badRequest(`${varName} is too small`);
    case "too_big":
      if (issue.origin === "string") return badRequest(`${varName} is too long (limit: ${issue.maximum} characters)`);
      if (issue.origin === "array") return badRequest(`${varName} has too many items (limit: ${issue.maximum})`);
      return badRequest(`${varName} is too large`);
    case "unrecognized_keys":
      return badRequest(`Argument "${issue.keys[0]}" at ${varName} is unexpected`);
    case "custom":
      // A refinement's message may name the parameter as {var_name}.
      return badRequest(issue.message && issue.message !== "Invalid input" ? issue.message.replaceAll("{var_name}", varName) : `Invalid ${varName}`);
    default:
      return badRequest(`Invalid ${varName}`);
  }
}

/**
 * The issue that explains why a union failed when the value had the right type for exactly one
 * member (a list too long for the list member of `string | int | list`), with its full path;
 * undefined when the value fits no member's type.
 */
function decisiveUnionIssue(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue | undefined {
  const typeMatches = issue.errors.filter((branch) => !(branch[0]?.code === "invalid_type" && branch[0].path.length === 0));
  if (typeMatches.length !== 1) return undefined;
  const inner = typeMatches[0]?.[0];
  if (inner === undefined) return undefined;
  return { ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue;
}

export const p = {
  /** Plain text, trimmed unless `trim: false`. */
  string(opts: StringOptions = {}): Param<string> {
    return new Param((raw, name) => checkString(raw, name, opts));
  },

  /** Json[int]. */
  int(opts: { min?: number; max?: number } = {}): Param<number> {
    return new Param((raw, name) => intFromJson(parseJson(raw, name), name, opts.min, opts.max));
  },

  /** Json[bool]: the JSON literals true/false. */
  bool(): Param<boolean> {
    return new Param((raw, name) => {
      const value = parseJson(raw, name);
      if (typeof value !== "boolean") throw badRequest(`${name} is not a boolean`);
      return value;
    });
  },

  /** One of fixed strings (Literal[...]): anything else is "Invalid {name}". */
  enum<const V extends string>(values: readonly V[]): Param<V> {
    return new Param((raw, name) => {
      if (!(values as readonly string[]).includes(raw)) throw badRequest(`Invalid ${name}`);
      return raw as V;
    });
  },

  /** One of fixed integers (Json[Literal[...]]). */
  intEnum<const V extends number>(values: readonly V[]): Param<V> {
    return new Param((raw, name) => {
      const value = parseJson(raw, name);
      if (typeof value !== "number" || !Number.isInteger(value)) throw badRequest(`${name} is not an integer`);
      if (!(values as readonly number[]).includes(value)) throw badRequest(`Invalid ${name}`);
      return value as V;
    });
  },

  /** JSON text checked by a zod schema (lists, objects, unions). */
  json<S extends z.ZodType>(schema: S): Param<z.output<S>> {
    return new Param((raw, name) => {
      const result = schema.safeParse(parseJson(raw, name));
      if (!result.success) throw zodIssueToApiError(defined(result.error.issues[0], "a failed parse's issue"), name, schema);
      return result.data;
    });
  },

  /**
   * A value that may be plain text or JSON text (Zulip's `to`: "Denmark", "\"Denmark\"", "9",
   * "[9, 10]", "[\"a@x\"]"). Returns the parsed JSON when the text is valid JSON, else the text.
   */
  textOrJson(): Param<unknown> {
    return new Param((raw, name) => {
      if (NUL.test(raw)) throw badRequest(`${name} contains NULL (0x00) characters.`);
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        return raw;
      }
      checkJsonLimits(value, name);
      return value;
    });
  },
};

/** Path segment parsers: a malformed id in a path is a 400 with Zulip's text. */
export const pathParam = {
  int: (raw: string | undefined, name: string): number => {
    const text = pathParam.text(raw, name);
    if (!/^-?\d{1,15}$/.test(text)) throw badRequest(`${name} is not an integer`);
    return Number(text);
  },
  /** `/users/{user_id}` and `/users/{email}` share one segment: all digits means an id. */
  userIdOrEmail: (raw: string | undefined): number | string => {
    const text = pathParam.text(raw, "user_id_or_email");
    return /^\d+$/.test(text) ? pathParam.int(text, "user_id") : text;
  },
  /** A segment of the route's path: the router matched it, so it is always there. */
  text: (raw: string | undefined, name: string): string => defined(raw, `path parameter ${name}`),
};
