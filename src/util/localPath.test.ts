import { describe, expect, it } from "vitest";
import { localPath } from "./localPath.js";

describe("localPath", () => {
  it("keeps a path on this server, its query and fragment included", () => {
    expect(localPath("/")).toBe("/");
    expect(localPath("/#narrow/channel/1-general")).toBe("/#narrow/channel/1-general");
    expect(localPath("/help/?a=b%20c")).toBe("/help/?a=b%20c");
  });

  it("refuses anything that may lead to another host, and what is not a string", () => {
    for (const value of ["//evil.example", "/\\evil.example", "https://evil.example", "evil.example", " /x", "", undefined, 5, ["/"]]) {
      expect(localPath(value)).toBeUndefined();
    }
  });

  it("percent-encodes what is not printable ASCII, so a dropped tab cannot make //host", () => {
    expect(localPath("/\t/evil.example")).toBe("/%09/evil.example");
    expect(localPath("/\n/evil.example")).toBe("/%0A/evil.example");
    expect(localPath("/caf\u00e9 \u2603")).toBe("/caf%C3%A9%20%E2%98%83");
  });
});
