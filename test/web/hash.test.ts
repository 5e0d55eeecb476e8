import { describe, expect, it } from "vitest";
import { ROUTED_HASHES } from "../../src/contract/hash.js";
import { apiNarrow, decodeHashComponent, encodeHashComponent, type Lookup, narrowHash, parseHash, parseNarrow } from "../../web/src/hash.js";

// The web app's URL hashes against the examples measured with Zulip's own implementations (WEBAPP.md).
const channels = new Map([
  [1, { name: "Verona" }],
  [5, { name: "social media" }],
  [7, { name: "été" }],
]);
const people = new Map([
  [9, { full_name: "King Hamlet", email: "hamlet@zulip.com" }],
  [12, { full_name: "Othello, the Moor of Venice", email: "othello@zulip.com" }],
  [15, { full_name: 'A "quoted" <name>/x', email: "odd@zulip.com" }],
]);
const lookup: Lookup = {
  myId: 9,
  channelById: (id) => channels.get(id),
  channelIdByName: (name) => [...channels].find(([, c]) => c.name.toLowerCase() === name.toLowerCase())?.[0],
  userById: (id) => people.get(id),
  userIdByEmail: (email) => [...people].find(([, u]) => u.email === email)?.[0],
};
const term = (operator: string, operand: string, negated = false) => ({ operator, operand, negated });

describe("hash component encoding", () => {
  it.each([
    ["test topic", "test.20topic"],
    ["v1.2 release", "v1.2E2.20release"],
    ["(no topic)", ".28no.20topic.29"],
    ["100% done", "100.25.20done"],
    ["a/b", "a.2Fb"],
    ["café", "caf.C3.A9"],
    ["it's ok!", "it's.20ok!"],
    ["~tilde*star", "~tilde*star"],
  ])("%s ↔ %s", (text, encoded) => {
    expect(encodeHashComponent(text)).toBe(encoded);
    expect(decodeHashComponent(encoded)).toBe(text);
  });

  it("decodes the server's spellings too, and refuses a raw dot", () => {
    expect(decodeHashComponent("it.27s.20ok.21")).toBe("it's ok!");
    expect(decodeHashComponent("~tilde.2Astar")).toBe("~tilde*star");
    expect(decodeHashComponent("v1.2")).toBeNull();
  });
});

