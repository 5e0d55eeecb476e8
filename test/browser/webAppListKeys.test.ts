import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, openUnfocused as open, useWebApp, sendToChannel } from "../support/webApp.js";
import { seedChannels, seedUsers } from "../support/seed.js";

// The Inbox and Recent conversations by keyboard in a real Chromium, as in Zulip: ↓/J and ↑/K
// from row to row keeping the column, ←/H and →/L along a row's buttons, ↑ from the first row to
// the filter box and ↓ or Esc back, Enter to open. Messages are set up through the API.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const HAMLET_ID = seedUsers.hamlet.id;
const OTHELLO_ID = seedUsers.othello.id;
const VERONA = seedChannels.verona.id;
const shots = process.env.PARLEY_SCREENSHOTS;

/** What has the focus: its row (named as `drawnRows` names rows) and the focused control's first class, or its tag ("a"). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    const row = active?.closest<HTMLElement>("[data-nav-row]");
    return {
      row: row ? (row.dataset.key ?? `heading ${row.closest<HTMLElement>("[data-folder]")?.dataset.folder}`) : null,
      control: active ? (active.classList[0] ?? active.tagName.toLowerCase()) : null,
    };
  });

/** The view's rows as the page draws them, top to bottom: a conversation's data-key, or "heading <folder>". */
const drawnRows = (page: Page) =>
  page.$$eval("[data-nav-view] [data-nav-row]", (rows) =>
    rows.map((row) => (row as HTMLElement).dataset.key ?? `heading ${(row.closest("[data-folder]") as HTMLElement).dataset.folder}`),
  );

