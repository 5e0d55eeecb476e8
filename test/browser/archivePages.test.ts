import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound, launchChromium } from "../support/browser.js";
import { axeScanBothSchemes } from "../support/axe.js";
import { makeChannel, sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

// The web-public archive (src/http/archivePages.ts) in a real Chromium, as a visitor without an
// account and with JavaScript off, as a search engine reads it: a topic's page lays out its
// messages at phone and desktop widths, light and dark, breaks no CSP rule and has no serious
// accessibility problem. PARLEY_SCREENSHOTS=<dir> saves its screenshots.
const t = useTestServer();
const shots = process.env.PARLEY_SCREENSHOTS;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

let browser: Browser;
let close: () => Promise<void>;
let topicPath: string;

describe.skipIf(!chromiumFound)("the archive in Chromium", () => {
  beforeAll(async () => {
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: true }));
    const channel = await makeChannel(t, {
      name: "release planning",
      by: "desdemona",
      description: "How and when we ship, in the open.",
      subscribers: ["desdemona", "hamlet", "iago"],
      extra: { is_web_public: true },
    });
    const topic = "Release 2.0: schedule & checklist";
    await sendChannelMessage(t, "desdemona", channel, topic, "Proposed date: **December 12**. Anything blocking?");
    await sendChannelMessage(
      t,
      "hamlet",
      channel,
      topic,
      "> Anything blocking?\n\nThe migration needs one more review:\n\n```sh\nnpm run migrate -- --dry-run\n```\n\n- [x] changelog\n- docs",
    );
    await sendChannelMessage(t, "iago", channel, topic, "@**King Hamlet** I can review it today. See https://example.com/notes for the notes.");
    await sendChannelMessage(t, "desdemona", channel, "Retrospective", "Notes from the last release.");
    topicPath = `/archive/channel/${channel}-release-planning/topic/Release.202.2E0.3A.20schedule.20.26.20checklist/`;
    ({ browser, close } = await launchChromium());
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: SIZES[0] });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()}`));
    const res = await page.goto(t.baseUrl + path);
    expect(res?.status()).toBe(200);
    return { page, problems };
  }

  it("shows a topic's page without JavaScript at both widths, light and dark", async () => {
    const { page, problems } = await open(topicPath);
    expect(await page.title()).toBe("Release 2.0: schedule & checklist | #release planning | Zulip Dev");
    expect(await page.locator(".archive-message .sender-name").allTextContents()).toEqual(["Desdemona", "King Hamlet", "Iago"]);
    expect(await page.locator(".open-in-app").getAttribute("href")).toMatch(/^\/#narrow\/channel\/\d+-release-planning\/topic\/Release\.202\.2E0\.3A/);
    // The page fits a phone's width: nothing scrolls sideways.
    for (const size of SIZES) {
      await page.setViewportSize(size);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        if (shots) await page.screenshot({ path: `${shots}/archive-topic-${size.width}-${scheme}.png`, fullPage: true });
      }
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("has no serious accessibility problem on the index, a channel and a topic, light and dark", async () => {
    const found: string[] = [];
    for (const path of ["/archive/", topicPath.replace(/topic\/.*$/, ""), topicPath]) {
      // axe runs as a script: a context with JavaScript on, and the page's CSP bypassed for it.
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      await page.goto(t.baseUrl + path);
      found.push(...(await axeScanBothSchemes(page)).map((line) => `${path} ${line}`));
      if (shots && path !== topicPath)
        await page.screenshot({ path: `${shots}/archive-${path === "/archive/" ? "index" : "channel"}-1280-light.png`, fullPage: true });
      await context.close();
    }
    expect(found).toEqual([]);
  });
});
