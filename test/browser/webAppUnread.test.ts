import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";
import { at } from "../support/at.js";

// Reading in the web app as Zulip's: a conversation opens at its first unread message with a cue
// for the unread messages out of sight; what was on screen (or scrolled past) in the focused
// window is read, nothing else; permalinks and search results are highlighted.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const shots = process.env.PARLEY_SCREENSHOTS;

/** Othello writes `count` messages (two paragraphs each) in a topic of Verona; their ids, oldest first. */
async function writeMany(topic: string, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 1; i <= count; i++) {
    const result = await call(othello, "POST", "/messages", {
      type: "stream",
      to: "Verona",
      topic,
      content: `Message number ${i} of ${topic}.\n\nA second line.`,
    });
    expect(result.result).toBe("success");
    ids.push(result.id);
  }
  return ids;
}

/** Hamlet's read message ids in a topic, through the API. */
async function readIds(topic: string): Promise<number[]> {
  const narrow = JSON.stringify([
    { operator: "stream", operand: "Verona" },
    { operator: "topic", operand: topic },
  ]);
  const result = await call(hamlet, "GET", "/messages", { narrow, anchor: "oldest", num_before: "0", num_after: "1000" });
  return result.messages.filter((m: any) => m.flags.includes("read")).map((m: any) => m.id);
}

/** The ids of the message rows on screen in the list: wholly, or in part. */
function onScreen(page: Page): Promise<{ whole: number[]; part: number[] }> {
  return page.evaluate(() => {
    const list = document.querySelector(".message-list")!.getBoundingClientRect();
    const whole: number[] = [];
    const part: number[] = [];
    for (const row of document.querySelectorAll<HTMLElement>(".message-list .message[data-id]")) {
      const r = row.getBoundingClientRect();
      if (r.bottom > list.top && r.top < list.bottom) part.push(Number(row.dataset.id));
      if (r.top >= list.top - 1 && r.bottom <= list.bottom + 1) whole.push(Number(row.dataset.id));
    }
    return { whole, part };
  });
}

const topicHash = (topic: string) => `#narrow/channel/1-Verona/topic/${encodeURIComponent(topic).replace(/%/g, ".")}`;

async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
}

