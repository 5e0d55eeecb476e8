/**
 * `value`, which the surrounding code guarantees (an index within bounds, a key put in the map just
 * before, a regular expression's group that always takes part): an undefined one is a bug here, so
 * it throws an internal error (a 500 for a request) naming `what` instead of failing later.
 */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Internal error: ${what} is missing`);
  return value;
}

/** Group `index` of `match`, of a pattern in which that group takes part in every match. */
export function group(match: RegExpMatchArray, index: number): string {
  return defined(match[index], `group ${index} of a regular expression match`);
}

/**
 * Element `index` of `list` (negative counts from the end), which the surrounding code guarantees
 * (lists that hold one item per message of a batch, rows a query returns one per key, …).
 */
export function at<T>(list: readonly T[], index: number): T {
  const value = list.at(index);
  if (value === undefined) throw new Error(`Internal error: element ${index} of a list of ${list.length} is missing`);
  return value;
}
