import { createRequire } from "node:module";
import { at } from "../support/at.js";
import { describe, expect, it } from "vitest";
import {
  applyCompletion,
  completionText,
  findToken,
  matchChannels,
  matchEmoji,
  matchMentions,
  matchRecipients,
  matchTopics,
  type Person,
  type Suggestion,
} from "../../web/src/composeTypeahead.js";
import { buildCatalogue, type EmojiTable } from "../../web/src/emojiSearch.js";
import { applyFormat, formatForKey } from "../../web/src/composeFormat.js";
import { nextMondayAt9, parseLocalDateTime, tomorrowAt9 } from "../../web/src/sendLater.js";

// The compose box's typeahead (what is typed before the cursor, what it matches, the Zulip syntax
// a choice inserts), its formatting buttons and the "Send later" times: pure functions.
const people: Person[] = [
  { user_id: 10, full_name: "King Hamlet", email: "hamlet@zulip.com" },
  { user_id: 11, full_name: "Iago", email: "iago@zulip.com" },
  { user_id: 12, full_name: "Othello, the Moor of Venice", email: "othello@zulip.com" },
  { user_id: 8, full_name: "Cordelia, Lear's daughter", email: "cordelia@zulip.com" },
  { user_id: 20, full_name: "José Martí", email: "jose@example.com" },
  { user_id: 21, full_name: "Ghost", email: "ghost@example.com", is_active: false },
];
const groups = [
  { id: 1, name: "role:everyone", is_system_group: true },
  { id: 2, name: "hamletcharacters", description: "Characters of Hamlet" },
  { id: 3, name: "old group", deactivated: true },
];
const channels = [
  { stream_id: 1, name: "Verona" },
  { stream_id: 2, name: "Denmark" },
  { stream_id: 3, name: "design team" },
];
const mentions = (query: string, options: { inChannel?: boolean; silent?: boolean } = {}) =>
  matchMentions(query, { people, groups, inChannel: options.inChannel ?? true, silent: options.silent ?? false }, 20).map((s) =>
    s.kind === "person" ? s.person.full_name : s.kind === "group" ? `group:${s.group.name}` : s.kind === "wildcard" ? `*${s.name}` : "?",
  );
const type = (text: string, suggestion: Suggestion) => {
  const token = findToken(text)!;
  return applyCompletion(text, text.length, token, completionText(token, suggestion, people));
};

describe("compose typeahead: the token before the cursor", () => {
  it("finds mentions, silent mentions, channels, channel topics and emoji", () => {
    expect(findToken("hi @ham")).toEqual({ kind: "mention", silent: false, query: "ham", start: 3 });
    expect(findToken("@_Iag")).toEqual({ kind: "mention", silent: true, query: "Iag", start: 0 });
    expect(findToken("see @**King Ha")).toEqual({ kind: "mention", silent: false, query: "King Ha", start: 4 });
    expect(findToken("go to #ver")).toEqual({ kind: "channel", query: "ver", start: 6 });
    expect(findToken("#")).toEqual({ kind: "channel", query: "", start: 0 });
    expect(findToken("in #**Verona>lun")).toEqual({ kind: "topic-link", channel: "Verona", query: "lun", start: 3 });
    expect(findToken("nice :sm")).toEqual({ kind: "emoji", query: "sm", start: 5 });
  });

  it("ignores what is not a token: e-mail addresses, headings, times, finished mentions", () => {
    expect(findToken("mail hamlet@zulip")).toBeNull();
    expect(findToken("# Heading")).toBeNull();
    expect(findToken("at 10:30")).toBeNull();
    expect(findToken("a :x")).toBeNull();
    expect(findToken("@**King Hamlet** ")).toBeNull();
    expect(findToken("#**Verona** ")).toBeNull();
    expect(findToken("issue#12")).toBeNull();
    expect(findToken("@a b c d e")).toBeNull();
  });
});

