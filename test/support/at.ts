import { defined } from "../../src/util/defined.js";

/** Element `index` of `list` (negative counts from the end); throws naming the index when it is missing. */
export function at<T>(list: readonly T[], index: number): T {
  return defined(list.at(index), `an element at ${index} (of ${list.length})`);
}

/** The only element of `list`; throws when it has none or more than one. */
export function only<T>(list: readonly T[]): T {
  if (list.length !== 1) throw new Error(`expected exactly one element, got ${list.length}`);
  return at(list, 0);
}
