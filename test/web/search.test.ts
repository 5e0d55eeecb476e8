import { describe, expect, it } from "vitest";
import { parseSearch, type SearchContext, suggest } from "../../web/src/search.js";
import { at } from "../support/at.js";

// The search box: Zulip's operators parsed into a narrow, and suggestions for what is typed.
const ctx: SearchContext = {
  myId: 10,
  channels: [
    { id: 1, name: "Verona" },
    { id: 3, name: "Denmark" },
    { id: 5, name: "social media" },
  ],
  users: [
    { id: 10, name: "King Hamlet", email: "hamlet@zulip.com" },
    { id: 12, name: "Othello, the Moor of Venice", email: "othello@zulip.com" },
    { id: 11, name: "Iago", email: "iago@zulip.com" },
  ],
  topicsOf: (id) => (id === 1 ? ["lunch plans", "release 1.2"] : id === 3 ? ["castle"] : []),
};
const texts = (typed: string) => suggest(typed, ctx).map((s) => s.text);

describe("parseSearch", () => {
  it("reads operators, aliases, negation, quotes and words", () => {
    expect(parseSearch("channel:Verona topic:lunch+plans hello world", ctx)).toEqual([
      { operator: "channel", operand: "1", negated: false },
      { operator: "topic", operand: "lunch plans", negated: false },
      { operator: "search", operand: "hello world", negated: false },
    ]);
    expect(parseSearch('stream:"social media" -is:resolved from:iago@zulip.com', ctx)).toEqual([
      { operator: "channel", operand: "5", negated: false },
      { operator: "is", operand: "resolved", negated: true },
      { operator: "sender", operand: "11", negated: false },
    ]);
    expect(parseSearch("dm:othello@zulip.com,iago@zulip.com has:images is:private", ctx)).toEqual([
      { operator: "dm", operand: "12,11", negated: false },
      { operator: "has", operand: "image", negated: false },
      { operator: "is", operand: "dm", negated: false },
    ]);
    expect(parseSearch("sender:me", ctx)).toEqual([{ operator: "sender", operand: "10", negated: false }]);
    // Unknown operators and empty operands are search words.
    expect(parseSearch("foo:bar channel: edited", ctx)).toEqual([{ operator: "search", operand: "foo:bar channel: edited", negated: false }]);
    expect(parseSearch("channel:Nowhere", ctx)).toEqual([{ operator: "channel", operand: "Nowhere", negated: false }]);
  });
});

describe("suggest", () => {
  it("offers the operators for an empty box", () => {
    expect(texts("")).toEqual(["channel:", "topic:", "sender:", "dm:", "is:", "has:"]);
    expect(at(suggest("", ctx), 0).partial).toBe(true);
  });

  it("completes channel names, topics of the chosen channel, and people", () => {
    expect(texts("channel:ver")).toEqual(["channel:Verona "]);
    expect(texts("stream:soc")).toEqual(["stream:social+media "]);
    expect(texts("channel:Verona topic:")).toEqual(["channel:Verona topic:lunch+plans ", "channel:Verona topic:release+1.2 "]);
    expect(texts("channel:Denmark topic:c")).toEqual(["channel:Denmark topic:castle "]);
    expect(texts("sender:oth")).toEqual(["sender:othello@zulip.com "]);
    expect(texts("from:ia")).toEqual(["from:iago@zulip.com "]);
    expect(texts("dm:moor")).toEqual(["dm:othello@zulip.com "]);
    expect(texts("sender:m")).toContain("sender:me ");
  });

  it("completes is: and has: values, negated too", () => {
    expect(texts("is:")).toEqual(["is:starred ", "is:mentioned ", "is:unread ", "is:resolved ", "is:followed ", "is:dm ", "is:alerted "]);
    expect(texts("is:st")).toEqual(["is:starred "]);
    expect(texts("-is:res")).toEqual(["-is:resolved "]);
    expect(at(suggest("-is:res", ctx), 0).description).toBe("Exclude topics marked as resolved");
    expect(texts("has:")).toEqual(["has:link ", "has:image ", "has:attachment ", "has:reaction "]);
    expect(texts("has:im")).toEqual(["has:image "]);
  });

  it("suggests the search itself first for a word, then operators, channels and people it starts", () => {
    const list = suggest("is:starred oth", ctx);
    expect(list[0]).toEqual({ text: "is:starred oth", description: "Search for is:starred oth", partial: false });
    expect(list.map((s) => s.text)).toContain("is:starred sender:othello@zulip.com ");
    expect(list.map((s) => s.text)).toContain("is:starred dm:othello@zulip.com ");
    expect(texts("ver")).toEqual(["ver", "channel:Verona "]);
    expect(texts("cha")).toEqual(["cha", "channel:"]);
    expect(texts("star")).toEqual(["star", "is:starred "]);
  });
});