describe("compose typeahead: matching", () => {
  it("matches people by the start of the name or of a word, and by email; not deactivated people", () => {
    expect(mentions("ham")).toEqual(["King Hamlet", "group:hamletcharacters"]);
    expect(mentions("king")).toEqual(["King Hamlet"]);
    expect(mentions("moor of")).toEqual(["Othello, the Moor of Venice"]);
    expect(mentions("cordelia@")).toEqual(["Cordelia, Lear's daughter"]);
    expect(mentions("jose")).toEqual(["José Martí"]);
    expect(mentions("ghost")).toEqual([]);
  });

  it("ranks a whole-name prefix before a later word", () => {
    const list = [
      { user_id: 1, full_name: "Anna Rose", email: "a@x" },
      { user_id: 2, full_name: "Rose Anna", email: "r@x" },
    ];
    const names = matchMentions("rose", { people: list, groups: [], inChannel: true, silent: false }).map((s) =>
      s.kind === "person" ? s.person.full_name : "",
    );
    expect(names).toEqual(["Rose Anna", "Anna Rose"]);
  });

  it("offers wildcards first; channel and topic only in channels; none for silent mentions", () => {
    expect(mentions("").slice(0, 4)).toEqual(["*all", "*everyone", "*channel", "*topic"]);
    expect(mentions("", { inChannel: false }).slice(0, 3)).toEqual(["*all", "*everyone", "Cordelia, Lear's daughter"]);
    expect(mentions("", { inChannel: false })).not.toContain("*topic");
    expect(mentions("top")).toEqual(["*topic"]);
    expect(mentions("", { silent: true })).not.toContain("*all");
    expect(mentions("")).not.toContain("group:role:everyone");
    expect(mentions("old")).toEqual([]);
  });

  it("matches channels by a word's start, and a channel's topics keeping their recency", () => {
    expect(matchChannels("de", channels).map((s) => (s.kind === "channel" ? s.channel.name : ""))).toEqual(["Denmark", "design team"]);
    expect(matchChannels("team", channels).map((s) => (s.kind === "channel" ? s.channel.name : ""))).toEqual(["design team"]);
    expect(matchTopics("lu", ["castle", "lunch plans", "Lunar", "salute"])).toEqual(["lunch plans", "Lunar", "salute"]);
    expect(matchTopics("", ["b", "a"])).toEqual(["b", "a"]);
  });

  it("matches emoji from the emoji table and custom emoji", () => {
    const table = createRequire(import.meta.url)("../../src/lib/emojiTable.json") as EmojiTable;
    const catalogue = buildCatalogue(table, [{ id: "1", name: "parley_logo", source_url: "/x.png", deactivated: false }]);
    const names = (q: string) => matchEmoji(q, catalogue, 3).map((s) => (s.kind === "emoji" ? s.emoji.name : ""));
    expect(names("thumbs_up")[0]).toBe("thumbs_up");
    expect(names("parl")).toEqual(["parley_logo"]);
  });
});

describe("compose typeahead: what a choice inserts", () => {
  it("writes Zulip's mention syntax, with the id when two people share a name", () => {
    expect(type("hi @ham", { kind: "person", person: at(people, 0) })).toEqual({ text: "hi @**King Hamlet** ", cursor: 20 });
    expect(type("@_ia", { kind: "person", person: at(people, 1) }).text).toBe("@_**Iago** ");
    expect(type("@al", { kind: "wildcard", name: "all", description: "" }).text).toBe("@**all** ");
    expect(type("@ham", { kind: "group", group: at(groups, 1) }).text).toBe("@*hamletcharacters* ");
    expect(type("@_ham", { kind: "group", group: at(groups, 1) }).text).toBe("@_*hamletcharacters* ");
    const twins = [...people, { user_id: 99, full_name: "King Hamlet", email: "other@x" }];
    const token = findToken("@king")!;
    expect(completionText(token, { kind: "person", person: at(twins, 6) }, twins)).toBe("@**King Hamlet|99** ");
  });

  it("writes channel links, topic links and emoji", () => {
    expect(type("see #ver", { kind: "channel", channel: at(channels, 0) }).text).toBe("see #**Verona** ");
    expect(type("see #**Verona>lu", { kind: "topic", channel: "Verona", topic: "lunch" }).text).toBe("see #**Verona>lunch** ");
    expect(type("ok :thu", { kind: "emoji", emoji: { name: "thumbs_up", code: "1f44d", type: "unicode_emoji" } }).text).toBe("ok :thumbs_up: ");
  });

  it("keeps the text after the cursor, without doubling a space", () => {
    const token = findToken("hi @ha")!;
    expect(applyCompletion("hi @ha there", 6, token, "@**King Hamlet** ")).toEqual({ text: "hi @**King Hamlet** there", cursor: 20 });
    expect(applyCompletion("hi @hathere", 6, token, "@**King Hamlet** ")).toEqual({ text: "hi @**King Hamlet** there", cursor: 20 });
  });
});

