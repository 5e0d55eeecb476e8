import { describe, expect, it } from "vitest";
import { pyTruthy } from "../../src/integrations/python.js";
import { globalTime, globalTimeFromUnix, stripTags } from "../../src/integrations/trackerText.js";

describe("tracker text helpers", () => {
  it("global times keep the given offset, to the second", () => {
    expect(globalTime("2026-04-28T13:56:05.934000Z")).toBe("<time:2026-04-28T13:56:05+00:00>");
    expect(globalTime("2001-02-03T04:05:06.789+07:08")).toBe("<time:2001-02-03T04:05:06+07:08>");
    expect(globalTime("2001-02-03T04:05:06-0708")).toBe("<time:2001-02-03T04:05:06-07:08>");
    expect(globalTime("2026-05-11")).toBe("<time:2026-05-11T00:00:00+00:00>");
    expect(() => globalTime("tomorrow")).toThrow(/isoformat/);
    expect(globalTimeFromUnix(1603730394.619)).toBe("<time:2020-10-26T16:39:54+00:00>");
  });

  it("Python truthiness", () => {
    expect([null, undefined, false, 0, "", [], {}].map(pyTruthy)).toEqual(Array(7).fill(false));
    expect([true, 1, "x", [0], { a: 1 }].map(pyTruthy)).toEqual(Array(5).fill(true));
  });

  it("HTML reduced to its text", () => {
    expect(stripTags('<p>Try <b>Settings</b> &amp; <a href="https://x.example">help</a>&#33;</p><!-- note -->')).toBe("Try Settings & help!");
    expect(stripTags("&lt;script&gt;alert(1)&lt;/script&gt; &unknown; &#x1F600;")).toBe("<script>alert(1)</script> &unknown; 😀");
  });
});
