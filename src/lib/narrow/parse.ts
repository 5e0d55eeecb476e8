import * as z from "zod";
import { NARROW_OPERATOR_ALIASES } from "../../contract/constants.js";

/**
 * The `narrow` parameter: a JSON list of {operator, operand, negated} objects or legacy
 * [operator, operand] string pairs (Zulip's NarrowParameter). Operator names are canonicalized
 * here (stream → channel, pm-with → dm ...) so that builders see one name per operator.
 */
export type Operand = string | number | Array<string | number>;

export interface NarrowTerm {
  operator: string;
  operand: Operand;
  negated: boolean;
}

/**
 * Bounds that keep one narrow cheap to build and to run: real clients send a handful of short
 * terms (the web app's search box included).
 */
export const MAX_NARROW_TERMS = 100;
export const MAX_OPERAND_LENGTH = 1000;
export const MAX_OPERAND_ITEMS = 1000;

/** Text in a narrow: bounded, and without NUL bytes (which neither database stores). */
const text = (maxLength: number) =>
  z
    .string()
    .max(maxLength)
    .refine((value) => !value.includes("\u0000"), "{var_name} contains NULL (0x00) characters.");
const operand = z.union([text(MAX_OPERAND_LENGTH), z.int(), z.array(z.union([text(MAX_OPERAND_LENGTH), z.int()])).max(MAX_OPERAND_ITEMS)]);
const term = z.union([z.tuple([text(100), text(MAX_OPERAND_LENGTH)]), z.object({ operator: text(100), operand, negated: z.boolean().optional() })]);
export const narrowSchema = z.array(term).max(MAX_NARROW_TERMS);

export function canonicalTerms(raw: z.output<typeof narrowSchema>): NarrowTerm[] {
  return raw.map((t) => {
    const { operator, operand, negated } = Array.isArray(t) ? { operator: t[0], operand: t[1], negated: false } : t;
    const name = NARROW_OPERATOR_ALIASES[operator] ?? operator;
    const value = name === "is" && operand === "private" ? "dm" : operand;
    return { operator: name, operand: value, negated: negated ?? false };
  });
}