describe("compose formatting buttons", () => {
  const fmt = (format: Parameters<typeof applyFormat>[0], marked: string) => {
    // "[" and "]" mark the selection in `marked`.
    const start = marked.indexOf("[");
    const end = marked.indexOf("]") - 1;
    const r = applyFormat(format, { text: marked.replace("[", "").replace("]", ""), start, end });
    return `${r.text.slice(0, r.start)}[${r.text.slice(r.start, r.end)}]${r.text.slice(r.end)}`;
  };

  it("wraps the selection in bold, italic, strikethrough; a second time unwraps it", () => {
    expect(fmt("bold", "say [hello] now")).toBe("say **[hello]** now");
    expect(fmt("bold", "say **[hello]** now")).toBe("say [hello] now");
    expect(fmt("bold", "say [**hello**] now")).toBe("say [hello] now");
    expect(fmt("italic", "say [hello]")).toBe("say *[hello]*");
    expect(fmt("italic", "say *[hello]*")).toBe("say [hello]");
    expect(fmt("italic", "say **[hello]**")).toBe("say ***[hello]***");
    expect(fmt("strikethrough", "[x]")).toBe("~~[x]~~");
    expect(fmt("bold", "a []")).toBe("a **[bold text]**");
  });

  it("makes links, inline code or code blocks, math, quotes, spoilers, polls and lists", () => {
    expect(fmt("link", "see [docs]")).toBe("see [docs]([url])");
    expect(fmt("link", "[]")).toBe("[link text]([url])");
    expect(fmt("code", "run [ls]")).toBe("run `[ls]`");
    expect(fmt("code", "[a\nb]")).toBe("```\n[a\nb]\n```\n");
    expect(fmt("math", "[x^2]")).toBe("$$[x^2]$$");
    expect(fmt("quote", "text\n[wise words]")).toBe("text\n```quote\n[wise words]\n```\n");
    expect(fmt("quote", "said [this]")).toBe("said \n```quote\n[this]\n```\n");
    expect(fmt("spoiler", "[]")).toBe("```spoiler Header\n[Content]\n```\n");
    expect(fmt("poll", "[]")).toBe("/poll [Question]\nOption 1\nOption 2");
    expect(fmt("bulleted", "[one\ntwo]")).toBe("[- one\n- two]");
    expect(fmt("bulleted", "[- one\n- two]")).toBe("[one\ntwo]");
    expect(fmt("numbered", "intro\no[ne\ntw]o")).toBe("intro\n[1. one\n2. two]");
  });

  it("knows Zulip's shortcuts", () => {
    const key = (k: string, mods: Partial<Record<"ctrlKey" | "metaKey" | "shiftKey" | "altKey", boolean>> = {}) =>
      formatForKey({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
    expect(key("b", { ctrlKey: true })).toBe("bold");
    expect(key("i", { metaKey: true })).toBe("italic");
    expect(key("L", { ctrlKey: true, shiftKey: true })).toBe("link");
    expect(key("b")).toBeNull();
    expect(key("l", { ctrlKey: true })).toBeNull();
  });
});

describe("direct message recipients", () => {
  it("matches by name or email prefix, best match first then by name, leaving out those chosen", () => {
    const names = (query: string, chosen: number[] = []) => matchRecipients(query, people, chosen).map((p) => p.full_name);
    expect(names("o")).toEqual(["Othello, the Moor of Venice"]);
    expect(names("cordelia@")).toEqual(["Cordelia, Lear's daughter"]);
    expect(names("jose")).toEqual(["José Martí"]);
    // Everyone whose name has a word starting with the query, sorted by name.
    expect(names("i")).toEqual(["Iago"]);
    expect(names("zulip")).toEqual([]);
    expect(names("hamlet@", [10])).toEqual([]);
    expect(names("")).toEqual([]);
    const many = [
      { user_id: 1, full_name: "Zoe Adams", email: "zoe@x.org" },
      { user_id: 2, full_name: "Adam Smith", email: "adam@x.org" },
      { user_id: 3, full_name: "Bea Adler", email: "bea@x.org" },
      { user_id: 4, full_name: "Ada Lovelace", email: "ada@x.org", is_active: false },
    ];
    expect(matchRecipients("ad", many, []).map((p) => p.user_id)).toEqual([2, 3, 1]);
  });
});

describe("send later times", () => {
  it("offers tomorrow 9:00 and the next Monday 9:00, in local time", () => {
    const wednesday = new Date(2026, 10, 25, 15, 30);
    expect(tomorrowAt9(wednesday)).toEqual(new Date(2026, 10, 26, 9, 0));
    expect(nextMondayAt9(wednesday)).toEqual(new Date(2026, 10, 30, 9, 0));
    const monday = new Date(2026, 10, 30, 8, 0);
    expect(nextMondayAt9(monday)).toEqual(new Date(2026, 11, 7, 9, 0));
    const sunday = new Date(2026, 10, 29, 8, 0);
    expect(nextMondayAt9(sunday)).toEqual(tomorrowAt9(sunday));
  });

  it("reads a datetime-local value", () => {
    expect(parseLocalDateTime("2026-11-27T09:00")).toBe(new Date(2026, 10, 27, 9, 0).getTime() / 1000);
    expect(parseLocalDateTime("2026-11-27T09:00:05")).toBe(new Date(2026, 10, 27, 9, 0, 5).getTime() / 1000);
    expect(parseLocalDateTime("tomorrow")).toBeNull();
  });
});
