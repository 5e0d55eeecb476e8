import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson, useWebApp } from "../support/webApp.js";
import { at } from "../support/at.js";

// Issue 32 item 14: changes made in the web app while its server restarts are not lost. The server
// is stopped with the page open; what the person does meanwhile (star a message, read others by
// scrolling to them, react to one) reaches the server once it is back, without any action of theirs.
// Nor is a message sent while the app loads or while a view's first page is on its way (the
// answers are held here until the message has come by event, or was sent before the queue existed).
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const HAMLET_ID = 10;
const TOPIC_HASH = "#narrow/channel/1-Verona/topic/while.20down";

/** The requests of the page's message fetches (GET /json/messages, not single messages). */
const isMessagesFetch = (url: URL) => url.pathname === "/json/messages";

const row = (page: Page, id: number) => page.locator(`.message-list .message[data-id="${id}"]`);

describe.skipIf(!chromiumFound)("the web app across a server restart", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
  }, 90_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("sends the read marks, star and reaction made while the server was down once it is back", async () => {
    // More unread messages than the list shows: it opens at the newest, the older ones are read by scrolling up to them.
    const ids: number[] = [];
    for (let i = 1; i <= 40; i++) {
      ids.push((await callJson(othello, "POST", "/messages", { type: "stream", to: "1", topic: "while down", content: `Line ${i}` })).id);
    }
    await hamlet.bringToFront();
    await hamlet.goto(`${web.server.baseUrl}/${TOPIC_HASH}`);
    await row(hamlet, at(ids, 0)).waitFor();
    const unreadShown = () => hamlet.locator(".message-list .message[data-unread]").count();
    await expect.poll(unreadShown).toBeGreaterThan(0); // the first ones are above the fold, still unread

    const port = Number(new URL(web.server.baseUrl).port);
    await web.server.stop();
    // While the server is down: star the last message, scroll up (reading the rest), react to the first.
    // A click selects a message, which shows its actions (hovering does too, but the list may scroll under the mouse).
    await row(hamlet, at(ids, 39)).locator(".content").click();
    await row(hamlet, at(ids, 39)).locator("button[title='Star']").click();
    const list = hamlet.locator(".message-list");
    const scrollUp = () => list.evaluate((el) => ((el.scrollTop = Math.max(0, el.scrollTop - 200)), el.dispatchEvent(new Event("scroll"))));
    await expect.poll(async () => (await scrollUp(), unreadShown()), { timeout: 10_000 }).toBe(0);
    await row(hamlet, at(ids, 0)).locator(".content").click();
    await row(hamlet, at(ids, 0)).locator("button[title='React with :+1:']").click();
    // The person is told that changes wait for the server.
    await expect.poll(() => hamlet.locator(".top .connection").textContent()).toMatch(/changes? not saved yet/);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a few failed attempts
    if (process.env.PARLEY_SCREENSHOTS) await hamlet.screenshot({ path: `${process.env.PARLEY_SCREENSHOTS}/changes-waiting.png` });

    await web.startServer(port);
    // Nobody touches the page: the changes reach the server (asked through the API here).
    const message = async (id: number) => (await callJson(othello, "GET", `/messages/${id}`)).message;
    const flagsOfHamlet = async (id: number) => (await callJson(hamlet, "GET", `/messages/${id}`)).message.flags as string[];
    await expect.poll(() => flagsOfHamlet(at(ids, 39)), { timeout: 20_000 }).toContain("starred");
    await expect
      .poll(async () => (await message(at(ids, 0))).reactions.map((r: any) => [r.emoji_name, r.user_id]), { timeout: 20_000 })
      .toEqual([["+1", HAMLET_ID]]);
    const stillUnread = async () =>
      (
        await callJson(hamlet, "GET", "/messages", {
          anchor: "oldest",
          num_before: "0",
          num_after: "100",
          narrow: JSON.stringify([
            { operator: "topic", operand: "while down" },
            { operator: "is", operand: "unread" },
          ]),
        })
      ).messages.length;
    await expect.poll(stillUnread, { timeout: 20_000 }).toBe(0);
    // And the page shows it too, with the reconnection notice gone.
    await expect.poll(() => row(hamlet, at(ids, 0)).locator(".reaction").textContent()).toBe("👍 1");
    await expect.poll(() => hamlet.locator(".top .connection").count()).toBe(0);
  }, 90_000);

  it("after losing its event queue, registers again and shows what changed meanwhile in the open view", async () => {
    await hamlet.goto(`${web.server.baseUrl}/${TOPIC_HASH}`);
    const ids: number[] = [];
    for (const content of ["To be edited", "To get a reaction", "To be deleted"]) {
      ids.push((await callJson(othello, "POST", "/messages", { type: "stream", to: "1", topic: "while down", content })).id);
    }
    for (const id of ids) await row(hamlet, id).waitFor();
    const oldQueue = await hamlet.locator("#app").getAttribute("data-queue-id");
    // Hamlet's page hears nothing (its polls fail) while its queue is dropped and Othello changes things.
    await hamlet.route("**/json/events**", (route) => (route.request().method() === "GET" ? route.abort() : route.continue()));
    await callJson(hamlet, "DELETE", "/events", { queue_id: oldQueue! });
    await callJson(othello, "PATCH", `/messages/${ids[0]}`, { content: "Edited while the queue was gone" });
    await callJson(othello, "POST", `/messages/${ids[1]}/reactions`, { emoji_name: "octopus" });
    await callJson(othello, "DELETE", `/messages/${ids[2]}`);
    await hamlet.unroute("**/json/events**");
    // BAD_EVENT_QUEUE_ID: a new registration, and the open view fetched again (no reload).
    await expect.poll(() => hamlet.locator("#app").getAttribute("data-queue-id"), { timeout: 20_000 }).not.toBe(oldQueue);
    await expect.poll(() => row(hamlet, at(ids, 0)).locator(".content").textContent()).toBe("Edited while the queue was gone");
    await expect.poll(() => row(hamlet, at(ids, 1)).locator(".reaction").count()).toBe(1);
    await expect.poll(() => row(hamlet, at(ids, 2)).count()).toBe(0);
  }, 60_000);

  it("shows a message sent while the view's first page was on its way, at load and on opening a view", async () => {
    for (const [topic, open] of [
      // (From another page: a new hash on the same page would only open a view.)
      ["during load", async (hash: string) => (await hamlet.goto("about:blank"), await hamlet.goto(`${web.server.baseUrl}/${hash}`))],
      ["during open", (hash: string) => hamlet.evaluate((h) => (location.hash = h), hash)],
    ] as const) {
      // Hamlet's fetch runs its query, then its answer waits until Othello's message, sent after
      // that query, has reached Hamlet's page as an event.
      let queried!: () => void;
      const fetchQueried = new Promise<void>((resolve) => (queried = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let answered!: () => void;
      const fetchAnswered = new Promise<void>((resolve) => (answered = resolve));
      await hamlet.route(isMessagesFetch, async (route) => {
        const response = await route.fetch();
        queried();
        await released;
        await route.fulfill({ response });
        answered();
      });
      const hash = `#narrow/channel/1-Verona/topic/${topic.replace(" ", ".20")}`;
      await open(hash);
      await fetchQueried;
      const content = `Sent ${topic}`;
      const delivered = hamlet.waitForResponse(async (r) => new URL(r.url()).pathname === "/json/events" && (await r.text()).includes(content));
      const id = (await callJson(othello, "POST", "/messages", { type: "stream", to: "1", topic, content })).id;
      await delivered;
      release();
      await fetchAnswered;
      await hamlet.unroute(isMessagesFetch);
      await row(hamlet, id).waitFor({ timeout: 10_000 });
      expect(await row(hamlet, id).locator(".content").textContent()).toBe(content);
    }
  }, 60_000);

  it("shows a message sent between its early fetch and its registration when the page came without its state", async () => {
    // The page without the state `/` embeds: the app registers itself, beside its early fetch.
    let stripped = false;
    await hamlet.route(
      (url) => url.pathname === "/",
      async (route) => {
        const response = await route.fetch();
        const page = await response.text();
        const body = page.replace(/<script type="application\/json" id="parley-state">[\s\S]*?<\/script>/, "");
        stripped = body !== page;
        await route.fulfill({ response, body });
      },
    );
    // Its registration waits until the early fetch has been answered and Othello has written.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await hamlet.route(
      (url) => url.pathname === "/json/register",
      async (route) => {
        await released;
        await route.continue();
      },
    );
    const earlyAnswer = hamlet.waitForResponse((r) => isMessagesFetch(new URL(r.url())));
    await hamlet.goto("about:blank");
    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/before.20the.20queue`);
    await earlyAnswer;
    expect(stripped).toBe(true);
    const content = "Sent before the queue existed";
    const id = (await callJson(othello, "POST", "/messages", { type: "stream", to: "1", topic: "before the queue", content })).id;
    release();
    await row(hamlet, id).waitFor({ timeout: 10_000 });
    expect(await row(hamlet, id).locator(".content").textContent()).toBe(content);
    await hamlet.unrouteAll();
  }, 60_000);
});
