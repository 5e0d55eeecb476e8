/**
 * A map with at most `maxEntries` entries, for the process's caches (prepared statements, the
 * authentication cache, parsed JSON columns, compiled linkifiers), so that none grows with the
 * number of distinct keys it has seen. When a new key arrives at the bound, the entry added
 * longest ago goes (first in, first out): a hit costs one Map lookup and moves nothing, which is
 * what the hot paths need, and the keys these caches see again and again are re-added soon after
 * they go.
 *
 * With `ttlMs`, an entry also lives at most that long after it was set: `get` treats an older one
 * as absent and drops it. Callers that pass the time (`nowMs`) read the clock once per request.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAtMs: number }>();

  constructor(
    readonly maxEntries: number,
    readonly ttlMs = Infinity,
  ) {
    if (!(maxEntries >= 1)) throw new RangeError(`BoundedCache: maxEntries must be at least 1, not ${maxEntries}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, or undefined when it is absent or expired. */
  get(key: K, nowMs = this.ttlMs === Infinity ? 0 : Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` under `key` (as the newest entry), dropping the oldest entry when the cache is full. */
  set(key: K, value: V, nowMs = this.ttlMs === Infinity ? 0 : Date.now()): void {
    if (!this.entries.delete(key) && this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
    this.entries.set(key, { value, expiresAtMs: nowMs + this.ttlMs });
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Drops every entry whose value (or key) `predicate` accepts. */
  deleteWhere(predicate: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
