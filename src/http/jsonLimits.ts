import { badRequest } from "../lib/errors.js";

/**
 * Bounds on JSON that clients send (a JSON body, or JSON text in a parameter). Parsing deep or
 * long JSON is cheap, but walking it recursively (JSON.stringify, validation) overflows the stack
 * and long lists turn into SQL statements beyond the engines' parameter limits; both are refused
 * with a 400 before anything else looks at the value.
 */
const MAX_JSON_DEPTH = 32;
/** Elements of all the lists in one value together (message ids, user ids, channel names...). */
const MAX_JSON_LIST_ITEMS = 10_000;

/** Throws Zulip-style 400s when `value` is nested deeper or holds more list items than allowed. */
export function checkJsonLimits(value: unknown, name: string): void {
  if (value === null || typeof value !== "object") return;
  let items = 0;
  // Iterative walk: the value may be nested far deeper than the call stack allows.
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) throw badRequest(`${name} is nested too deeply (limit: ${MAX_JSON_DEPTH} levels)`);
    const children = Array.isArray(node) ? node : Object.values(node);
    if (Array.isArray(node)) {
      items += node.length;
      if (items > MAX_JSON_LIST_ITEMS) throw badRequest(`${name} has too many items (limit: ${MAX_JSON_LIST_ITEMS})`);
    }
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
}
