import { describe, expect, it } from "vitest";
import { escapeDnValue, escapeFilterValue } from "./directory.js";

describe("LDAP escaping of what people type", () => {
  it("escapes a DN value (RFC 4514), so a username cannot add or change RDNs", () => {
    expect(escapeDnValue("hamlet")).toBe("hamlet");
    expect(escapeDnValue("hamlet,ou=admins")).toBe("hamlet\\,ou\\=admins");
    expect(escapeDnValue('a+b;c<d>e"f\\g')).toBe('a\\+b\\;c\\<d\\>e\\"f\\\\g');
    expect(escapeDnValue("#x")).toBe("\\#x");
    expect(escapeDnValue(" x ")).toBe("\\ x\\ ");
    expect(escapeDnValue("a\0b")).toBe("a\\00b");
  });

  it("escapes a filter value (RFC 4515), so a username cannot widen a search", () => {
    expect(escapeFilterValue("ham*")).toBe("ham\\2a");
    expect(escapeFilterValue("x)(uid=*")).toBe("x\\29\\28uid=\\2a");
    expect(escapeFilterValue("a\\b\0")).toBe("a\\5cb\\00");
  });
});
