import { describe, expect, it } from "vitest";
import { BoundedCache } from "./boundedCache.js";

describe("BoundedCache", () => {
  it("keeps at most maxEntries, dropping the entry added longest ago", () => {
    const cache = new BoundedCache<string, number>(3);
    for (const [i, key] of ["a", "b", "c"].entries()) cache.set(key, i);
    expect(cache.get("a")).toBe(0); // a hit does not make an entry younger
    cache.set("d", 3);
    expect(cache.size).toBe(3);
    expect(cache.get("a")).toBeUndefined();
    expect([cache.get("b"), cache.get("c"), cache.get("d")]).toEqual([1, 2, 3]);
  });

  it("replaces a key's value without dropping another entry, and the key becomes the newest", () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 10);
    expect(cache.size).toBe(2);
    expect(cache.get("b")).toBe(2);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(10);
  });

  it("keeps values that are null or falsy", () => {
    const cache = new BoundedCache<string, number | null>(2);
    cache.set("none", null);
    cache.set("zero", 0);
    expect(cache.get("none")).toBeNull();
    expect(cache.get("zero")).toBe(0);
    expect(cache.get("absent")).toBeUndefined();
  });

  it("with a TTL, treats an entry as absent from ttlMs after it was set, and drops it", () => {
    const cache = new BoundedCache<string, string>(10, 1000);
    cache.set("a", "x", 5000);
    expect(cache.get("a", 5999)).toBe("x");
    expect(cache.get("a", 6000)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set("b", "y");
    expect(cache.get("b")).toBe("y"); // the clock when no time is passed
  });

  it("without a TTL, never expires an entry", () => {
    const cache = new BoundedCache<string, string>(10);
    cache.set("a", "x", 0);
    expect(cache.get("a", Number.MAX_SAFE_INTEGER)).toBe("x");
  });

  it("deletes one key, the entries a predicate accepts, or all", () => {
    const cache = new BoundedCache<number, { realm: number }>(10);
    for (let id = 1; id <= 6; id++) cache.set(id, { realm: id % 2 });
    expect(cache.delete(1)).toBe(true);
    expect(cache.delete(1)).toBe(false);
    cache.deleteWhere((value) => value.realm === 0);
    expect([...[1, 2, 3, 4, 5, 6].filter((id) => cache.get(id) !== undefined)]).toEqual([3, 5]);
    cache.deleteWhere((_value, key) => key === 5);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it("refuses a bound below one", () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
    expect(() => new BoundedCache(Number.NaN)).toThrow(RangeError);
  });
});
