import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/lib/markdown/index.js";
import { testRealmRefs } from "./testRealm.js";

/**
 * Zulip's own Markdown cases (zerver/tests/fixtures/markdown_test_cases.json at 10.2), copied
 * from the shared reference folder into test/fixtures by scripts/generate-test-fixtures.mjs,
 * rendered with Zulip's test realm.
 */
const CASES_PATH = new URL("../fixtures/markdown_test_cases.json", import.meta.url);

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  marked_expected_output?: string;
  backend_only_rendering?: boolean;
  translate_emoticons?: boolean;
}

/** Cases we do not render as Zulip does, each with the reason. Keep docs/markdown.md in step. */
export const SKIP: Record<string, string> = {};

const REALM_URL = "http://zulip.testserver";

/** Zulip's camo URL for an external image: the original URL is the hex part. */
function uncamo(html: string): string {
  return html.replace(/https:\/\/external-content\.zulipcdn\.net\/external_content\/[0-9a-f]+\/([0-9a-f]+)/g, (_m, hex: string) =>
    Buffer.from(hex, "hex").toString("utf8").replaceAll("&", "&amp;"),
  );
}

const BLOCK_TAGS = "p|div|li|ul|ol|blockquote|table|thead|tbody|tr|td|th|h[1-6]|br|hr";
const AROUND_BLOCK_TAG = new RegExp(`\\s*(</?(?:${BLOCK_TAGS})(?:\\s[^>]*)?>)\\s*`, "g");

/**
 * Comparison form: code blocks (<pre>) exact, token spans included; elsewhere the equivalent
 * apostrophe entities unified and whitespace next to block tags ignored.
 */
export function normalizeHtml(html: string): string {
  const parts = uncamo(html).split(/(<pre>[\s\S]*?<\/pre>)/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return part;
      return part
        .replace(/\s+/g, " ")
        .replace(AROUND_BLOCK_TAG, "$1")
        .replace(/&#x?(27|39);/g, "'");
    })
    .join("")
    .replace(/(\d+\.\d{3})\d*em/g, "$1em") // KaTeX releases round lengths differently
    .trim();
}

const cases = JSON.parse(fs.readFileSync(CASES_PATH, "utf8")) as { regular_tests: RegularCase[]; linkify_tests: [string, string, string][] };

describe("Zulip's Markdown test cases (regular_tests)", () => {
  for (const c of cases.regular_tests) {
    const run = SKIP[c.name] ? it.skip : it;
    run(c.name, () => {
      const result = renderMarkdown(c.input, testRealmRefs, { realmUrl: REALM_URL, translateEmoticons: c.translate_emoticons === true });
      expect(normalizeHtml(result.html)).toBe(normalizeHtml(c.expected_output));
    });
  }
});

/** Zulip's test_linkify: "%s" in the template is replaced with the expected link. */
function linkifyExpectation(template: string, url: string): string {
  if (!template.includes("%s")) return template;
  const href = url.startsWith("http") ? url : url.includes("@") ? `mailto:${url}` : `http://${url}`;
  return template.replace("%s", `<a href="${href}">${url}</a>`);
}

describe("Zulip's auto-link cases (linkify_tests)", () => {
  for (const [input, template, url] of cases.linkify_tests) {
    const run = SKIP[`linkify: ${input}`] ? it.skip : it;
    run(input, () => {
      const result = renderMarkdown(input, testRealmRefs, { realmUrl: REALM_URL });
      expect(normalizeHtml(result.html)).toBe(normalizeHtml(linkifyExpectation(template, url)));
    });
  }
});
