import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain ES module script without type declarations
import { buildEmojiTable, defaultOutput, defaultReference, serializeEmojiTable } from "../../scripts/generate-emoji-table.mjs";
import { canonicalNameForCode, emojiCodeForName, unicodeEmojiToCode, zulipExtraEmojiCode } from "../../src/lib/emoji.js";

describe("emoji table", () => {
  it("is up to date with Zulip's reference table (run scripts/generate-emoji-table.mjs)", () => {
    const reference = JSON.parse(fs.readFileSync(defaultReference, "utf8"));
    const expected = serializeEmojiTable(buildEmojiTable(reference));
    expect(fs.readFileSync(path.resolve(defaultOutput), "utf8") === expected).toBe(true);
  });

  it("maps names, aliases and characters to Zulip's codes", () => {
    expect(emojiCodeForName("smile")).toBe("1f642");
    expect(emojiCodeForName("love")).toBe("2764");
    expect(canonicalNameForCode("2764")).toBe("heart");
    expect(emojiCodeForName("skin-tone-2")).toBeUndefined();
    expect(unicodeEmojiToCode("🙂")).toBe("1f642");
    expect(unicodeEmojiToCode("#️⃣")).toBe("0023-20e3");
    expect(unicodeEmojiToCode("🤷‍♀️")).toBe("1f937-200d-2640");
    expect(zulipExtraEmojiCode("zulip")).toBe("zulip");
  });
});
