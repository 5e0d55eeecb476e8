import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp, sendToChannel } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// Menus in a real Chromium (Zulip's popovers): the sidebar's channel and topic menus, the
// recipient bar's, a message's "more actions" with its dialogs (edit history, read receipts,
// source), mark as read from Inbox and Recent, the sticky recipient bar, and every message
// action named in words and usable from the keyboard. Messages are set up through the API.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const shots = process.env.PARLEY_SCREENSHOTS;

const send = sendToChannel;

/** Unread message ids of a narrow, as the server has them. */
async function serverUnread(page: Page, narrow: object[]): Promise<number[]> {
  const result = await call(page, "GET", "/messages", {
    anchor: "newest",
    num_before: "500",
    num_after: "0",
    narrow: JSON.stringify([...narrow, { operator: "is", operand: "unread" }]),
  });
  expect(result.result).toBe("success");
  return result.messages.map((m: { id: number }) => m.id);
}

/** The unread count of a sidebar entry, read at once (a count that goes away while read is 0, not a 30 s wait). */
const sidebarCount = (page: Page, selector: string) => page.evaluate((sel) => Number(document.querySelector(`${sel} > a .count`)?.textContent ?? 0), selector);

const open = async (page: Page, hash: string) => {
  await page.goto(`${web.server.baseUrl}/${hash}`);
  await page.waitForSelector(".sidebar .channels", { state: "attached" });
};
const row = (page: Page, text: string) => page.locator(".message", { has: page.locator(`.content:has-text('${text}')`) });
const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
const topicItem = (page: Page, topic: string) => page.locator(`.sidebar .topics li[data-topic='${topic}']`);

