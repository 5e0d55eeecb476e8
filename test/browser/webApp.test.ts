import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { chromiumFound } from "../support/browser.js";
import { sidebarCount, useWebApp, openCompose } from "../support/webApp.js";
import { basicAuth } from "../support/auth.js";

// The web app in a real Chromium: two people in two browser contexts, against a server process
// in development mode (Zulip's development organization), restarted in the middle.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const HAMLET_ID = 10;
const OTHELLO_ID = 12;

/**
 * Latency as the people see it, measured in the pages (one clock: same machine), not including
 * the test driver's round trips: the sender's page notes when the key is pressed, the receiver's
 * page when `selector` first shows `text`.
 */
async function watchFor(page: Page, selector: string, text: string): Promise<void> {
  await page.evaluate(
    ([sel, want]) => {
      const w = window as any;
      w.parleySeenAt = null;
      const check = () => {
        if (w.parleySeenAt === null && document.querySelector(sel)?.textContent === want) w.parleySeenAt = Date.now();
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
      check();
    },
    [selector, text] as const,
  );
}

async function sendWithKeyboard(page: Page): Promise<number> {
  const sentAt = await page.evaluate(() => Date.now());
  await page.press(".compose textarea", "Control+Enter");
  return sentAt;
}

async function latency(receiver: Page, sentAt: number): Promise<number> {
  await expect.poll(() => receiver.evaluate(() => (window as any).parleySeenAt), { timeout: 5000 }).not.toBeNull();
  return (await receiver.evaluate(() => (window as any).parleySeenAt)) - sentAt;
}

/**
 * The 1-second delivery budget, measured: each attempt sends a new message and measures when the
 * other page shows it. A 2-core machine shared with other work can stall one delivery, so up to
 * three attempts are made; the budget holds when one of them is within a second (all figures
 * are printed). Three stalls in a row fail the test.
 */
async function deliveredWithinASecond(attempt: (n: number) => Promise<number>): Promise<number> {
  const figures: number[] = [];
  for (let n = 1; n <= 3; n++) {
    const ms = await attempt(n);
    figures.push(ms);
    if (ms < 1000) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(`delivery latency (ms): ${figures.join(", ")}`);
  expect(Math.min(...figures)).toBeLessThan(1000);
  return figures.length;
}

describe.skipIf(!chromiumFound)("the web app in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
  }, 60_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("signs in with a password, and through the development login", async () => {
    hamlet = await (await web.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    hamlet.on("pageerror", (error) => console.error("hamlet's page:", error));
    await hamlet.goto(`${web.server.baseUrl}/`);
    expect(new URL(hamlet.url()).pathname).toBe("/login/");
    // A link to a narrow while signed out: the form keeps where it leads, also after a wrong password.
    await hamlet.goto(`${web.server.baseUrl}/login/?next=${encodeURIComponent("/#narrow/channel/1-Verona")}`);
    await hamlet.fill("#username", "hamlet@zulip.com");
    await hamlet.fill("#password", "wrong");
    await hamlet.click("button[type=submit]");
    await expect.poll(() => hamlet.locator(".error").textContent()).toBe("Your username or password is incorrect");
    await hamlet.fill("#password", DEV_PASSWORD);
    await hamlet.click("button[type=submit]");
    await hamlet.waitForSelector(".sidebar .channels");
    expect(new URL(hamlet.url()).pathname).toBe("/");
    expect(new URL(hamlet.url()).hash).toBe("#narrow/channel/1-Verona");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona");

    othello = await (await web.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    othello.on("pageerror", (error) => console.error("othello's page:", error));
    await othello.goto(`${web.server.baseUrl}/devlogin/`);
    await othello.click("button:has-text('Othello, the Moor of Venice')");
    await othello.waitForSelector(".sidebar .channels");
    await expect.poll(() => othello.locator(".view-title").textContent()).toBe("Inbox");
    // Both report their presence: each sees the other active in the people list.
    await expect.poll(() => othello.locator(`.user-list li.active[data-user-id='${HAMLET_ID}']`).count()).toBe(1);
    await expect.poll(() => hamlet.locator(`.user-list li.active[data-user-id='${OTHELLO_ID}']`).count()).toBe(1);
    await expect.poll(() => othello.locator(".user-list li.offline[data-user-id='8']").count()).toBe(1); // cordelia, not signed in
  }, 30_000);

  it("opens the narrow of a URL hash, old spellings included", async () => {
    await hamlet.goto(`${web.server.baseUrl}/#narrow/stream/Verona/subject/web.20test`);
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › web test");
    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/web.20test`);
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › web test");
    await openCompose(hamlet);
    await expect.poll(() => hamlet.locator(".compose input[aria-label=Topic]").inputValue()).toBe("web test");
  }, 20_000);

  it("shows a channel message to the other person within a second, and its unread count until it is read", async () => {
    await othello.waitForSelector("[data-channel-id='1'] > a .count");
    const before = await sidebarCount(othello, "[data-channel-id='1']");
    const sent = await deliveredWithinASecond(async (n) => {
      await watchFor(othello, "[data-channel-id='1'] > a .count", String(before + n));
      const text = n === 1 ? "Hello from the browser" : `Hello again (${n})`;
      await openCompose(hamlet);
      await hamlet.fill(".compose textarea", text);
      const sentAt = await sendWithKeyboard(hamlet);
      // Local echo at once, then the server's copy.
      await hamlet.waitForSelector(`.message .content:has-text('${text}')`);
      return latency(othello, sentAt);
    });
    expect(await sidebarCount(othello, "[data-channel-id='1']")).toBe(before + sent);
    await expect.poll(() => othello.locator(".inbox [data-folder='channel:1']").textContent()).toContain("web test");
    await expect.poll(() => hamlet.locator(".message.local").count()).toBe(0);

    // Othello opens the topic: the message is seen, so read, and the count goes back.
    await othello.click(".inbox [data-folder='channel:1'] li a:has-text('web test')");
    await othello.waitForSelector(".message .content:has-text('Hello from the browser')");
    await expect.poll(() => sidebarCount(othello, "[data-channel-id='1']"), { timeout: 3000 }).toBe(before);
    expect(othello.url()).toContain("#narrow/channel/1-Verona/topic/web.20test");
  }, 20_000);

  it("delivers a direct message within a second, with the sender's DM count", async () => {
    await othello.goto(`${web.server.baseUrl}/#narrow/dm/${HAMLET_ID}-King-Hamlet`);
    await expect.poll(() => othello.locator(".view-title").textContent()).toBe("King Hamlet");
    await hamlet.goto(`${web.server.baseUrl}/#inbox`);
    await hamlet.waitForSelector(".view-title:has-text('Inbox')");
    const dmEntry = `.dms li:has(a[data-dm='${OTHELLO_ID}'])`;
    const before = await sidebarCount(hamlet, dmEntry); // the development data has unread DMs
    const sent = await deliveredWithinASecond(async (n) => {
      await watchFor(hamlet, `.dms a[data-dm='${OTHELLO_ID}'] .count`, String(before + n));
      await openCompose(othello);
      await othello.fill(".compose textarea", n === 1 ? "A private word" : `Another private word (${n})`);
      return latency(hamlet, await sendWithKeyboard(othello));
    });
    // The latency is asserted above; a send slower than a second under load may still be on its way.
    await expect.poll(() => sidebarCount(hamlet, dmEntry), { timeout: 5000 }).toBe(before + sent);
    await hamlet.click(`.dms a[data-dm='${OTHELLO_ID}']`);
    await hamlet.waitForSelector(".message .content:has-text('A private word')");
    await expect.poll(() => sidebarCount(hamlet, dmEntry), { timeout: 3000 }).toBe(0);
    // Back and forward move between the narrows.
    await hamlet.evaluate(() => history.back());
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Inbox");
    await hamlet.evaluate(() => history.forward());
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Othello, the Moor of Venice");
  }, 40_000);

  it("reacts, stars, edits, deletes and searches, and the other person sees each change", async () => {
    for (const page of [hamlet, othello]) await page.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/actions`);
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "Edit me");
    await hamlet.press(".compose textarea", "Control+Enter");
    const row = (page: Page, text: string) => page.locator(".message", { has: page.locator(`.content:has-text('${text}')`) });
    await othello.waitForSelector(".message .content:has-text('Edit me')");
    await expect.poll(() => hamlet.locator(".message.local").count()).toBe(0);

    await row(hamlet, "Edit me").hover();
    await row(hamlet, "Edit me").locator("button[title='React with :+1:']").click();
    await expect.poll(() => row(othello, "Edit me").locator(".reaction").textContent()).toBe("👍 1");

    await row(hamlet, "Edit me").locator("button[title='Star']").click();
    await expect.poll(() => row(hamlet, "Edit me").locator(".star").count()).toBe(1);

    await row(hamlet, "Edit me").hover();
    await row(hamlet, "Edit me").locator("[data-action=more]").click();
    await row(hamlet, "Edit me").locator("button:has-text('Edit message')").click();
    await hamlet.fill("textarea[aria-label='Edit message']", "Edited text");
    await hamlet.click(".edit button[type=submit]");
    await othello.waitForSelector(".message .content:has-text('Edited text')");
    await expect.poll(() => row(othello, "Edited text").locator(".edited").count()).toBe(1);
    expect(await row(othello, "Edited text").locator(".reaction").textContent()).toBe("👍 1");

    await openCompose(hamlet);

    await hamlet.fill(".compose textarea", "Delete me");
    await hamlet.press(".compose textarea", "Control+Enter");
    await othello.waitForSelector(".message .content:has-text('Delete me')");
    await expect.poll(() => hamlet.locator(".message.local").count()).toBe(0);
    hamlet.once("dialog", (dialog) => void dialog.accept());
    await row(hamlet, "Delete me").hover();
    await row(hamlet, "Delete me").locator("[data-action=more]").click();
    await row(hamlet, "Delete me").locator("button:has-text('Delete message')").click();
    await expect.poll(() => row(othello, "Delete me").count()).toBe(0);

    await othello.fill(".search input", "edited");
    await othello.press(".search input", "Enter");
    await expect.poll(() => othello.locator(".view-title").textContent()).toBe("Search: edited");
    expect(othello.url()).toContain("#narrow/search/edited");
    await othello.waitForSelector(".message .content:has-text('Edited text')");
  }, 30_000);

  it("shows /poll and /todo messages as widgets that both people use", async () => {
    for (const page of [hamlet, othello]) await page.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/widgets`);
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "/poll Lunch where?\nPizza\nTacos");
    await hamlet.press(".compose textarea", "Control+Enter");
    const poll = (page: Page) => page.locator(".widget.poll", { hasText: "Lunch where?" });
    await poll(othello).waitFor();
    const tacos = (page: Page) => poll(page).locator("li", { hasText: "Tacos" }).locator("button");
    await tacos(othello).click();
    await expect.poll(() => tacos(hamlet).textContent()).toBe("1");
    await expect.poll(() => tacos(othello).getAttribute("aria-pressed")).toBe("true");
    await poll(hamlet).locator("input[aria-label='New option']").fill("Sushi");
    await poll(hamlet).locator("button:has-text('Add option')").click();
    await poll(othello).locator("li", { hasText: "Sushi" }).waitFor();

    await openCompose(othello);

    await othello.fill(".compose textarea", "/todo Trip\nTickets: two returns\nHotel");
    await othello.press(".compose textarea", "Control+Enter");
    const todo = (page: Page) => page.locator(".widget.todo", { hasText: "Trip" });
    // A click asks the server; the box turns checked when the strike comes back as an event.
    await todo(hamlet).locator("li", { hasText: "Hotel" }).locator("input[type=checkbox]").click();
    await expect.poll(() => todo(othello).locator("li.done").textContent()).toContain("Hotel");
    if (process.env.PARLEY_SCREENSHOTS) await othello.screenshot({ path: `${process.env.PARLEY_SCREENSHOTS}/widgets.png` });
  }, 30_000);

  it("keeps at most 300 messages in the page, paging a long history in both directions", async () => {
    const { api_key: key } = await (
      await fetch(`${web.server.baseUrl}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "iago@zulip.com" }) })
    ).json();
    const auth = { Authorization: basicAuth("iago@zulip.com", key) };
    for (let batch = 0; batch < 45; batch++) {
      const sent = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          fetch(`${web.server.baseUrl}/api/v1/messages`, {
            method: "POST",
            headers: auth,
            body: new URLSearchParams({ type: "stream", to: "Verona", topic: "long history", content: `Line ${batch * 10 + i + 1}` }),
          }),
        ),
      );
      expect(sent.map((res) => res.status)).toEqual(Array(10).fill(200));
    }
    const ends = async (anchor: string) => {
      const query = new URLSearchParams({
        anchor,
        num_before: anchor === "newest" ? "1" : "0",
        num_after: anchor === "oldest" ? "1" : "0",
        narrow: JSON.stringify([{ operator: "topic", operand: "long history" }]),
      });
      const { messages } = await (await fetch(`${web.server.baseUrl}/api/v1/messages?${query}`, { headers: auth })).json();
      return messages[0].id as number;
    };
    const [oldest, newest] = [await ends("oldest"), await ends("newest")];
    // Opened at the newest message (`near`), the first 200 or so are not fetched yet.
    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/long.20history/near/${newest}`);
    await hamlet.waitForSelector(".message-list .message");
    const list = hamlet.locator(".message-list");
    const rows = () => hamlet.locator(".message-list .message").count();
    const edge = () => hamlet.locator(".message-list .status.edge").textContent();
    const BEGINNING = "This is the beginning of the conversation.";
    // Up to the first message: each scroll to the top moves the window or fetches older history.
    await hamlet.waitForSelector(`.message-list .message[data-id="${newest}"]`);
    for (let i = 0; i < 60 && (await edge()) !== BEGINNING; i++) {
      const before = await list.getAttribute("data-first");
      // Scrolled to the top (again: a scroll while a page is loading is ignored, as the app does).
      const toTop = () => list.evaluate((el) => ((el.scrollTop = 0), el.dispatchEvent(new Event("scroll"))));
      await expect
        .poll(async () => (await toTop(), (await list.getAttribute("data-first")) !== before || (await edge()) === BEGINNING), { timeout: 10_000 })
        .toBe(true);
      expect(await rows()).toBeLessThanOrEqual(300);
    }
    expect(await edge()).toBe(BEGINNING);
    expect(await rows()).toBe(300);
    expect(Number(await hamlet.locator(".message-list .message").first().getAttribute("data-id"))).toBe(oldest);
    await expect.poll(() => hamlet.locator(`.message-list .message[data-id="${newest}"]`).count()).toBe(0);
    // Down again to the newest message.
    for (let i = 0; i < 40 && Number(await list.getAttribute("data-last")) < newest; i++) {
      const last = Number(await list.getAttribute("data-last"));
      const toBottom = () => list.evaluate((el) => ((el.scrollTop = el.scrollHeight), el.dispatchEvent(new Event("scroll"))));
      await expect.poll(async () => (await toBottom(), Number(await list.getAttribute("data-last"))), { timeout: 10_000 }).toBeGreaterThan(last);
      expect(await rows()).toBeLessThanOrEqual(300);
    }
    expect(Number(await list.getAttribute("data-last"))).toBe(newest);
    await expect.poll(() => hamlet.locator(`.message-list .message[data-id="${oldest}"]`).count()).toBe(0);
  }, 90_000);

  it("carries on after a server restart without reloading, keeping what is typed", async () => {
    await othello.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/web.20test`);
    await othello.waitForSelector(".message .content:has-text('Hello from the browser')");
    await openCompose(othello);
    await othello.fill(".compose textarea", "a draft being typed");
    for (const page of [hamlet, othello]) await page.evaluate(() => ((window as any).parleyNotReloaded = true));
    const port = new URL(web.server.baseUrl).port;
    await web.server.stop();
    await web.startServer(Number(port));

    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/web.20test`).catch(() => {}); // a hash change, no reload
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "After the restart");
    await hamlet.press(".compose textarea", "Control+Enter");
    await othello.waitForSelector(".message .content:has-text('After the restart')", { timeout: 15_000 });
    expect(await othello.locator(".compose textarea").inputValue()).toBe("a draft being typed");
    for (const page of [hamlet, othello]) expect(await page.evaluate(() => (window as any).parleyNotReloaded)).toBe(true);
  }, 40_000);

  it("registers again when its event queue is gone, and catches up", async () => {
    const oldQueue = await othello.locator("#app").getAttribute("data-queue-id");
    await othello.evaluate(async (queueId) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')!.content;
      await fetch("/json/events", { method: "DELETE", headers: { "X-CSRFToken": token }, body: new URLSearchParams({ queue_id: queueId! }) });
    }, oldQueue);
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "While the queue was gone");
    await hamlet.press(".compose textarea", "Control+Enter");
    await othello.waitForSelector(".message .content:has-text('While the queue was gone')", { timeout: 15_000 });
    expect(await othello.locator("#app").getAttribute("data-queue-id")).not.toBe(oldQueue);
    expect(await othello.locator(".compose textarea").inputValue()).toBe("a draft being typed");
    expect(await othello.evaluate(() => (window as any).parleyNotReloaded)).toBe(true);
  }, 30_000);

  it("follows the color scheme setting live, and fits a phone's width", async () => {
    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/web.20test`);
    await hamlet.waitForSelector(".message .content:has-text('After the restart')");
    // Something of everything the Markdown makes, for the screenshots.
    const sent = await othello.evaluate(async () => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')!.content;
      const content =
        'Looks good, @**King Hamlet**! :tada: Try `npm start`:\n```python\ndef greet(name):\n    return f"Hello {name}"\n```\n> Brevity is the soul of wit.\n\n| Act | Scene |\n|---|---|\n| I | ii |';
      const res = await fetch("/json/messages", {
        method: "POST",
        headers: { "X-CSRFToken": token },
        body: new URLSearchParams({ type: "stream", to: "1", topic: "web test", content }),
      });
      return (await res.json()).id as number;
    });
    await hamlet.waitForSelector(`.message[data-id="${sent}"] .user-mention`);
    await hamlet.evaluate(async (id) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')!.content;
      await fetch(`/json/messages/${id}/reactions`, { method: "POST", headers: { "X-CSRFToken": token }, body: new URLSearchParams({ emoji_name: "heart" }) });
    }, sent);
    await hamlet.waitForSelector(`.message[data-id="${sent}"] .reaction`);
    // Arriving in the open view, it is seen, so read.
    await expect.poll(() => hamlet.locator(`.message[data-id="${sent}"][data-unread]`).count()).toBe(0);
    const setScheme = (scheme: number) =>
      hamlet.evaluate(async (value) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')!.content;
        await fetch("/json/settings", { method: "PATCH", headers: { "X-CSRFToken": token }, body: new URLSearchParams({ color_scheme: String(value) }) });
      }, scheme);
    const shots = process.env.PARLEY_SCREENSHOTS; // a directory: the README's screenshots (docs/screenshots)
    const shoot = async (name: string) => shots && (await hamlet.screenshot({ path: `${shots}/${name}.png` }));
    await setScheme(3);
    await expect.poll(() => hamlet.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    await shoot("desktop-light");
    await setScheme(2);
    await expect.poll(() => hamlet.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await shoot("desktop-dark");

    await hamlet.setViewportSize({ width: 360, height: 740 });
    // Nothing wider than the screen: no horizontal scrolling.
    expect(await hamlet.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expect.poll(() => hamlet.locator(".sidebar").isVisible()).toBe(false);
    await shoot("phone-dark");
    await hamlet.click("button.menu");
    await expect.poll(() => hamlet.locator(".sidebar").isVisible()).toBe(true);
    await setScheme(3);
    await expect.poll(() => hamlet.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    await shoot("phone-light-sidebar");
    await hamlet.click(".sidebar a:has-text('Inbox')");
    await expect.poll(() => hamlet.locator(".sidebar").isVisible()).toBe(false);
    await hamlet.setViewportSize({ width: 1280, height: 800 });
  }, 30_000);

  it("lands on a narrow's link after signing in from it while signed out", async () => {
    // `/` sends a signed-out browser to /login/; the browser keeps the hash, which the page's
    // script (/static/login.js) makes the form's next.
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const iago = await context.newPage();
      iago.on("pageerror", (error) => console.error("iago's page:", error));
      const hash = "#narrow/channel/1-Verona/topic/web.20test";
      await iago.goto(`${web.server.baseUrl}/${hash}`);
      expect(new URL(iago.url()).pathname).toBe("/login/");
      expect(new URL(iago.url()).hash).toBe(hash);
      await expect.poll(() => iago.locator('form input[name="next"]').inputValue({ timeout: 2000 })).toBe(`/${hash}`);
      await iago.fill("#username", "iago@zulip.com");
      await iago.fill("#password", DEV_PASSWORD);
      await iago.click("button[type=submit]");
      await iago.waitForSelector(".sidebar .channels");
      expect(new URL(iago.url()).pathname).toBe("/");
      expect(new URL(iago.url()).hash).toBe(hash);
      await expect.poll(() => iago.locator(".view-title").textContent()).toBe("#Verona › web test");
    } finally {
      await context.close();
    }
  }, 30_000);
});