describe.skipIf(!chromiumFound)("the Inbox and Recent conversations by keyboard in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
    expect((await call(hamlet, "POST", "/mark_all_as_read")).result).toBe("success");
    await sendToChannel(othello, VERONA, "alpha", "First topic");
    await sendToChannel(othello, VERONA, "beta", "Second topic");
    await sendToChannel(othello, VERONA, "gamma", "Third topic");
    expect((await call(othello, "POST", "/messages", { type: "direct", to: JSON.stringify([HAMLET_ID]), content: "A word" })).result).toBe("success");
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("moves through the Inbox's rows and buttons, up into the filter box and back, and opens a topic with Enter", async () => {
    await open(hamlet, "#inbox", `.inbox [data-key='dm:${OTHELLO_ID}']`);
    await expect.poll(() => hamlet.locator(".inbox li[data-nav-row]").count()).toBe(4);
    const rows = await drawnRows(hamlet);
    // The direct messages' heading, its conversation, Verona's heading, its three topics.
    expect(rows).toHaveLength(6);
    expect(rows.slice(0, 3)).toEqual(["heading dm", `dm:${OTHELLO_ID}`, `heading channel:${VERONA}`]);

    // The first key goes to the first conversation (not a heading).
    await hamlet.keyboard.press("j");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[1], control: "a" });
    // Down: Verona's heading (its name), then its first topic.
    await hamlet.keyboard.press("ArrowDown");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[2], control: "folder-name" });
    await hamlet.keyboard.press("j");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "a" });
    // Along the row: its "Mark as read" button, its menu, round to its link, and back.
    await hamlet.keyboard.press("l");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "mark-read" });
    await hamlet.keyboard.press("ArrowRight");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "menu-button" });
    await hamlet.keyboard.press("ArrowRight");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "a" });
    await hamlet.keyboard.press("h");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "menu-button" });
    await hamlet.keyboard.press("ArrowLeft");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "mark-read" });
    // Down keeps the column; the focused row shows.
    await hamlet.keyboard.press("j");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[4], control: "mark-read" });
    const background = await hamlet.locator(`.inbox li[data-key='${rows[4]}']`).evaluate((el) => getComputedStyle(el).backgroundColor);
    const plain = await hamlet.locator(`.inbox li[data-key='${rows[5]}']`).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).not.toBe(plain);
    if (shots) {
      await hamlet.screenshot({ path: `${shots}/inbox-keyboard-1280-light.png` });
      for (const [width, scheme] of [
        [1024, "dark"],
        [390, "dark"],
        [390, "light"],
      ] as const) {
        await hamlet.setViewportSize({ width, height: 800 });
        await hamlet.emulateMedia({ colorScheme: scheme });
        await hamlet.screenshot({ path: `${shots}/inbox-keyboard-${width}-${scheme}.png` });
      }
      await hamlet.setViewportSize({ width: 1280, height: 800 });
      await hamlet.emulateMedia({ colorScheme: "light" });
    }
    // Enter on "Mark as read": the topic is read and leaves the Inbox; the next key goes on from there.
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => hamlet.locator(`.inbox li[data-key='${rows[4]}']`).count()).toBe(0);
    await hamlet.keyboard.press("k");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[5], control: "mark-read" });
    await hamlet.keyboard.press("k");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[3], control: "mark-read" });

    // Up from the first row: the filter box; ↓ and Esc there come back to the row and column left.
    for (let i = 0; i < 3; i++) await hamlet.keyboard.press("k");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[0], control: "mark-read" });
    await hamlet.keyboard.press("ArrowUp");
    await expect.poll(() => focused(hamlet)).toEqual({ row: null, control: "filter-search" });
    await hamlet.keyboard.press("ArrowDown");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[0], control: "mark-read" });
    await hamlet.keyboard.press("ArrowUp");
    await hamlet.keyboard.type("gam");
    await expect.poll(() => hamlet.locator(".inbox li[data-nav-row]").count()).toBe(1);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => focused(hamlet)).toEqual({ row: `heading channel:${VERONA}`, control: "mark-read" });
    expect(await hamlet.evaluate(() => location.hash)).toBe("#inbox");
    expect(await hamlet.locator(".inbox .filter-search").inputValue()).toBe("gam");

    // Enter on a topic's link opens it.
    await hamlet.keyboard.press("j");
    await hamlet.keyboard.press("h");
    await expect.poll(() => focused(hamlet)).toEqual({ row: `c:${VERONA}:gamma`, control: "a" });
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => hamlet.evaluate(() => decodeURIComponent(location.hash))).toBe("#narrow/channel/1-Verona/topic/gamma");
    await hamlet.waitForSelector(".message .content:has-text('Third topic')");
  }, 60_000);

  it("leaves the keys to another part of the page that has the focus, and to the view's <select>", async () => {
    await open(hamlet, "#inbox", ".inbox [data-nav-row]");
    await hamlet.locator(".sidebar .channels a").first().focus();
    await hamlet.keyboard.press("j");
    await hamlet.keyboard.press("ArrowDown");
    expect(await hamlet.evaluate(() => !!document.activeElement?.closest(".sidebar"))).toBe(true);
    await hamlet.locator(".inbox select").focus();
    await hamlet.keyboard.press("ArrowDown");
    expect(await hamlet.evaluate(() => document.activeElement?.tagName)).toBe("SELECT");
  });

  it("moves through Recent conversations by topic, along a row to its channel, and opens it with Enter", async () => {
    await open(hamlet, "#recent", `.recent tr[data-key='dm:${OTHELLO_ID}']`);
    const rows = (await drawnRows(hamlet)).slice(0, 4);
    // Newest first: the direct message, then gamma, beta, alpha.
    expect(rows).toEqual([`dm:${OTHELLO_ID}`, `c:${VERONA}:gamma`, `c:${VERONA}:beta`, `c:${VERONA}:alpha`]);
    await hamlet.keyboard.press("ArrowDown");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[0], control: "a" });
    expect(await hamlet.evaluate(() => document.activeElement?.closest("td")?.className)).toBe("topic");
    await hamlet.keyboard.press("j");
    await hamlet.keyboard.press("j");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[2], control: "a" });
    // Left of the topic: the channel's link; Enter opens the channel.
    await hamlet.keyboard.press("h");
    await expect.poll(() => hamlet.evaluate(() => document.activeElement?.closest("td")?.className)).toBe("where");
    await hamlet.keyboard.press("k");
    await expect.poll(() => focused(hamlet)).toEqual({ row: rows[1], control: "a" });
    expect(await hamlet.evaluate(() => document.activeElement?.closest("td")?.className)).toBe("where");
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => hamlet.evaluate(() => decodeURIComponent(location.hash))).toBe("#narrow/channel/1-Verona");
  }, 60_000);
});
