import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { axeScan } from "../support/axe.js";
import { callJson as call, sendToChannel, useWebApp } from "../support/webApp.js";

// Visitors in a real Chromium (Zulip's spectators): with the organization's spectator access on,
// a browser without an account opens `/` and reads the web-public channels (recent conversations,
// a channel and its topics, a permalink, a search), sees no private channel, no DM and nothing
// that needs an account; with it off, `/` is the login page. Axe scans and screenshots as the
// other browser tests.
const web = useWebApp();
let desdemona: Page;
const shots = process.env.PARLEY_SCREENSHOTS;
let square: number;
let backOffice: number;
const sent = { news: 0, older: 0, lantern: 0, secret: 0, dm: 0, verona: 0 };

async function channelId(page: Page, name: string): Promise<number> {
  const answer = await call(page, "GET", "/get_stream_id", { stream: name });
  expect(answer.result, JSON.stringify(answer)).toBe("success");
  return answer.stream_id as number;
}

async function setSpectatorAccess(on: boolean): Promise<void> {
  const answer = await call(desdemona, "PATCH", "/realm", { enable_spectator_access: JSON.stringify(on) });
  expect(answer.result, JSON.stringify(answer)).toBe("success");
}

/** A browser context with no session at all, opening `hash` at `/`. */
async function visit(hash = "", options: { width?: number; dark?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const width = options.width ?? 1280;
  const context = await web.browser.newContext({ viewport: { width, height: width < 500 ? 844 : 800 }, colorScheme: options.dark ? "dark" : "light" });
  context.setDefaultTimeout(8000);
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error("visitor's page:", error));
  await page.goto(`${web.server.baseUrl}/${hash}`);
  return { context, page };
}

const sidebarChannels = (page: Page) => page.locator(".sidebar .channels > li .name").allTextContents();

