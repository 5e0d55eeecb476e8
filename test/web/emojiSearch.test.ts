import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { buildCatalogue, emojiGlyph, type EmojiTable, searchEmoji } from "../../web/src/emojiSearch.js";
import { at } from "../support/at.js";

// The emoji picker's search over the server's emoji table (Zulip's names) and custom emoji.
const table = createRequire(import.meta.url)("../../src/lib/emojiTable.json") as EmojiTable;
const catalogue = buildCatalogue(table, [
  { id: "1", name: "parley_logo", source_url: "/user_avatars/2/emoji/images/1.png", deactivated: false },
  { id: "2", name: "old_logo", source_url: "/x.png", deactivated: true },
]);
const names = (query: string, limit = 5) => searchEmoji(catalogue, query, limit).map((e) => e.name);

describe("emoji search", () => {
  it("lists every emoji once, custom ones first, then Zulip's :zulip:, smileys next", () => {
    expect(catalogue.all[0]).toEqual({ name: "parley_logo", code: "1", type: "realm_emoji", url: "/user_avatars/2/emoji/images/1.png" });
    expect(catalogue.all.some((e) => e.name === "old_logo")).toBe(false);
    expect(catalogue.all[1]).toEqual({
      name: "zulip",
      code: "zulip",
      type: "zulip_extra_emoji",
      url: "/static/generated/emoji/images/emoji/unicode/zulip.png",
    });
    expect(at(catalogue.all, 2).code).toBe("1f600");
    expect(catalogue.all.length).toBe(Object.keys(table.codeToName).length + 2);
    expect(names("zuli")).toEqual(["zulip"]);
  });

  it("lets a custom emoji named zulip replace Zulip's", () => {
    const own = buildCatalogue(table, [{ id: "7", name: "zulip", source_url: "/user_avatars/2/emoji/images/7.png", deactivated: false }]);
    expect(searchEmoji(own, "zulip")).toEqual([{ name: "zulip", code: "7", type: "realm_emoji", url: "/user_avatars/2/emoji/images/7.png" }]);
  });

  it("puts the exact name first, then prefixes, then word prefixes; aliases find their emoji", () => {
    expect(names("tada")[0]).toBe("tada");
    expect(names("+1")[0]).toBe("+1");
    expect(searchEmoji(catalogue, "thumbs_up")[0]).toMatchObject({ code: "1f44d", type: "unicode_emoji" });
    const heart = names("heart", 50);
    expect(heart[0]).toBe("heart");
    // A word of the name: "broken_heart" matches "heart"; and "smile" matches "smile_cat"-like names.
    expect(heart).toContain("blue_heart");
    expect(heart.indexOf("blue_heart")).toBeGreaterThan(heart.indexOf("hearts"));
    expect(names(":logo:")).toEqual(["parley_logo"]);
    expect(names("zzzzqq")).toEqual([]);
  });

  it("shows each emoji once, under the best name", () => {
    const results = searchEmoji(catalogue, "smil", 100);
    const codes = results.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("draws a code as its characters", () => {
    expect(emojiGlyph("1f44d")).toBe("👍");
    expect(emojiGlyph("0023-20e3")).toBe("#⃣");
  });
});
