import { z } from "zod";

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