describe("narrow hashes", () => {
  it("writes channel, topic, DM and sender slugs as Zulip does", () => {
    expect(narrowHash([term("channel", "1"), term("topic", "test topic")], lookup)).toBe("#narrow/channel/1-Verona/topic/test.20topic");
    expect(narrowHash([term("channel", "5")], lookup)).toBe("#narrow/channel/5-social-media");
    expect(narrowHash([term("channel", "7")], lookup)).toBe("#narrow/channel/7-.C3.A9t.C3.A9");
    expect(narrowHash([term("dm", "12")], lookup)).toBe("#narrow/dm/12-Othello,-the-Moor-of-Venice");
    expect(narrowHash([term("dm", "12,15")], lookup)).toBe("#narrow/dm/12,15-group");
    expect(narrowHash([term("sender", "15")], lookup)).toBe("#narrow/sender/15-A-quoted-name-x");
    expect(narrowHash([term("is", "resolved", true), term("search", "new logo")], lookup)).toBe("#narrow/-is/resolved/search/new.20logo");
    expect(narrowHash([term("topic", "")], lookup)).toBe("#narrow/topic/");
  });

  it("reads what it writes", () => {
    for (const terms of [
      [term("channel", "1"), term("topic", "v1.2 (beta) 100%")],
      [term("dm", "12")],
      [term("dm", "12,15")],
      [term("channel", "7"), term("topic", "café")],
      [term("is", "starred")],
      [term("search", "a/b c")],
      [term("channel", "1"), term("topic", "x"), term("near", "1234")],
    ]) {
      expect(parseNarrow(narrowHash(terms, lookup), lookup)).toEqual(terms);
    }
  });

  it("accepts the old spellings: stream, subject, pm-with, group-pm-with, is:private, channel names", () => {
    expect(parseNarrow("#narrow/stream/Verona/subject/x", lookup)).toEqual([term("channel", "1"), term("topic", "x")]);
    expect(parseNarrow("#narrow/stream/1-Verona/topic/x", lookup)).toEqual([term("channel", "1"), term("topic", "x")]);
    expect(parseNarrow("#narrow/stream/social.20media", lookup)).toEqual([term("channel", "5")]);
    expect(parseNarrow("#narrow/pm-with/12-othello", lookup)).toEqual([term("dm", "12")]);
    expect(parseNarrow("#narrow/group-pm-with/12,15-group", lookup)).toEqual([term("dm-including", "12,15")]);
    expect(parseNarrow("#narrow/is/private", lookup)).toEqual([term("is", "dm")]);
    expect(parseNarrow("#narrow/has/images", lookup)).toEqual([term("has", "image")]);
    expect(parseNarrow("#narrow/from/othello.40zulip.2Ecom", lookup)).toEqual([term("sender", "12")]);
    expect(parseNarrow("#narrow/sender/me", lookup)).toEqual([term("sender", "9")]);
  });

  it("reads DM slugs by their ids only, dropping the viewer unless alone", () => {
    expect(parseNarrow("#narrow/dm/9,12-dm/near/1234", lookup)).toEqual([term("dm", "12"), term("near", "1234")]);
    expect(parseNarrow("#narrow/dm/12", lookup)).toEqual([term("dm", "12")]);
    expect(parseNarrow("#narrow/dm/9-King-Hamlet", lookup)).toEqual([term("dm", "9")]);
  });

  it("takes an id slug of an unknown channel as a name, and a trailing slash as nothing", () => {
    expect(parseNarrow("#narrow/channel/99-Gone", lookup)).toEqual([term("channel", "99-Gone")]);
    expect(parseNarrow("#narrow/channel/1-Verona/", lookup)).toEqual([term("channel", "1")]);
  });

  it("refuses operators without operands, empty operands other than topic, and undecodable text", () => {
    expect(parseNarrow("#narrow/channel", lookup)).toBeNull();
    expect(parseNarrow("#narrow/is/", lookup)).toBeNull();
    expect(parseNarrow("#narrow/topic/v1.2", lookup)).toBeNull();
  });

  it("turns terms into the API's narrow with ids as numbers", () => {
    expect(apiNarrow([term("channel", "1"), term("topic", "x"), term("dm", "12,15"), term("sender", "12", true)])).toEqual([
      { operator: "channel", operand: 1 },
      { operator: "topic", operand: "x" },
      { operator: "dm", operand: [12, 15] },
      { operator: "sender", operand: 12, negated: true },
    ]);
  });
});

describe("top-level hashes", () => {
  it("maps views, aliases, overlays and unknown hashes", () => {
    expect(parseHash("", lookup)).toEqual({ kind: "home" });
    expect(parseHash("#", lookup)).toEqual({ kind: "home" });
    expect(parseHash("#inbox", lookup)).toEqual({ kind: "inbox" });
    expect(parseHash("#recent_topics", lookup)).toEqual({ kind: "recent" });
    expect(parseHash("#all_messages", lookup)).toEqual({ kind: "feed" });
    expect(parseHash("#feed", lookup)).toEqual({ kind: "feed" });
    expect(parseHash("#streams/all", lookup)).toEqual({ kind: "overlay", name: "channels", path: ["all"] });
    expect(parseHash("#settings/account-and-privacy", lookup)).toEqual({ kind: "overlay", name: "settings", path: ["account-and-privacy"] });
    expect(parseHash("#settings", lookup)).toEqual({ kind: "overlay", name: "settings", path: [] });
    expect(parseHash("#narrow/channel", lookup)).toEqual({ kind: "invalid" });
    expect(parseHash("#nonsense", lookup)).toEqual({ kind: "home" });
  });

  it("routes every hash the sign-in page passes through sign-in (ROUTED_HASHES), and no other", () => {
    for (const first of ROUTED_HASHES) {
      const hash = first === "narrow" ? "#narrow/is/starred" : `#${first}`;
      expect(parseHash(hash, lookup).kind, hash).not.toBe("home");
    }
    for (const hash of ["#nonsense", "#topics/channel/1-Verona"]) {
      expect(ROUTED_HASHES).not.toContain(hash.slice(1).split("/")[0]);
      expect(parseHash(hash, lookup).kind, hash).toBe("home");
    }
  });
});
