import { describe, expect, it } from "vitest";
import { Payload } from "../../src/integrations/payload.js";
import { parsePyJson, pyFloatRepr, pyStr } from "../../src/integrations/python.js";
import { globalTimeFromIso, globalTimeFromMillis } from "../../src/integrations/monitoringText.js";

describe("monitoringText", () => {
  it("prints floats as Python's repr does", () => {
    const cases: Array<[number, string]> = [
      [1, "1.0"],
      [13.33, "13.33"],
      [14151.331895396988, "14151.331895396988"],
      [0.1 + 0.2, "0.30000000000000004"],
      [1e16, "1e+16"],
      [1.5e16, "1.5e+16"],
      [123456789012345.6, "123456789012345.6"],
      [1234567890123456.75, "1234567890123456.8"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [-2.5e-7, "-2.5e-07"],
      [1e22, "1e+22"],
      [-0, "-0.0"],
      [100, "100.0"],
    ];
    for (const [x, text] of cases) expect(pyFloatRepr(x)).toBe(text);
  });

  it("keeps JSON floats apart from ints, as Python's json does", () => {
    const p = new Payload(parsePyJson('{"a": 2000, "b": 2000.0, "c": [1e3, null, true, "x\'y"], "d": {"k": 1.50}, "e": 12345678901234567890}'));
    expect(pyStr(p.get("a").value)).toBe("2000");
    expect(pyStr(p.get("b").value)).toBe("2000.0");
    expect(pyStr(p.get("c").value)).toBe('[1000.0, None, True, "x\'y"]');
    expect(pyStr(p.get("d").value)).toBe("{'k': 1.5}");
    expect(pyStr(p.get("e").value)).toBe("12345678901234567890");
  });

  it("formats Zulip's global times", () => {
    expect(globalTimeFromIso("2022-08-31T05:54:04.52289368Z")).toBe("<time:2022-08-31T05:54:04+00:00>");
    expect(globalTimeFromIso("2021-10-12T09:51:03.157076+02:00")).toBe("<time:2021-10-12T09:51:03+02:00>");
    expect(globalTimeFromIso("2024-03-01T02:09:00Z")).toBe("<time:2024-03-01T02:09:00+00:00>");
    expect(globalTimeFromIso("2001-02-03T04:05:06-07:08")).toBe("<time:2001-02-03T04:05:06-07:08>");
    expect(() => globalTimeFromIso("2001-02-03T04:05:06")).toThrow("has no time zone");
    expect(globalTimeFromMillis(1713770077412)).toBe("<time:2024-04-22T07:14:37+00:00>");
  });
});