describe.skipIf(!chromiumFound)("the web app for visitors", () => {
  beforeAll(async () => {
    await web.setUp();
    desdemona = await web.signIn("Desdemona");
    // A channel made web-public by its owner, a private one, and messages everywhere.
    for (const [name, inviteOnly] of [
      ["town square", false],
      ["back office", true],
    ] as const) {
      const made = await call(desdemona, "POST", "/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name }]),
        invite_only: JSON.stringify(inviteOnly),
      });
      expect(made.result, JSON.stringify(made)).toBe("success");
    }
    square = await channelId(desdemona, "town square");
    backOffice = await channelId(desdemona, "back office");
    // A channel can be made web-public only while spectator access is on (as in Zulip).
    await setSpectatorAccess(true);
    const patched = await call(desdemona, "PATCH", `/streams/${square}`, { is_web_public: "true" });
    expect(patched.result, JSON.stringify(patched)).toBe("success");
    await setSpectatorAccess(false);
    sent.older = await sendToChannel(desdemona, square, "market day", "Stalls open at **nine**, lanterns at dusk.");
    sent.news = await sendToChannel(desdemona, square, "news", "The bridge reopens on Monday.");
    sent.lantern = await sendToChannel(desdemona, square, "news", "Bring a lantern to the opening.");
    sent.secret = await sendToChannel(desdemona, backOffice, "plans", "The lantern budget is secret.");
    sent.verona = await sendToChannel(desdemona, 1, "members", "Only members read this lantern note.");
    const dm = await call(desdemona, "POST", "/messages", { type: "direct", to: JSON.stringify([10]), content: "A private lantern word" });
    sent.dm = dm.id;
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("sends a browser without a session to /login/ while spectator access is off", async () => {
    const { context, page } = await visit();
    expect(new URL(page.url()).pathname).toBe("/login/");
    await context.close();
  });

  it("shows a visitor the web-public channels, recent conversations first, and nothing of an account", async () => {
    await setSpectatorAccess(true);
    const { context, page } = await visit();
    expect(new URL(page.url()).pathname).toBe("/");
    await page.waitForSelector(".visitor-banner");
    expect(await page.locator(".visitor-banner").textContent()).toContain("as a guest");
    // Recent conversations is the visitor's home view, with the web-public topics.
    await page.waitForSelector(".recent tbody tr");
    const topics = await page.locator(".recent tbody .topic a").allTextContents();
    expect(topics).toContain("news");
    expect(topics).toContain("market day");
    expect(topics).toContain("roads"); // Rome, web-public in the development organization
    expect(topics).not.toContain("plans");
    expect(topics).not.toContain("members");
    expect(await page.locator(".recent .dm-label").count()).toBe(0);
    // The sidebar: the web-public channels only, no DMs, no menus, no settings, no compose.
    const channels = await sidebarChannels(page);
    expect(channels.sort()).toEqual(["Rome", "town square"]);
    expect(await page.locator(".sidebar .dms").count()).toBe(0);
    expect(await page.locator(".sidebar .views li").allTextContents()).toEqual(["Recent conversations", "Combined feed"]);
    for (const absent of [
      ".compose",
      ".user-list",
      ".logout",
      ".settings-link",
      ".people-toggle",
      ".add-channel",
      ".browse-channels",
      ".sidebar [aria-haspopup]",
    ])
      expect(await page.locator(absent).count(), absent).toBe(0);
    await page.waitForSelector(".top .visitor-login");
    expect(await page.locator(".top .visitor-login").getAttribute("href")).toBe("/login/?next=%2F");
    await context.close();
  }, 30_000);

  it("opens a channel with its topics and messages, and a permalink", async () => {
    const { context, page } = await visit();
    await page.waitForSelector(".sidebar .channels");
    await page.click(`.sidebar .channels > li[data-channel-id="${square}"] > a`);
    await page.waitForSelector(".message .content");
    // After the notice of the channel's creation (in "channel events"), the messages sent.
    expect((await page.locator(".message .content").allTextContents()).slice(-3)).toEqual([
      "Stalls open at nine, lanterns at dusk.",
      "The bridge reopens on Monday.",
      "Bring a lantern to the opening.",
    ]);
    await page.waitForSelector(`.sidebar li[data-channel-id="${square}"] .topics li`);
    expect(await page.locator(`.sidebar li[data-channel-id="${square}"] .topics li .name`).allTextContents()).toEqual(["news", "market day", "channel events"]);
    // No actions on a message: no star, no menu, no reactions to add.
    expect(await page.locator(".message .actions, .message [data-action]").count()).toBe(0);
    expect(await page.locator(".recipient-bar button, .recipient-bar [aria-haspopup]").count()).toBe(0);
    // A sender's card: no address, no presence, no DM or mute buttons.
    await page.locator(`.message[data-id="${sent.older}"] .sender .name`).click();
    await page.waitForSelector(".user-card");
    expect(await page.locator(".user-card .card-name").textContent()).toContain("Desdemona");
    expect(await page.locator(".user-card .card-email, .user-card .card-presence, .user-card .card-actions").count()).toBe(0);
    await page.keyboard.press("Escape");
    // The combined feed: the web-public channels' messages, none of Verona's.
    await page.click(".sidebar .views a[href='#feed']");
    await page.waitForSelector(`.message[data-id="${sent.lantern}"]`);
    expect(await page.locator(`.message[data-id="${sent.verona}"]`).count()).toBe(0);
    // (The feed's other conversations may still be drawing: polled.)
    await expect.poll(() => page.locator(".recipient-bar .channel").allTextContents()).toContain("#Rome");
    await context.close();

    // A message's permalink, opened in a new visitor's browser.
    const link = await visit(`#narrow/channel/${square}-town-square/topic/news/near/${sent.news}`);
    await link.page.waitForSelector(`.message[data-id="${sent.news}"].permalink-target`);
    expect(await link.page.locator(".view-title").textContent()).toContain("news");
    expect(await link.page.locator(".message .content").allTextContents()).toEqual(["The bridge reopens on Monday.", "Bring a lantern to the opening."]);
    await link.context.close();
  }, 30_000);

  it("searches the web-public channels only", async () => {
    const { context, page } = await visit();
    await page.waitForSelector(".recent tbody tr");
    await page.fill(".top .search input", "lantern");
    await page.press(".top .search input", "Enter");
    await page.waitForFunction(() => location.hash.includes("search"));
    await page.waitForSelector(".message .content");
    const ids = (await page.locator(".message").evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.id)))).sort();
    expect(ids).toContain(sent.lantern);
    for (const hidden of [sent.secret, sent.verona, sent.dm]) expect(ids).not.toContain(hidden);
    await context.close();
  }, 30_000);

  it("keeps DMs and other channels closed, and asks to sign in for what needs an account", async () => {
    const { context, page } = await visit(`#narrow/dm/10-King-Hamlet`);
    await page.waitForSelector(".status.error");
    expect(await page.locator(".status.error").textContent()).toBe("This is not a publicly accessible conversation.");
    expect(await page.locator(".message").count()).toBe(0);
    await page.evaluate((id) => (location.hash = `#narrow/channel/${id}-back-office`), backOffice);
    await expect.poll(() => page.locator(".status.error").count()).toBe(1);
    expect(await page.locator(".message").count()).toBe(0);
    await page.evaluate(() => (location.hash = "#narrow/channel/1-Verona"));
    await expect.poll(() => page.locator(".status.error").count()).toBe(1);
    expect(await page.locator(".message").count()).toBe(0);
    // Settings need an account: the sign-in prompt, and the view stays where it was.
    await page.evaluate(() => (location.hash = "#settings/profile"));
    await page.waitForSelector("dialog.sign-in-prompt");
    expect(await page.locator("dialog.sign-in-prompt a.primary").getAttribute("href")).toBe("/login/?next=%2F%23narrow%2Fchannel%2F1-Verona");
    expect(await page.evaluate(() => location.hash)).toBe("#narrow/channel/1-Verona");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("dialog.sign-in-prompt").count()).toBe(0);
    // Keyboard shortcuts that compose ask too; so does Sign up.
    await page.evaluate((id) => (location.hash = `#narrow/channel/${id}-town-square/topic/news`), square);
    await page.waitForSelector(".message .content");
    await page.keyboard.press("c");
    await page.waitForSelector("dialog.sign-in-prompt");
    await page.keyboard.press("Escape");
    await page.click(".top .visitor-signup");
    await page.waitForSelector("dialog.sign-in-prompt");
    expect(await page.locator("dialog.sign-in-prompt h2").textContent()).toMatch(/^Sign up for /);
    await page.keyboard.press("Escape");
    // Log in goes to the login page, coming back to the conversation.
    await page.click(".top .visitor-login");
    await page.waitForURL(/\/login\//);
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/#narrow/channel/${square}-town-square/topic/news`);
    await context.close();
  }, 30_000);

  it("has no serious or critical axe violation, light or dark, wide or narrow", async () => {
    const found: string[] = [];
    for (const dark of [false, true]) {
      for (const width of [1280, 390]) {
        const { context, page } = await visit("", { width, dark });
        await page.waitForSelector(".recent tbody tr");
        const name = `${dark ? "dark" : "light"} ${width}`;
        for (const line of await axeScan(page)) found.push(`${name} recent: ${line}`);
        if (shots) await page.screenshot({ path: `${shots}/visitor-recent-${width}-${dark ? "dark" : "light"}.png` });
        await page.evaluate((id) => (location.hash = `#narrow/channel/${id}-town-square/topic/news`), square);
        await page.waitForSelector(".message .content");
        await page.waitForTimeout(200);
        for (const line of await axeScan(page)) found.push(`${name} topic: ${line}`);
        if (shots) await page.screenshot({ path: `${shots}/visitor-topic-${width}-${dark ? "dark" : "light"}.png` });
        await page.click(".top .visitor-signup");
        await page.waitForSelector("dialog.sign-in-prompt");
        for (const line of await axeScan(page)) found.push(`${name} prompt: ${line}`);
        if (shots) await page.screenshot({ path: `${shots}/visitor-prompt-${width}-${dark ? "dark" : "light"}.png` });
        await context.close();
      }
    }
    expect(found).toEqual([]);
  }, 90_000);

  it("shows new, edited and deleted messages and reactions live (the visitor's event queue)", async () => {
    const { context, page } = await visit(`#narrow/channel/${square}-town-square/topic/live`);
    await page.waitForSelector("#app[data-queue-id]");
    // Nothing yet in the topic; a message sent now arrives without a reload.
    const id = await sendToChannel(desdemona, square, "live", "The ferry leaves at **noon**.");
    await page.waitForSelector(`.message[data-id="${id}"] .content`);
    expect(await page.locator(`.message[data-id="${id}"] .content`).textContent()).toBe("The ferry leaves at noon.");
    // A message of a channel visitors may not read never arrives.
    const secret = await sendToChannel(desdemona, backOffice, "live", "The ferry is a decoy.");
    const edited = await call(desdemona, "PATCH", `/messages/${id}`, { content: "The ferry leaves at **one**." });
    expect(edited.result, JSON.stringify(edited)).toBe("success");
    await expect.poll(() => page.locator(`.message[data-id="${id}"] .content`).textContent()).toBe("The ferry leaves at one.");
    const reacted = await call(desdemona, "POST", `/messages/${id}/reactions`, { emoji_name: "boat" });
    expect(reacted.result, JSON.stringify(reacted)).toBe("success");
    await page.waitForSelector(`.message[data-id="${id}"] .reactions .reaction, .message[data-id="${id}"] .reaction`);
    const deleted = await call(desdemona, "DELETE", `/messages/${id}`);
    expect(deleted.result, JSON.stringify(deleted)).toBe("success");
    await expect.poll(() => page.locator(`.message[data-id="${id}"]`).count()).toBe(0);
    expect(await page.locator(`.message[data-id="${secret}"]`).count()).toBe(0);
    await context.close();
  }, 30_000);

  it("lands on /login/ again once spectator access is turned off", async () => {
    await setSpectatorAccess(false);
    const { context, page } = await visit(`#narrow/channel/${square}-town-square`);
    expect(new URL(page.url()).pathname).toBe("/login/");
    await context.close();
  });
});
