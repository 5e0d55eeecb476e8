import { z } from "zod";

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

const operand = z.union([z.string(), z.int(), z.array(z.union([z.string(), z.int()]))]);
const term = z.union([
  z.tuple([z.string(), z.string()]),
  z.object({ operator: z.string(), operand, negated: z.boolean().optional() }),
]);
export const narrowSchema = z.array(term);

const ALIASES: Record<string, string> = {
  stream: "channel",
  streams: "channels",
  subject: "topic",
  "pm-with": "dm",
  "group-pm-with": "dm-including",
};

export function canonicalTerms(raw: z.output<typeof narrowSchema>): NarrowTerm[] {
  return raw.map((t) => {
    const { operator, operand, negated } = Array.isArray(t) ? { operator: t[0], operand: t[1], negated: false } : t;
    const name = ALIASES[operator] ?? operator;
    const value = name === "is" && operand === "private" ? "dm" : operand;
    return { operator: name, operand: value, negated: negated ?? false };
  });
}
