import { describe, expect, it } from "vitest";
import { htmlDiff } from "./editHistory.js";

describe("htmlDiff (content_html_diff of edit history)", () => {
  it("marks inserted and deleted words, inserted first, keeping the new markup", () => {
    expect(htmlDiff("<p>Hello!</p>", "<p>Howdy!</p>")).toBe(
      '<div><p><span class="highlight_text_inserted">Howdy!</span><span class="highlight_text_deleted">Hello!</span></p></div>',
    );
    expect(htmlDiff("<p>one two three</p>", "<p>one 2 three four</p>")).toBe(
      '<div><p>one <span class="highlight_text_inserted">2</span><span class="highlight_text_deleted">two</span> three <span class="highlight_text_inserted">four</span></p></div>',
    );
    expect(htmlDiff("<p>same</p>", "<p>same</p>")).toBe("<div><p>same</p></div>");
  });

  it("diffs a long message with a small change quickly, marking only the change", () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`);
    const before = `<p>${words.join(" ")}</p>`;
    const after = `<p>${words.map((w, i) => (i === 2500 ? "changed" : w)).join(" ")}</p>`;
    const started = performance.now();
    const diff = htmlDiff(before, after);
    expect(performance.now() - started).toBeLessThan(500);
    expect(diff.match(/highlight_text_/g)).toHaveLength(2);
    expect(diff).toContain('<span class="highlight_text_inserted">changed</span><span class="highlight_text_deleted">w2500</span>');
  });

  it("marks all of a long text as replaced when nearly everything changed (bounded work)", () => {
    const before = `<p>${Array.from({ length: 5000 }, (_, i) => `a${i}`).join(" ")}</p>`;
    const after = `<p>${Array.from({ length: 5000 }, (_, i) => `b${i}`).join(" ")}</p>`;
    const started = performance.now();
    const diff = htmlDiff(before, after);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(diff.match(/highlight_text_inserted/g)).toHaveLength(5000);
    expect(diff.match(/highlight_text_deleted/g)).toHaveLength(5000);
  });
});
