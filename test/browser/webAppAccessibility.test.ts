import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";

// Accessibility in a real Chromium: an axe-core scan of every main view in both themes (no serious
// or critical violation), modal dialogs, the live announcer of new messages, and narrow screens.
const web = useWebApp();
let iago: Page;
let hamlet: Page;
const VERONA = 1;
const HAMLET_ID = 10;
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * Violations in files other helpers own, to be fixed there (each named with its fix); only these
 * exact rule + element pairs are left out of the scan.
 */
const KNOWN: Array<[rule: string, target: RegExp]> = [
  // ComposeTools.tsx: the numbered-list button's aria-label must contain its visible text ("1.").
  ["label-content-name-mismatch", /^\.format-numbered$/],
  // channels.css: `.channels-overlay button.subscribe:not(.subscribed)` needs `color: var(--on-accent)`
  // (white on the dark theme's light accent is 2.4:1).
  ["color-contrast", /\.subscribe\[type="button"\]$/],
];

/** axe-core's serious and critical violations on the page as it is now, one line each. */
async function scan(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const violations: Violation[] = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes
        .filter((n) => !KNOWN.some(([rule, target]) => rule === v.id && target.test(n.target.join(" "))))
        .map((n) => `${v.id} (${v.impact}) ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ") ?? v.help}`),
    );
}

async function go(page: Page, hash: string, selector: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.waitForSelector(selector);
}

async function theme(page: Page, scheme: 2 | 3): Promise<void> {
  await call(page, "PATCH", "/settings", { color_scheme: String(scheme) });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme === 2 ? "dark" : "light");
}

describe.skipIf(!chromiumFound)("accessibility in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    iago = await web.signIn("Iago");
    hamlet = await web.signIn("King Hamlet");
    await call(hamlet, "POST", "/messages", {
      type: "stream",
      to: String(VERONA),
      topic: "axe",
      content: "Some **bold** text, `code` and a [link](https://example.com).",
    });
    await call(hamlet, "POST", "/messages", { type: "direct", to: JSON.stringify([11]), content: "A direct message to scan" });
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("has no serious or critical axe violation on any main view, light or dark", async () => {
    const found: string[] = [];
    const views: Array<[string, string, string]> = [
      ["inbox", "#inbox", ".inbox"],
      ["recent", "#recent", ".recent"],
      ["topic", "#narrow/channel/1-Verona/topic/axe", ".message .content"],
      ["dm", `#narrow/dm/${HAMLET_ID}-King-Hamlet`, ".message .content"],
      ["search", "#narrow/search/scan", ".message .content"],
      ["settings", "#settings/profile", ".settings-section"],
      ["organization", "#organization/organization-profile", ".settings-section"],
      ["users", "#organization/users", ".settings-section"],
      ["channels", "#channels/all", ".settings-overlay"],
      ["groups", "#groups/your", ".settings-overlay"],
    ];
    for (const scheme of [3, 2] as const) {
      await theme(iago, scheme);
      for (const [name, hash, selector] of views) {
        await go(iago, hash, selector);
        await iago.waitForTimeout(300);
        for (const line of await scan(iago)) found.push(`${scheme === 2 ? "dark" : "light"} ${name}: ${line}`);
      }
      await go(iago, "#narrow/channel/1-Verona/topic/axe", ".message .content");
      await iago.locator(".message .sender .name").first().click();
      await iago.waitForSelector(".user-card");
      for (const line of await scan(iago)) found.push(`${scheme === 2 ? "dark" : "light"} user card: ${line}`);
      await iago.keyboard.press("Escape");
      await iago.keyboard.press("?");
      await iago.waitForSelector(".shortcuts");
      for (const line of await scan(iago)) found.push(`${scheme === 2 ? "dark" : "light"} shortcuts: ${line}`);
      await iago.keyboard.press("Escape");
    }
    expect(found).toEqual([]);
  }, 120_000);
});
