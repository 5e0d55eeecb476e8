import { describe, expect, it } from "vitest";
import { at, defined, group } from "./defined.js";

describe("defined", () => {
  it("returns a present value, falsy ones included", () => {
    expect(defined(0, "zero")).toBe(0);
    expect(defined("", "empty")).toBe("");
    expect(defined(null, "null")).toBeNull();
  });

  it("throws an internal error naming what is missing", () => {
    expect(() => defined([1][1], "the second item")).toThrow("Internal error: the second item is missing");
  });
});

describe("group", () => {
  it("returns a group that took part, and throws for one that did not", () => {
    const match = /^(a)(b)?$/.exec("a");
    expect(match).not.toBeNull();
    expect(group(match!, 1)).toBe("a");
    expect(() => group(match!, 2)).toThrow("group 2");
  });
});

describe("at", () => {
  it("returns an element from either end, and throws naming the index for one beyond the list", () => {
    expect(at([1, 2, 3], 0)).toBe(1);
    expect(at([1, 2, 3], -1)).toBe(3);
    expect(() => at([1, 2, 3], 3)).toThrow("Internal error: element 3 of a list of 3 is missing");
  });
});