describe.skipIf(!chromiumFound)("reading in the web app, in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("opens a conversation at its first unread message, reads only what was on screen, and cues the rest", async () => {
    // Two read messages, then 60 unread ones.
    const before = await writeMany("first unread", 2);
    await call(hamlet, "POST", "/messages/flags", { messages: JSON.stringify(before), op: "add", flag: "read" });
    const ids = await writeMany("first unread", 60);
    await hamlet.bringToFront();
    await open(hamlet, topicHash("first unread"));
    const first = hamlet.locator(`.message[data-id="${ids[0]}"]`);
    await first.waitFor();
    await expect.poll(async () => (await onScreen(hamlet)).whole).toContain(ids[0]);
    // Near the top, with the message before it for context, and selected (as Zulip selects it).
    const listTop = (await hamlet.locator(".message-list").boundingBox())!.y;
    expect((await first.boundingBox())!.y - listTop).toBeLessThan(150);
    expect(await first.getAttribute("class")).toContain("selected");

    // What was on screen is read, and nothing else (flags through the API).
    const screen = await onScreen(hamlet);
    await expect.poll(() => readIds("first unread"), { timeout: 5000 }).toEqual(expect.arrayContaining(screen.whole.filter((id) => ids.includes(id))));
    await hamlet.waitForTimeout(600); // a late POST would show here
    const read = (await readIds("first unread")).filter((id) => ids.includes(id));
    expect(read.length).toBeGreaterThan(0);
    expect(read.every((id) => screen.part.includes(id))).toBe(true);
    expect(read.length).toBeLessThan(20);

    // The cue counts the unread messages below the screen (loaded or not), and brings them into view.
    const below = hamlet.locator(".unread-cue.below button");
    await expect.poll(() => below.textContent()).toBe(`↓ ${60 - read.length} unread messages below`);
    const lastRead = Math.max(...read);
    await below.click();
    const next = ids.find((id) => id > lastRead)!;
    await expect.poll(async () => (await onScreen(hamlet)).whole).toContain(next);
    await expect.poll(async () => Number((await below.textContent())?.match(/\d+/)?.[0])).toBeLessThan(60 - read.length);
    // Nothing unread was left above: no cue there.
    expect(await hamlet.locator(".unread-cue.above button").count()).toBe(0);
  }, 90_000);

  it("reads every message scrolled past, however fast", async () => {
    const ids = await writeMany("fast scroll", 60);
    await hamlet.bringToFront();
    await open(hamlet, topicHash("fast scroll"));
    await hamlet.locator(`.message[data-id="${ids[0]}"]`).waitFor();
    // 700 px every 150 ms to the end, waiting there for the newer messages that come on scrolling.
    const list = hamlet.locator(".message-list");
    await list.evaluate((el) => (el.scrollTop = 0)); // from the top (where it opens)
    for (let i = 0; i < 80; i++) {
      const done = await list.evaluate((el, last) => {
        el.scrollBy(0, 700);
        return el.scrollTop + el.clientHeight >= el.scrollHeight - 2 && el.querySelector(`.message[data-id="${last}"]`) !== null;
      }, ids.at(-1)!);
      await hamlet.waitForTimeout(150);
      if (done) break;
    }
    await expect.poll(async () => (await readIds("fast scroll")).filter((id) => ids.includes(id)).length, { timeout: 5000 }).toBe(60);
    await expect.poll(() => hamlet.locator(".unread-cue button").count()).toBe(0);
  }, 90_000);

  it("reads nothing in a window without focus, and what it shows once it gets focus", async () => {
    const ids = await writeMany("away", 3);
    // Headless Chromium under Playwright reports every page as focused, so the window's losing
    // and regaining focus is played here: document.hasFocus() says false, then the focus event.
    await hamlet.evaluate(() => {
      Object.defineProperty(document, "hasFocus", { value: () => false, configurable: true });
      window.dispatchEvent(new Event("blur"));
    });
    await open(hamlet, topicHash("away"));
    await hamlet.locator(`.message[data-id="${ids[2]}"]`).waitFor();
    await hamlet.waitForTimeout(800);
    expect((await readIds("away")).filter((id) => ids.includes(id))).toEqual([]);
    await hamlet.evaluate(() => {
      delete (document as { hasFocus?: unknown }).hasFocus; // Document.prototype.hasFocus again
      window.dispatchEvent(new Event("focus"));
    });
    await expect.poll(async () => (await readIds("away")).filter((id) => ids.includes(id)), { timeout: 5000 }).toEqual(ids);
  }, 60_000);

  it("highlights a permalink's target message, for near and with", async () => {
    const ids = await writeMany("permalink", 30);
    await hamlet.bringToFront();
    for (const op of ["near", "with"]) {
      await open(hamlet, `${topicHash("permalink")}/${op}/${ids[12]}`);
      const target = hamlet.locator(`.message[data-id="${ids[12]}"]`);
      await target.waitFor();
      await expect.poll(async () => (await onScreen(hamlet)).whole).toContain(ids[12]);
      expect(await hamlet.locator(".message.permalink-target").count()).toBe(1);
      expect(await target.getAttribute("class")).toContain("permalink-target");
      // Tinted unlike its neighbours, once the flash has faded too.
      await hamlet.waitForTimeout(2700);
      const background = (id: number) => hamlet.locator(`.message[data-id="${id}"]`).evaluate((el) => getComputedStyle(el).backgroundColor);
      const [tint, neighbour] = [await background(at(ids, 12)), await background(at(ids, 13))];
      expect(tint).not.toBe(neighbour);
      expect(tint).not.toBe("rgba(0, 0, 0, 0)");
      if (shots && op === "near") await hamlet.screenshot({ path: `${shots}/permalink-1280-light.png` });
    }
    // Opened in the middle: the unread messages before the screen are cued above, and a click
    // brings the oldest of them into view.
    const above = hamlet.locator(".unread-cue.above button");
    await open(hamlet, `${topicHash("permalink")}/near/${ids[20]}`);
    await hamlet.locator(`.message.permalink-target[data-id="${ids[20]}"]`).waitFor();
    const firstWhole = Math.min(...(await onScreen(hamlet)).whole);
    await hamlet.waitForTimeout(600);
    const readNow = await readIds("permalink");
    const unreadAbove = ids.filter((id) => id < firstWhole && !readNow.includes(id));
    expect(unreadAbove.length).toBeGreaterThan(5);
    await expect.poll(() => above.textContent()).toBe(`↑ ${unreadAbove.length} unread messages above`);
    await above.click();
    await expect.poll(async () => (await onScreen(hamlet)).whole).toContain(ids[0]);
    await expect.poll(() => above.count()).toBe(0);
    // The same conversation without a permalink: nothing highlighted.
    await open(hamlet, topicHash("permalink"));
    await expect.poll(() => hamlet.locator(".message.permalink-target").count()).toBe(0);
  }, 60_000);

  it("highlights the words a search matched, with the server's match_content", async () => {
    const result = await call(othello, "POST", "/messages", {
      type: "stream",
      to: "Verona",
      topic: "wildlife",
      content: "The quokka smiles; **quokkas** do that.",
    });
    await open(hamlet, "#narrow/search/quokka");
    const row = hamlet.locator(`.message[data-id="${result.id}"]`);
    await row.waitFor();
    await expect.poll(() => row.locator(".content .highlight").allTextContents()).toEqual(["quokka", "quokkas"]);
    expect(await row.locator(".content strong .highlight").count()).toBe(1);
    // A topic that matched: its recipient bar highlights the word (the server's match_subject).
    const inTopic = await call(othello, "POST", "/messages", { type: "stream", to: "Verona", topic: "Quokka sightings", content: "Two today." });
    await open(hamlet, "#inbox");
    await open(hamlet, "#narrow/search/quokka");
    await hamlet.locator(`.message[data-id="${inTopic.id}"]`).waitFor();
    await expect.poll(() => hamlet.locator(".recipient-bar .topic .highlight").allTextContents()).toEqual(["Quokka"]);
    const mark = await row
      .locator(".content .highlight")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(mark).not.toBe("rgba(0, 0, 0, 0)");
    if (shots) await hamlet.screenshot({ path: `${shots}/search-highlight-1280-light.png` });
    // A search view does not mark what it shows as read (Zulip).
    await hamlet.waitForTimeout(600);
    expect((await readIds("wildlife")).includes(result.id)).toBe(false);
    // Once edited, the new text shows, without stale highlights.
    await call(othello, "PATCH", `/messages/${result.id}`, { content: "The quokka moved house." });
    await expect.poll(() => row.locator(".content").textContent()).toBe("The quokka moved house.");
    expect(await row.locator(".content .highlight").count()).toBe(0);
    // Outside a search, no highlights.
    await open(hamlet, topicHash("wildlife"));
    await expect.poll(() => hamlet.locator(`.message[data-id="${result.id}"] .content`).textContent()).toBe("The quokka moved house.");
    expect(await hamlet.locator(".message .content .highlight").count()).toBe(0);
  }, 60_000);

  it("shows the cue whole at 390, 1024 and 1280 px, in the light and dark themes", async () => {
    const ids = await writeMany("cue sizes", 40);
    const page = await web.signIn("King Hamlet", { viewport: { width: 390, height: 844 } });
    await page.bringToFront();
    await open(page, topicHash("cue sizes"));
    await page.locator(`.message[data-id="${ids[0]}"]`).waitFor();
    const below = page.locator(".unread-cue.below button");
    for (const [scheme, theme] of [
      [3, "light"],
      [2, "dark"],
    ] as const) {
      await call(page, "PATCH", "/settings", { color_scheme: String(scheme) });
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      for (const width of [390, 1024, 1280]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        await expect.poll(() => below.isVisible()).toBe(true);
        // The whole cue on the screen, above the bottom edge of the list.
        const box = (await below.boundingBox())!;
        const list = (await page.locator(".message-list").boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(list.x);
        expect(box.x + box.width).toBeLessThanOrEqual(list.x + list.width);
        expect(box.y + box.height).toBeLessThanOrEqual(list.y + list.height);
        await page.waitForTimeout(400);
        if (shots) await page.screenshot({ path: `${shots}/unread-cue-${width === 390 ? "phone" : width}-${theme}.png` });
      }
    }
    await call(page, "PATCH", "/settings", { color_scheme: "1" });
    await page.context().close();
  }, 90_000);
});
