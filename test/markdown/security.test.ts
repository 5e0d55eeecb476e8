import { describe, expect, it } from "vitest";
import { renderMarkdown, emptyReferences } from "../../src/lib/markdown/index.js";
import { at } from "../support/at.js";

const render = (content: string) => renderMarkdown(content, emptyReferences()).html;

/** Every tag in the output, for allow-list checks. */
const tags = (html: string) => [...html.matchAll(/<\/?([a-zA-Z0-9-]+)/g)].map((m) => at(m, 1).toLowerCase());

describe("Markdown rendering is safe by construction", () => {
  it("escapes raw HTML everywhere", () => {
    for (const input of [
      "<img src=x onerror=alert(1)>",
      "<script>alert(1)</script>",
      "**<iframe src=//evil>**",
      "> <svg onload=alert(1)>",
      "* <a href='javascript:alert(1)'>x</a>",
      "```spoiler <b onclick=x>\n<img src=x>\n```",
      "| <b>a</b> |\n|---|\n| <i>b</i> |",
    ]) {
      const html = render(input);
      expect(tags(html)).not.toContain("img");
      expect(tags(html)).not.toContain("script");
      expect(tags(html)).not.toContain("iframe");
      expect(tags(html)).not.toContain("svg");
      expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    }
  });

  it("renders links with unsafe schemes as text", () => {
    for (const input of [
      "[click](javascript:alert(1))",
      "[click](JaVaScRiPt:alert(1))",
      "[click](  javascript:alert(1))",
      "[click](java&#x09;script:alert(1))",
      "[click](vbscript:msgbox(1))",
      "[click](data:text/html,<script>alert(1)</script>)",
      "javascript:alert(1)",
      "[click](file:///etc/passwd)",
    ]) {
      const html = render(input);
      expect(html).not.toMatch(/href="\s*(javascript|vbscript|data|file):/i);
    }
    expect(render("[click](javascript:alert(1))")).toBe("<p>[click](javascript:alert(1))</p>");
  });

  it("allows the safelisted schemes and keeps attribute values quoted", () => {
    expect(render("[chat](irc://irc.example.com/zulip)")).toBe('<p><a href="irc://irc.example.com/zulip">chat</a></p>');
    expect(render("[mail](mailto:a@example.com)")).toBe('<p><a href="mailto:a@example.com">mail</a></p>');
    expect(render('[x](http://a.example/"onmouseover="alert(1))')).not.toContain('" onmouseover="');
  });

  it("bounds deep nesting and pathological input", () => {
    for (const input of [
      ">".repeat(5000) + " deep",
      "* ".repeat(2000) + "x",
      "[".repeat(5000) + "x" + "](http://a.example)".repeat(5000),
      "*a ".repeat(5000),
      "~~".repeat(5000),
      "```quote\n".repeat(500) + "x",
      "@**".repeat(3000),
      "$$".repeat(3000),
    ]) {
      const started = Date.now();
      const html = render(input);
      expect(Date.now() - started).toBeLessThan(5000); // a blow-up takes minutes; a loaded machine seconds
      expect(html.length).toBeLessThan(200_000);
      expect((html.match(/<blockquote>/g) ?? []).length).toBeLessThanOrEqual(40);
    }
  });

  it("renders TeX without trusted commands", () => {
    expect(render("$$\\href{javascript:alert(1)}{x}$$")).not.toMatch(/href="javascript/);
  });
});