describe.skipIf(!chromiumFound)("the web app's menus in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  /** Hamlet on another topic of Verona, so that the sidebar lists Verona's topics with their counts. */
  async function hamletElsewhereInVerona(): Promise<void> {
    await send(hamlet, VERONA, "menu elsewhere", "Hamlet is here");
    await hamlet.bringToFront();
    await open(hamlet, "#narrow/channel/1-Verona/topic/menu.20elsewhere");
  }
  const topicUnreadOnServer = (topic: string) =>
    serverUnread(hamlet, [
      { operator: "channel", operand: VERONA },
      { operator: "topic", operand: topic },
    ]);

  it("marks a topic read from the sidebar's topic menu by mouse, and the counts follow", async () => {
    for (let i = 0; i < 3; i++) await send(othello, VERONA, "menu a", `Topic a message ${i}`);
    for (let i = 0; i < 2; i++) await send(othello, VERONA, "menu b", `Topic b message ${i}`);
    await hamletElsewhereInVerona();
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu a']")).toBe(3);
    expect(await sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu b']")).toBe(2);

    // The topic's menu opens with its first item focused; "Mark all messages as read".
    await topicItem(hamlet, "menu a").hover();
    await hamlet.getByRole("button", { name: "Menu for topic menu a" }).click();
    const menu = hamlet.getByRole("menu", { name: "Menu for topic menu a" });
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(
      expect.arrayContaining(["Mark all messages as read", "Mute topic", "Follow topic", "Move topic…", "Mark as resolved", "Copy link to topic"]),
    );
    expect(await focused(hamlet)).toBe("Mark all messages as read");
    if (shots) await hamlet.screenshot({ path: `${shots}/menus-sidebar-1280-light.png` });
    await menu.getByRole("menuitem", { name: "Mark all messages as read" }).click();
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu a']")).toBe(0);
    await expect.poll(() => menu.count()).toBe(0);
    expect(await topicUnreadOnServer("menu a")).toEqual([]);
    // The other topic keeps its count.
    expect(await sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu b']")).toBe(2);
  }, 60_000);

  it("works the topic menu by keyboard: Enter opens, arrows move, Esc closes and gives focus back, Enter marks read", async () => {
    for (let i = 0; i < 2; i++) await send(othello, VERONA, "menu k", `Topic k message ${i}`);
    await hamletElsewhereInVerona();
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu k']")).toBe(2);

    const button = hamlet.getByRole("button", { name: "Menu for topic menu k" });
    await button.focus();
    await hamlet.keyboard.press("Enter");
    const menu = hamlet.getByRole("menu", { name: "Menu for topic menu k" });
    await menu.waitFor();
    expect(await focused(hamlet)).toBe("Mark all messages as read");
    await hamlet.keyboard.press("ArrowDown");
    expect(await focused(hamlet)).toBe("Mute topic");
    await hamlet.keyboard.press("ArrowUp");
    await hamlet.keyboard.press("ArrowUp");
    expect(await focused(hamlet)).toBe("Copy link to topic");
    await hamlet.keyboard.press("Home");
    expect(await focused(hamlet)).toBe("Mark all messages as read");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => menu.count()).toBe(0);
    expect(await focusedLabel(hamlet)).toBe("Menu for topic menu k");
    // Esc closed only the menu: the view is still the topic.
    expect(hamlet.url()).toContain("menu.20elsewhere");
    await hamlet.keyboard.press("Enter");
    await menu.waitFor();
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu k']")).toBe(0);
    expect(await topicUnreadOnServer("menu k")).toEqual([]);
  }, 60_000);

  it("follows, unfollows, mutes and unmutes a topic from its menu: the marks and the muted style follow the server", async () => {
    // Othello's topic, which Hamlet has read (so no count is left behind) and does not follow.
    const id = await send(othello, VERONA, "menu f", "A topic to follow");
    expect((await call(hamlet, "POST", "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "read" })).result).toBe("success");
    await hamletElsewhereInVerona();
    const button = hamlet.getByRole("button", { name: "Menu for topic menu f" });
    const menu = hamlet.getByRole("menu", { name: "Menu for topic menu f" });
    await topicItem(hamlet, "menu f").waitFor();
    expect(await sidebarCount(hamlet, ".sidebar .topics li[data-topic='menu f']")).toBe(0);
    expect(await topicItem(hamlet, "menu f").locator(".followed-mark").count()).toBe(0);
    await button.click();
    await menu.getByRole("menuitem", { name: "Follow topic" }).click();
    await expect.poll(() => topicItem(hamlet, "menu f").locator(".followed-mark").count()).toBe(1);
    await button.click();
    await menu.getByRole("menuitem", { name: "Unfollow topic" }).click();
    await expect.poll(() => topicItem(hamlet, "menu f").locator(".followed-mark").count()).toBe(0);
    await button.click();
    await menu.getByRole("menuitem", { name: "Mute topic" }).click();
    await expect.poll(() => topicItem(hamlet, "menu f").getAttribute("class")).toContain("muted");
    await button.click();
    await menu.getByRole("menuitem", { name: "Unmute topic" }).click();
    await expect.poll(() => topicItem(hamlet, "menu f").getAttribute("class")).not.toContain("muted");
  }, 60_000);

  it("marks a channel read, mutes it and opens its settings from the channel menu; marks all read after asking", async () => {
    for (let i = 0; i < 2; i++) await send(othello, VERONA, "menu c", `Channel menu message ${i}`);
    await send(othello, DENMARK, "elsewhere", "A Denmark message");
    await open(hamlet, "#narrow/is/starred");
    await expect.poll(() => sidebarCount(hamlet, ".sidebar li[data-channel-id='1']")).toBeGreaterThanOrEqual(2);

    const button = hamlet.getByRole("button", { name: "Menu for channel Verona" });
    await button.focus();
    await hamlet.keyboard.press("Enter");
    const menu = hamlet.getByRole("menu", { name: "Menu for channel Verona" });
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual([
      "Mark all messages as read",
      "Mute channel",
      "Copy link to channel",
      "Channel settings",
    ]);
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => sidebarCount(hamlet, ".sidebar li[data-channel-id='1']")).toBe(0);
    expect(await serverUnread(hamlet, [{ operator: "channel", operand: VERONA }])).toEqual([]);
    expect((await serverUnread(hamlet, [{ operator: "channel", operand: DENMARK }])).length).toBeGreaterThan(0);

    await button.click();
    await menu.getByRole("menuitem", { name: "Mute channel" }).click();
    await expect.poll(() => hamlet.locator(".sidebar li[data-channel-id='1']").getAttribute("class")).toContain("muted");
    await button.click();
    await menu.getByRole("menuitem", { name: "Unmute channel" }).click();
    await expect.poll(() => hamlet.locator(".sidebar li[data-channel-id='1']").getAttribute("class")).not.toContain("muted");

    await button.click();
    await menu.getByRole("menuitem", { name: "Channel settings" }).click();
    await expect.poll(() => hamlet.evaluate(() => location.hash)).toBe("#channels/1/Verona/general");
    await hamlet.keyboard.press("Escape");

    // "Mark all messages as read" from the Inbox's menu asks first; Cancel leaves everything unread.
    await open(hamlet, "#narrow/is/starred");
    await expect.poll(() => sidebarCount(hamlet, ".sidebar li[data-channel-id='2']")).toBeGreaterThan(0);
    const inboxMenu = hamlet.getByRole("button", { name: "Menu for Inbox" });
    await inboxMenu.focus();
    await hamlet.keyboard.press("Enter");
    await hamlet.keyboard.press("Enter");
    const confirm = hamlet.getByRole("dialog", { name: "Mark all messages as read?" });
    await confirm.waitFor();
    expect(await focused(hamlet)).toBe("Mark all as read");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => confirm.count()).toBe(0);
    expect(await focusedLabel(hamlet)).toBe("Menu for Inbox");
    expect((await serverUnread(hamlet, [])).length).toBeGreaterThan(0);
    await hamlet.keyboard.press("Enter");
    await hamlet.keyboard.press("Enter");
    await confirm.getByRole("button", { name: "Mark all as read" }).click();
    await expect.poll(() => sidebarCount(hamlet, ".sidebar li[data-channel-id='2']")).toBe(0);
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .views li:first-child")).toBe(0);
    expect(await serverUnread(hamlet, [])).toEqual([]);
  }, 60_000);

  it("marks conversations read from Inbox and Recent rows, and opens a row's topic menu", async () => {
    await send(othello, VERONA, "inbox row", "Inbox row message");
    await send(othello, DENMARK, "recent row", "Recent row message");
    await open(hamlet, "#inbox");
    const inboxRow = hamlet.locator(".inbox li", { hasText: "inbox row" });
    await inboxRow.waitFor();
    if (shots) await hamlet.screenshot({ path: `${shots}/inbox-menus-1280-light.png` });
    await hamlet.getByRole("button", { name: "Mark topic inbox row as read" }).click();
    await expect.poll(() => inboxRow.count()).toBe(0);
    expect(
      await serverUnread(hamlet, [
        { operator: "channel", operand: VERONA },
        { operator: "topic", operand: "inbox row" },
      ]),
    ).toEqual([]);

    // A direct message conversation, from the sidebar's menu of it.
    await call(othello, "POST", "/messages", { type: "direct", to: JSON.stringify([10]), content: "A DM to mark read" });
    const dmEntry = ".sidebar .dms li:has(a[data-dm='12'])";
    await expect.poll(() => sidebarCount(hamlet, dmEntry)).toBeGreaterThan(0);
    await hamlet.locator(dmEntry).hover();
    await hamlet.locator(dmEntry).getByRole("button", { name: "Menu for conversation with Othello, the Moor of Venice" }).click();
    await hamlet.getByRole("menuitem", { name: "Mark all messages as read" }).click();
    await expect.poll(() => sidebarCount(hamlet, dmEntry)).toBe(0);
    expect(await serverUnread(hamlet, [{ operator: "dm", operand: [12] }])).toEqual([]);

    await open(hamlet, "#recent");
    const recentRow = hamlet.locator(".recent tbody tr", { hasText: "recent row" });
    await expect.poll(() => recentRow.locator(".count").textContent()).toBe("1");
    if (shots) await hamlet.screenshot({ path: `${shots}/recent-menus-1280-light.png` });
    await recentRow.getByRole("button", { name: "Menu for topic recent row" }).click();
    const menu = hamlet.getByRole("menu", { name: "Menu for topic recent row" });
    await menu.waitFor();
    // The click on the menu button did not open the conversation (the row's own click does).
    expect(await hamlet.evaluate(() => location.hash)).toBe("#recent");
    await hamlet.keyboard.press("Escape");
    await recentRow.getByRole("button", { name: "Mark topic recent row as read" }).click();
    await expect.poll(() => recentRow.locator(".count").count()).toBe(0);
    expect(await hamlet.evaluate(() => location.hash)).toBe("#recent");
    expect(
      await serverUnread(hamlet, [
        { operator: "channel", operand: DENMARK },
        { operator: "topic", operand: "recent row" },
      ]),
    ).toEqual([]);
  }, 40_000);

  it("marks a topic read from its recipient bar's menu, without reading it", async () => {
    for (let i = 0; i < 2; i++) await send(othello, VERONA, "bar menu", `Bar menu message ${i}`);
    // Othello's window is in front: Hamlet's shows the messages but does not read them.
    await othello.bringToFront();
    await open(hamlet, "#narrow/channel/1-Verona/topic/bar.20menu");
    await hamlet.waitForSelector(".message .content:has-text('Bar menu message 1')");
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .topics li[data-topic='bar menu']")).toBe(2);
    const bar = hamlet.locator(".recipient-bar").first();
    await bar.getByRole("button", { name: "Menu for topic bar menu" }).click();
    const menu = hamlet.getByRole("menu", { name: "Menu for topic bar menu" });
    await menu.getByRole("menuitem", { name: "Mark all messages as read" }).click();
    await expect.poll(() => sidebarCount(hamlet, ".sidebar .topics li[data-topic='bar menu']")).toBe(0);
    await expect.poll(() => hamlet.locator(".message[data-unread]").count()).toBe(0);
    expect(
      await serverUnread(hamlet, [
        { operator: "channel", operand: VERONA },
        { operator: "topic", operand: "bar menu" },
      ]),
    ).toEqual([]);
  }, 40_000);

  it("offers edit history, read receipts and the source in the message menu, as modal dialogs", async () => {
    const id = await send(hamlet, VERONA, "dialogs", "History **before**");
    expect((await call(hamlet, "PATCH", `/messages/${id}`, { content: "History **after**" })).result).toBe("success");
    await call(othello, "POST", "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "read" });
    await send(othello, VERONA, "dialogs", "Othello writes *own* words");
    await hamlet.bringToFront();
    await open(hamlet, "#narrow/channel/1-Verona/topic/dialogs");
    await hamlet.waitForSelector(".message .content:has-text('History after')");

    // By mouse: "more actions" opens the menu, first item focused.
    await row(hamlet, "History after").hover();
    const more = row(hamlet, "History after").locator("[data-action=more]");
    await more.click();
    const menu = hamlet.getByRole("menu", { name: "More actions" });
    await menu.waitFor();
    expect(await focused(hamlet)).toBe("Quote and reply");
    const items = await menu.getByRole("menuitem").allTextContents();
    expect(items).toEqual(expect.arrayContaining(["Edit message", "View edit history", "View read receipts", "View message source", "Delete message"]));
    if (shots) await hamlet.screenshot({ path: `${shots}/menus-message-1280-light.png` });
    await menu.getByRole("menuitem", { name: "View edit history" }).click();
    const history = hamlet.getByRole("dialog", { name: "Message edit history" });
    await history.waitFor();
    await expect.poll(() => history.locator(".edit-history li").count()).toBe(2);
    expect(await history.locator(".edit-history li").first().textContent()).toContain("Posted by King Hamlet");
    expect(await history.locator(".edit-history li").first().textContent()).toContain("History before");
    expect(await history.locator(".edit-history li").nth(1).textContent()).toContain("Edited by King Hamlet");
    if (shots) await hamlet.screenshot({ path: `${shots}/menus-edit-history-1280-light.png` });
    // Modal: Tab stays inside; Esc closes it and focus goes back to the menu's button.
    for (let i = 0; i < 4; i++) {
      await hamlet.keyboard.press("Tab");
      expect(await hamlet.evaluate(() => !!document.activeElement?.closest("dialog[open]"))).toBe(true);
    }
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => history.count()).toBe(0);
    expect(await hamlet.evaluate(() => document.activeElement?.getAttribute("data-action"))).toBe("more");
    expect(hamlet.url()).toContain("topic/dialogs");

    // By keyboard: from the focused button, Enter, arrows to "View read receipts", Enter.
    await hamlet.keyboard.press("Enter");
    await menu.waitFor();
    for (let i = 0; i < 20 && (await focused(hamlet)) !== "View read receipts"; i++) await hamlet.keyboard.press("ArrowDown");
    expect(await focused(hamlet)).toBe("View read receipts");
    await hamlet.keyboard.press("Enter");
    const receipts = hamlet.getByRole("dialog", { name: "Read receipts" });
    await receipts.waitFor();
    await expect.poll(() => receipts.locator("li").allTextContents()).toEqual(["Othello, the Moor of Venice"]);
    await receipts.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => receipts.count()).toBe(0);
    expect(await hamlet.evaluate(() => document.activeElement?.getAttribute("data-action"))).toBe("more");

    // Someone else's message: "View original message" shows its Markdown, read-only.
    await row(hamlet, "Othello writes own words").hover();
    await row(hamlet, "Othello writes own words").locator("[data-action=more]").click();
    expect(await menu.getByRole("menuitem", { name: "Edit message" }).count()).toBe(0);
    await menu.getByRole("menuitem", { name: "View original message" }).click();
    const source = hamlet.getByRole("dialog", { name: "Message source" });
    await expect.poll(() => source.getByRole("textbox", { name: "Message source" }).inputValue()).toBe("Othello writes *own* words");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => source.count()).toBe(0);
  }, 40_000);

  it("names every message action in words and makes them work from the keyboard", async () => {
    const id = await send(othello, VERONA, "names", "Name the actions");
    await call(othello, "POST", `/messages/${id}/reactions`, { emoji_name: "tada" });
    await call(hamlet, "POST", `/messages/${id}/reactions`, { emoji_name: "heart" });
    await call(othello, "POST", `/messages/${id}/reactions`, { emoji_name: "heart" });
    await send(othello, VERONA, "names", "/poll Lunch?\nPizza\nSoup");
    await hamlet.bringToFront();
    await open(hamlet, "#narrow/channel/1-Verona/topic/names");
    const message = row(hamlet, "Name the actions");
    await message.waitFor();

    // Reaction chips: whether they are mine, in words and aria-pressed.
    const tada = message.getByRole("button", { name: "React with :tada:, 1 person reacted" });
    expect(await tada.getAttribute("aria-pressed")).toBe("false");
    const heart = message.getByRole("button", { name: "Remove your :heart: reaction, 2 people reacted" });
    expect(await heart.getAttribute("aria-pressed")).toBe("true");

    // The toolbar's buttons: one tab stop per message, arrows move inside the toolbar.
    for (const name of ["React with :+1:", "Add emoji reaction", "Star this message", "More actions"])
      expect(await message.getByRole("button", { name, exact: true }).count()).toBe(1);
    const tabStops = () => hamlet.evaluate(() => [...document.querySelectorAll<HTMLElement>(".message .actions button")].filter((b) => b.tabIndex >= 0).length);
    expect(await tabStops()).toBe(await hamlet.locator(".message .actions").count());
    await message.getByRole("button", { name: "React with :+1:" }).focus();
    for (let i = 0; i < 3; i++) await hamlet.keyboard.press("ArrowRight");
    expect(await focusedLabel(hamlet)).toBe("Add emoji reaction");
    expect(await message.locator(".actions").evaluate((el) => getComputedStyle(el).opacity)).toBe("1");
    await hamlet.keyboard.press("End");
    expect(await focusedLabel(hamlet)).toBe("More actions");
    await hamlet.keyboard.press("ArrowLeft");
    expect(await focusedLabel(hamlet)).toBe("Star this message");
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => message.getByRole("button", { name: "Unstar this message" }).getAttribute("aria-pressed")).toBe("true");

    // The emoji picker from the keyboard: it takes focus; Esc gives it back to the button.
    await message.locator("[data-action=react]").focus();
    await hamlet.keyboard.press("Enter");
    await hamlet.getByRole("dialog", { name: "Emoji picker" }).waitFor();
    expect(await focusedLabel(hamlet)).toBe("Search emoji");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.getByRole("dialog", { name: "Emoji picker" }).count()).toBe(0);
    expect(await focusedLabel(hamlet)).toBe("Add emoji reaction");
    await hamlet.keyboard.press("Enter");
    await hamlet.keyboard.type("tada");
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => message.getByRole("button", { name: "Remove your :tada: reaction, 2 people reacted" }).count()).toBe(1);

    // The recipient bar's buttons and the poll's votes.
    const bar = hamlet.locator(".recipient-bar").first();
    for (const name of ["Mark as resolved", "Move topic", "Follow topic", "Menu for topic names"])
      expect(await bar.getByRole("button", { name, exact: true }).count()).toBe(1);
    const pizza = hamlet.getByRole("button", { name: "Vote for Pizza (0 votes)" });
    await pizza.focus();
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => hamlet.getByRole("button", { name: "Vote for Pizza (1 vote)" }).getAttribute("aria-pressed")).toBe("true");
  }, 40_000);

  it("keeps the recipient bar of the topic at the top while its messages scroll", async () => {
    for (let i = 0; i < 40; i++) await send(othello, DENMARK, "sticky", `Sticky line ${i}\n\nwith a second paragraph`);
    await open(hamlet, "#narrow/channel/2-Denmark/topic/sticky");
    await hamlet.waitForSelector(".message .content:has-text('Sticky line 39')");
    const list = hamlet.locator(".message-list");
    const barTop = () =>
      hamlet.evaluate(() => {
        const list = document.querySelector(".message-list")!;
        const bar = list.querySelector(".recipient-bar")!;
        return Math.round(bar.getBoundingClientRect().top - list.getBoundingClientRect().top);
      });
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await expect.poll(barTop).toBe(0);
    expect(await hamlet.locator(".recipient-bar").first().isVisible()).toBe(true);
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(barTop).toBe(0);
  }, 60_000);

  it.skipIf(!shots)(
    "takes screenshots of the menus, compose and the shortcuts at 1280, 1024 and 390 px, light and dark",
    async () => {
      for (const [width, height, size] of [
        [1280, 800, "1280"],
        [1024, 768, "1024"],
        [390, 844, "phone"],
      ] as const) {
        for (const [scheme, themeName] of [
          ["3", "light"],
          ["2", "dark"],
        ] as const) {
          const page = await web.signIn("King Hamlet", { viewport: { width, height } });
          const shot = (name: string) => page.screenshot({ path: `${shots}/${name}-${size}-${themeName}.png` });
          await call(page, "PATCH", "/settings", { color_scheme: scheme });
          await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(themeName);
          const sidebarButton = page.getByRole("button", { name: "Menu", exact: true });
          const showSidebar = async () => {
            if (await sidebarButton.isVisible()) await sidebarButton.click();
          };
          await open(page, "#narrow/channel/1-Verona/topic/dialogs");
          await page.waitForSelector(".message .content:has-text('History after')");
          await shot("compose-closed");
          await showSidebar();
          await page.getByRole("button", { name: "Menu for channel Verona" }).click();
          await page.getByRole("menu").waitFor();
          await shot("menus-sidebar");
          await page.keyboard.press("Escape");
          if (await sidebarButton.isVisible()) await sidebarButton.click();
          await row(page, "History after").click();
          await row(page, "History after").locator("[data-action=more]").click();
          await page.getByRole("menu").waitFor();
          await shot("menus-message");
          await page.getByRole("menuitem", { name: "View edit history" }).click();
          await page.locator(".edit-history li").first().waitFor();
          await shot("menus-edit-history");
          await page.keyboard.press("Escape");
          await page.locator(".compose .new-topic-button").click();
          await page.locator(".compose textarea").waitFor();
          await shot("compose-open");
          await page.keyboard.press("Escape");
          await page.keyboard.press("Escape");
          await expect.poll(() => page.locator(".compose-open").count()).toBe(0);
          await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
          await page.keyboard.press("?");
          await page.locator(".shortcuts").waitFor();
          await shot("keyboard-shortcuts");
          await page.keyboard.press("Escape");
          await send(othello, DENMARK, "shot", `Unread for the Inbox at ${size} ${themeName}`);
          await open(page, "#inbox");
          await page.locator(".inbox li").first().waitFor();
          await shot("inbox-menus");
          await open(page, "#recent");
          await page.locator(".recent tbody tr").first().waitFor();
          await shot("recent-menus");
          await call(page, "PATCH", "/settings", { color_scheme: "1" });
          await page.context().close();
        }
      }
    },
    240_000,
  );
});
