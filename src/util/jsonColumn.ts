import * as z from "zod";
import { BoundedCache } from "./boundedCache.js";

/**
 * The value of a JSON text column, parsed and checked against the column's schema. Stored values
 * are written by our own code, so one that does not match is a bug or a damaged row: the error
 * names the column instead of letting a wrong shape travel on.
 */
export function parseJsonColumn<S extends z.ZodType>(schema: S, text: string, column: string): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${column}: the stored text is not JSON`);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`${column} does not match its schema: ${z.prettifyError(result.error)}`);
  return result.data;
}

/**
 * The schema of a settings column that stores only non-default values: each known key must have
 * its default's type or null (null defaults take any value); other keys (e.g. group-permission ids) are
 * kept as they are.
 */
export function overridesSchema(defaults: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, value] of Object.entries(defaults)) {
    const type = typeof value === "boolean" ? z.boolean() : typeof value === "number" ? z.number() : typeof value === "string" ? z.string() : z.unknown();
    shape[name] = type.nullable().optional();
  }
  return z.looseObject(shape);
}

/**
 * parseJsonColumn for columns read on hot paths (every user's settings in a payload): parsed
 * values are kept by their text, at most `limit` of them.
 */
export function cachedJsonColumn<T>(schema: z.ZodType<T>, column: string, limit = 2000): (text: string) => T {
  const cache = new BoundedCache<string, T>(limit);
  return (text) => {
    let value = cache.get(text);
    if (value === undefined) {
      value = parseJsonColumn(schema, text, column) as T;
      cache.set(text, value);
    }
    return value;
  };
}
