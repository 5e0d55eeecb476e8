import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { axeScan } from "../support/axe.js";
import { callJson as call, useWebApp } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// Accessibility in a real Chromium: an axe-core scan of every main view in both themes (no serious
// or critical violation), modal dialogs, the live announcer of new messages, and narrow screens.
const web = useWebApp();
let iago: Page;
let hamlet: Page;
const VERONA = seedChannels.verona.id;
const HAMLET_ID = 10;
const shots = process.env.PARLEY_SCREENSHOTS; // a directory (docs/screenshots)

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
    // A muted topic and a muted channel, greyed in the sidebar.
    await call(hamlet, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "quiet", content: "Hush" });
    await call(iago, "POST", "/user_topics", { stream_id: String(VERONA), topic: "quiet", visibility_policy: "1" });
    await call(iago, "POST", "/users/me/subscriptions/properties", {
      subscription_data: JSON.stringify([{ stream_id: 2, property: "is_muted", value: true }]),
    });
    // Highlighted code: keywords, strings, numbers, names, built-ins and comments all read.
    await call(hamlet, "POST", "/messages", {
      type: "stream",
      to: String(VERONA),
      topic: "code",
      content: "```python\n# A comment\ndef greet(name):\n    return len('Hello ' + name) + 42\n```",
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
      ["code", "#narrow/channel/1-Verona/topic/code", ".message .content .codehilite"],
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
        for (const line of await axeScan(iago)) found.push(`${scheme === 2 ? "dark" : "light"} ${name}: ${line}`);
      }
      await go(iago, "#narrow/channel/1-Verona/topic/axe", ".message .content");
      await iago.locator(".message .sender .name").first().click();
      await iago.waitForSelector(".user-card");
      for (const line of await axeScan(iago)) found.push(`${scheme === 2 ? "dark" : "light"} user card: ${line}`);
      await iago.keyboard.press("Escape");
      await iago.keyboard.press("?");
      await iago.waitForSelector(".shortcuts");
      for (const line of await axeScan(iago)) found.push(`${scheme === 2 ? "dark" : "light"} shortcuts: ${line}`);
      await iago.keyboard.press("Escape");
    }
    expect(found).toEqual([]);
  }, 120_000);

  it("makes dialogs modal: focus moves in, Tab stays in, Esc closes and gives focus back", async () => {
    await theme(iago, 3);
    await go(iago, "#narrow/channel/1-Verona/topic/axe", ".message .content");
    const focused = () => iago.evaluate(() => document.activeElement?.closest("[role='dialog']")?.getAttribute("aria-label") ?? null);
    const tabAround = async (times: number, dialog: string) => {
      for (let i = 0; i < times; i++) {
        await iago.keyboard.press(i % 3 === 2 ? "Shift+Tab" : "Tab");
        expect(await focused()).toBe(dialog);
      }
    };

    // Space, not Enter, presses buttons here: keyboard.ts takes Enter over (reply) even on a button.
    // The sender's name is a button: it opens the card, whose first button has the focus.
    const sender = iago.locator(".message .sender button.name", { hasText: "King Hamlet" }).first();
    await sender.focus();
    await iago.keyboard.press("Space");
    await iago.waitForSelector(".user-card[aria-modal='true']");
    expect(await iago.evaluate(() => document.activeElement?.textContent)).toBe("Send direct message");
    // Hamlet's card is long (profile fields): it moves up to show whole, from his name down.
    const box = await iago
      .locator(".user-card")
      .evaluate((el) => ({ scrolled: el.scrollTop, top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom }));
    expect(box.scrolled).toBe(0);
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(800);
    await tabAround(12, "King Hamlet");
    await iago.keyboard.press("Escape");
    await expect.poll(() => iago.locator(".user-card").count()).toBe(0);
    await expect.poll(() => sender.evaluate((el) => el === document.activeElement)).toBe(true);

    // The move-topic dialog, from the recipient bar's button.
    const move = iago.locator(".recipient-bar .move-topic").first();
    await move.focus();
    await iago.keyboard.press("Space");
    await iago.waitForSelector("[role='dialog'][aria-label='Move topic'][aria-modal='true']");
    expect(await iago.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("New topic");
    await tabAround(12, "Move topic");
    await iago.keyboard.press("Escape");
    await expect.poll(() => iago.locator("[role='dialog'][aria-label='Move topic']").count()).toBe(0);
    await expect.poll(() => move.evaluate((el) => el === document.activeElement)).toBe(true);

    // The shortcuts list (?).
    await iago.keyboard.press("?");
    await iago.waitForSelector(".shortcuts[aria-modal='true']");
    expect(await iago.evaluate(() => document.activeElement?.closest(".shortcuts") !== null)).toBe(true);
    for (let i = 0; i < 4; i++) {
      await iago.keyboard.press("Tab");
      expect(await iago.evaluate(() => document.activeElement?.closest(".shortcuts") !== null)).toBe(true);
    }
    await iago.keyboard.press("Escape");
    await expect.poll(() => iago.locator(".shortcuts").count()).toBe(0);

    // Personal settings, from the header's link.
    const gear = iago.locator(".top a[aria-label='Personal settings']");
    await gear.click(); // (Enter on a link is keyboard.ts's too)
    await iago.waitForSelector(".settings-overlay[aria-modal='true'] .settings-section");
    await expect.poll(focused).toBe("Settings");
    await tabAround(40, "Settings");
    await iago.keyboard.press("Escape"); // leaves the field Tab reached
    await iago.keyboard.press("Escape"); // closes the overlay
    await expect.poll(() => iago.locator(".settings-overlay").count()).toBe(0);
    await expect.poll(() => gear.evaluate((el) => el === document.activeElement)).toBe(true);
  }, 60_000);

  it("announces new messages in the open view, not one's own", async () => {
    await go(iago, "#narrow/channel/1-Verona/topic/news", ".view-title");
    const announcer = iago.locator("[aria-live='polite'][data-announcer]");
    await call(hamlet, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "news", content: "Fresh news" });
    await expect.poll(() => announcer.textContent()).toBe("New message from King Hamlet in #Verona > news");
    await call(iago, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "news", content: "My own reply" });
    await iago.waitForSelector(".message .content:has-text('My own reply')");
    expect(await announcer.textContent()).toBe("New message from King Hamlet in #Verona > news");
    await call(hamlet, "POST", "/messages", { type: "direct", to: JSON.stringify([11]), content: "Psst" });
    await call(hamlet, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "news", content: "More news" });
    // The DM is not in this view; the second channel message is, and is read again.
    await expect.poll(() => announcer.textContent()).toBe("New message from King Hamlet in #Verona > news ");
  }, 30_000);

  it("opens the people list from the header below 1100 px", async () => {
    const page = await web.signIn("Iago", { viewport: { width: 1024, height: 768 } });
    const list = page.locator(".user-list");
    const toggle = page.locator(".top button.people-toggle");
    expect(await list.isVisible()).toBe(false);
    await toggle.click();
    await expect.poll(() => list.isVisible()).toBe(true);
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await list.locator("li", { hasText: "King Hamlet" }).isVisible()).toBe(true);
    await toggle.click();
    await expect.poll(() => list.isVisible()).toBe(false);
    // Esc closes it as well, the focus back on the button.
    await toggle.click();
    await expect.poll(() => list.isVisible()).toBe(true);
    await list.locator("a").first().focus();
    await page.keyboard.press("Escape");
    await expect.poll(() => list.isVisible()).toBe(false);
    expect(await toggle.evaluate((el) => el === document.activeElement)).toBe(true);
    // Wide enough for a column of its own: always shown, no button.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => list.isVisible()).toBe(true);
    expect(await toggle.isVisible()).toBe(false);
    await page.context().close();
  }, 30_000);

  it("cuts nothing off at 390 px", async () => {
    const phone = await web.signIn("Iago", { viewport: { width: 390, height: 844 } });
    const found: string[] = [];
    const views: Array<[string, string, string]> = [
      ["topic", "#narrow/channel/1-Verona/topic/axe", ".message .content"],
      ["settings", "#settings/profile", ".settings-section"],
      ["notifications", "#settings/notifications", ".settings-section table"],
      ["users", "#organization/users", ".settings-section table"],
      ["bots", "#organization/bot-list-admin", ".settings-section"],
      ["profile fields", "#organization/profile-field-settings", ".settings-section"],
      ["channels", "#channels/all", ".settings-overlay"],
      ["groups", "#groups/your", ".settings-overlay"],
    ];
    for (const [name, hash, selector] of views) {
      await go(phone, hash, selector);
      await phone.waitForTimeout(200);
      for (const line of await cutOff(phone)) found.push(`${name}: ${line}`);
      for (const line of await axeScan(phone)) found.push(`${name} (axe): ${line}`);
    }
    // The notification banner leaves most of the screen to the messages.
    await go(phone, "#narrow/channel/1-Verona/topic/axe", ".notification-banner");
    expect(await phone.locator(".notification-banner").evaluate((el) => el.getBoundingClientRect().height)).toBeLessThan(844 * 0.15);
    // So are the notification table's checkboxes, all four columns.
    await go(phone, "#settings/notifications", ".notification-table input");
    const boxes = await phone.locator(".notification-table").evaluate((table) => {
      const frame = table.closest("fieldset")!.getBoundingClientRect().right;
      return [...table.querySelectorAll("input")].filter((box) => box.getBoundingClientRect().right > frame).length;
    });
    expect(boxes).toBe(0);
    // The users table's roles and actions are on screen, not in columns past its edge.
    await go(phone, "#organization/users", ".admin-users select[name='role']");
    const controls = await phone.locator(".admin-users select, .admin-users button").evaluateAll((els) => els.map((el) => el.getBoundingClientRect().right));
    expect(controls.length).toBeGreaterThan(5);
    expect(Math.max(...controls)).toBeLessThanOrEqual(390);
    await go(phone, "#narrow/channel/1-Verona/topic/axe", ".message .content");
    await phone.locator(".message .sender .name").first().click();
    await phone.waitForSelector(".user-card");
    for (const line of await cutOff(phone)) found.push(`user card: ${line}`);
    // The whole card shows, from the name down (not scrolled past it to reach the focused button).
    const card = await phone.locator(".user-card").evaluate((el) => ({ scrolled: el.scrollTop, bottom: el.getBoundingClientRect().bottom }));
    expect(card.scrolled).toBe(0);
    expect(card.bottom).toBeLessThanOrEqual(844);
    await phone.keyboard.press("Escape");
    await phone.locator(".search input").fill("sender:");
    await phone.waitForSelector(".search .suggestions li");
    for (const line of await cutOff(phone)) found.push(`search: ${line}`);
    // Each suggestion reads whole (the box is narrow on a phone; the list is not).
    const clipped = await phone
      .locator(".suggestions li > *")
      .evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent));
    expect(clipped).toEqual([]);
    await phone.context().close();
    expect(found).toEqual([]);
  }, 60_000);

  it.skipIf(!shots)(
    "takes screenshots at 1280, 1024 and 390 px, light and dark",
    async () => {
      const page = await web.signIn("Iago");
      for (const scheme of [3, 2] as const) {
        await theme(page, scheme);
        const themeName = scheme === 2 ? "dark" : "light";
        for (const width of [1280, 1024, 390]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
          const shoot = (view: string) => page.screenshot({ path: `${shots}/${view}-${width}-${themeName}.png` });
          await go(page, "#narrow/channel/1-Verona/topic/axe", ".message .content");
          await page.waitForTimeout(300);
          await shoot("main");
          await page.locator(".message .sender .name").first().click();
          await page.waitForSelector(".user-card");
          await shoot("user-card");
          await page.keyboard.press("Escape");
          await go(page, "#settings/notifications", ".settings-section table");
          await shoot("settings");
          await go(page, "#organization/users", ".settings-section table");
          await shoot("admin-users");
          await go(page, "#narrow/channel/1-Verona/topic/axe", ".message .content");
        }
      }
      await theme(page, 3);
      await page.context().close();
    },
    120_000,
  );
});

/**
 * What sticks out of the window at the page's width, so that a person cannot see or reach it:
 * visible elements past either edge, unless a horizontally scrolling box inside the window holds
 * them (a wide table in its own scroller is fine).
 */
function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    const scrollsInside = (el: Element): boolean => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (/(auto|scroll)/.test(style.overflowX)) {
          // A box of its own that scrolls sideways (a table, a row of tabs, code), not the
          // whole page or settings section (scrolling that sideways hides the rest of it).
          const r = p.getBoundingClientRect();
          return r.left >= -1 && r.right <= width + 1 && p.scrollHeight <= p.clientHeight + 1;
        }
      }
      return false;
    };
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || el.closest(".sr-only")) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden") continue;
      if ((r.right > width + 1 || r.left < -1) && !scrollsInside(el)) {
        out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
    }
    return out.slice(0, 20);
  });
}
