import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, openCompose, useWebApp } from "../support/webApp.js";

// The compose box as Zulip's (issue 33, items 7–10): closed by default with reply / new
// conversation / new DM buttons, Esc closes it and keeps the draft; direct messages to several
// people through recipient pills; channel typing indicators, typing notices per conversation; the
// preview draws emoji.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const shots = process.env.PARLEY_SCREENSHOTS;

const textarea = (page: Page) => page.locator(".compose textarea");
const pillInput = (page: Page) => page.locator(".compose input[aria-label='Direct message recipients']");
const pills = (page: Page) => page.locator(".compose .recipient-pills .pill-name");
const suggestions = (page: Page) => page.locator(".compose .recipient-typeahead li");

async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
}

async function userId(page: Page, email: string): Promise<number> {
  const { members } = await call(page, "GET", "/users");
  return members.find((u: { email: string }) => u.email === email).user_id;
}

/** The typing notices the page sends, as [type, op] pairs (recorded from its fetches). */
async function recordTyping(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as any;
    if (w.parleyTyping) return;
    w.parleyTyping = [];
    const original = window.fetch;
    window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).includes("/json/typing") && init?.body instanceof URLSearchParams) w.parleyTyping.push([init.body.get("type"), init.body.get("op")]);
      return original(input, init);
    };
  });
}
const typingSent = (page: Page): Promise<string[][]> => page.evaluate(() => (window as any).parleyTyping);

describe.skipIf(!chromiumFound)("the compose box as Zulip's, in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
    hamlet.setDefaultTimeout(8000);
    othello.setDefaultTimeout(8000);
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("is closed by default, opens from its buttons, and Esc closes it keeping the draft", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/closed.20box");
    const reply = hamlet.locator(".compose .reply-button");
    await expect.poll(() => reply.textContent()).toBe("Message #Verona > closed box");
    expect(await textarea(hamlet).count()).toBe(0);
    expect(await hamlet.locator(".compose .new-topic-button").getAttribute("aria-label")).toBe("Start new conversation");
    expect(await hamlet.locator(".compose .new-dm-button").getAttribute("aria-label")).toBe("New direct message");
    if (shots) await hamlet.screenshot({ path: `${shots}/compose-closed-1280-light.png` });

    // The reply button: the box for this topic, the cursor in the message.
    await reply.click();
    await expect.poll(() => hamlet.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Message");
    expect(await hamlet.locator(".compose input[aria-label='Topic']").inputValue()).toBe("closed box");
    await hamlet.keyboard.type("Half a thought");
    if (shots) await hamlet.screenshot({ path: `${shots}/compose-open-1280-light.png` });
    // Esc: closed, the text kept as a draft (listed in #drafts), back when reopened.
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => textarea(hamlet).count()).toBe(0);
    await expect.poll(async () => (await call(hamlet, "GET", "/drafts")).drafts.map((d: { content: string }) => d.content)).toEqual(["Half a thought"]);
    // The page lists the draft once the server has answered its POST, which can come after the server shows it.
    await expect.poll(() => reply.textContent()).toBe("Message #Verona > closed box (draft)");
    await reply.click();
    await expect.poll(() => textarea(hamlet).inputValue()).toBe("Half a thought");
    // Sent: the box stays open for the same conversation, empty.
    await textarea(hamlet).press("Control+Enter");
    await expect.poll(() => hamlet.locator(".message .content", { hasText: "Half a thought" }).count()).toBe(1);
    expect(await textarea(hamlet).inputValue()).toBe("");
    expect(await hamlet.locator(".compose input[aria-label='Topic']").inputValue()).toBe("closed box");

    // "Start new conversation": this channel, an empty topic, the cursor in it.
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => textarea(hamlet).count()).toBe(0);
    await hamlet.click(".compose .new-topic-button");
    await expect.poll(() => hamlet.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Topic");
    expect(await hamlet.locator(".compose input[aria-label='Topic']").inputValue()).toBe("");
    expect(await hamlet.locator(".compose select[aria-label='Channel'] option:checked").textContent()).toBe("#Verona");
    // "New direct message": the recipient field, empty.
    await hamlet.click(".compose .compose-close");
    await hamlet.click(".compose .new-dm-button");
    await expect.poll(() => hamlet.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Direct message recipients");
    expect(await pills(hamlet).count()).toBe(0);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => textarea(hamlet).count()).toBe(0);
    // A reading view closes an empty box.
    await hamlet.click(".compose .new-topic-button");
    await open(hamlet, "#inbox");
    await expect.poll(() => textarea(hamlet).count()).toBe(0);
    // In a view of several conversations, the reply button is for the selected message's.
    await open(hamlet, "#feed");
    await hamlet.locator(".message .content", { hasText: "Half a thought" }).waitFor();
    // The view opens with a message selected (as Zulip's); selecting another one retargets the button.
    await expect.poll(() => reply.count()).toBe(1);
    await hamlet.locator(".message .content", { hasText: "Half a thought" }).click();
    await expect.poll(() => reply.textContent()).toBe("Message #Verona > closed box");
    await reply.click();
    await expect.poll(() => hamlet.locator(".compose input[aria-label='Topic']").inputValue()).toBe("closed box");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => textarea(hamlet).count()).toBe(0);
  }, 60_000);

  it("sends a group DM to recipients chosen as pills by name or email, received by each", async () => {
    const cordelia = await userId(hamlet, "cordelia@zulip.com");
    const othelloId = await userId(hamlet, "othello@zulip.com");
    const hamletId = await userId(hamlet, "hamlet@zulip.com");
    await open(hamlet, "#inbox");
    await hamlet.click(".compose .new-dm-button");
    // The cursor goes to the recipients (focusField, a task after the box renders): typing before it
    // arrives would go to the button.
    await expect.poll(() => pillInput(hamlet).evaluate((el) => el === document.activeElement)).toBe(true);
    // By name: best match first.
    await hamlet.keyboard.type("othel");
    await expect.poll(() => suggestions(hamlet).first().locator(".ta-name").textContent()).toBe("Othello, the Moor of Venice");
    await hamlet.keyboard.press("Enter");
    // By email.
    await hamlet.keyboard.type("cordelia@");
    await expect.poll(() => suggestions(hamlet).first().locator(".ta-name").textContent()).toContain("Cordelia");
    await hamlet.keyboard.press("Tab");
    await hamlet.keyboard.type("ia");
    await expect.poll(() => suggestions(hamlet).count()).toBeGreaterThan(0);
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => pills(hamlet).allTextContents()).toEqual(["Othello, the Moor of Venice", expect.stringContaining("Cordelia"), "Iago"]);
    // The people already chosen are not suggested again; suggestions come sorted by name.
    await hamlet.keyboard.type("o");
    const names = await suggestions(hamlet).locator(".ta-name").allTextContents();
    expect(names).not.toContain("Othello, the Moor of Venice");
    await hamlet.keyboard.press("Backspace");
    // Backspace in the empty field removes the last pill.
    await hamlet.keyboard.press("Backspace");
    await expect.poll(() => pills(hamlet).count()).toBe(2);
    if (shots) await hamlet.screenshot({ path: `${shots}/compose-pills-1280-light.png` });
    await textarea(hamlet).click();
    expect(await textarea(hamlet).getAttribute("placeholder")).toContain("Othello, the Moor of Venice");
    await hamlet.keyboard.type("A word to you both");
    await hamlet.keyboard.press("Control+Enter");
    await expect.poll(() => textarea(hamlet).inputValue()).toBe("");

    // Othello sees it in the group conversation (the three of them).
    await open(othello, `#narrow/dm/${[hamletId, cordelia].sort((a, b) => a - b).join(",")}-group`);
    await expect.poll(() => othello.locator(".message .content", { hasText: "A word to you both" }).count(), { timeout: 10_000 }).toBe(1);
    // ... where the box opens for the same people, as Zulip's does in a DM view.
    await textarea(othello).waitFor();
    expect(await othello.locator(".compose .recipient-pills .pill-name").allTextContents()).toEqual(
      expect.arrayContaining(["King Hamlet", expect.stringContaining("Cordelia")]),
    );
    const { messages } = await call(othello, "GET", "/messages", {
      anchor: "newest",
      num_before: "1",
      num_after: "0",
      narrow: JSON.stringify([{ operator: "dm", operand: [hamletId, cordelia] }]),
    });
    expect(messages[0].display_recipient.map((r: { id: number }) => r.id).sort()).toEqual([hamletId, othelloId, cordelia].sort());
    await othello.keyboard.press("Escape");
    await open(othello, "#inbox");
  }, 60_000);

  it("shows who is typing in a channel topic, and a DM notice follows a channel one at once", async () => {
    await recordTyping(hamlet);
    await open(othello, "#narrow/channel/1-Verona/topic/typing.20here");
    await open(hamlet, "#narrow/channel/1-Verona/topic/typing.20here");
    await openCompose(hamlet);
    await textarea(hamlet).click();
    await hamlet.keyboard.type("I am typing");
    // Othello, with the box closed, sees it under the topic.
    const notice = othello.locator(".compose .typing");
    await expect.poll(() => notice.textContent(), { timeout: 10_000 }).toBe("King Hamlet is typing…");
    if (shots) await othello.screenshot({ path: `${shots}/compose-typing-1280-light.png` });
    // Emptied: "stop" at once, and the notice goes.
    await textarea(hamlet).fill("");
    await textarea(hamlet).press("Backspace");
    await expect.poll(() => notice.count(), { timeout: 10_000 }).toBe(0);

    // Within the 10 s of the channel "start", a DM gets its own "start".
    await textarea(hamlet).type("Again in the channel");
    await open(othello, "#narrow/dm/10-King-Hamlet");
    await open(hamlet, "#narrow/dm/12-Othello");
    await textarea(hamlet).waitFor();
    await expect.poll(() => hamlet.locator(".compose .recipient-pills .pill-name").allTextContents()).toEqual(["Othello, the Moor of Venice"]);
    await textarea(hamlet).click();
    await hamlet.keyboard.type("Now privately");
    await expect.poll(() => othello.locator(".compose .typing").textContent(), { timeout: 10_000 }).toBe("King Hamlet is typing…");
    const sent = await typingSent(hamlet);
    expect(sent).toContainEqual(["stream", "start"]);
    expect(sent).toContainEqual(["stream", "stop"]);
    expect(sent).toContainEqual(["direct", "start"]);
    await textarea(hamlet).fill("");
    await hamlet.keyboard.press("Escape");
    await othello.keyboard.press("Escape");
  }, 60_000);

  it("draws emoji in the preview", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/preview.20emoji");
    await openCompose(hamlet);
    await textarea(hamlet).fill("Party :tada:");
    await hamlet.click(".compose .preview-toggle");
    const emoji = hamlet.locator(".compose .compose-preview .emoji");
    await expect.poll(() => emoji.count()).toBe(1);
    expect(await emoji.textContent()).not.toBe(":tada:");
    expect(await emoji.textContent()).toBe("🎉");
    await hamlet.click(".compose .preview-toggle");
    await textarea(hamlet).fill("");
    await hamlet.keyboard.press("Escape");
  });

  it("leaves most of a phone's screen to the messages, closed and open, in the dark theme", async () => {
    const phone = await web.signIn("King Hamlet", { viewport: { width: 390, height: 844 } });
    phone.setDefaultTimeout(8000);
    await phone.emulateMedia({ colorScheme: "dark" });
    await open(phone, "#narrow/channel/1-Verona/topic/closed.20box");
    await phone.locator(".compose .reply-button").waitFor();
    const closed = await phone.locator(".compose").boundingBox();
    expect(closed!.height).toBeLessThan(844 * 0.1);
    const overflow = () =>
      phone.evaluate(
        () =>
          [...document.querySelectorAll(".compose button, .compose input, .compose select")].filter(
            (el) => el.getBoundingClientRect().right > window.innerWidth + 1,
          ).length,
      );
    expect(await overflow()).toBe(0);
    if (shots) await phone.screenshot({ path: `${shots}/compose-closed-390-dark.png` });
    await phone.click(".compose .reply-button");
    await textarea(phone).waitFor();
    const opened = await phone.locator(".compose").boundingBox();
    expect(opened!.height).toBeLessThan(844 * 0.4);
    expect(await overflow()).toBe(0);
    if (shots) await phone.screenshot({ path: `${shots}/compose-open-390-dark.png` });
    await phone.selectOption(".compose select[aria-label='Channel']", "dm");
    await pillInput(phone).click();
    await phone.keyboard.type("oth");
    await phone.keyboard.press("Enter");
    await phone.keyboard.type("cord");
    await phone.keyboard.press("Enter");
    await expect.poll(() => pills(phone).count()).toBe(2);
    expect(await overflow()).toBe(0);
    if (shots) await phone.screenshot({ path: `${shots}/compose-pills-390-dark.png` });
    // A pill's × removes it; the cursor stays in the field.
    await phone.click(".compose .pill-remove[aria-label='Remove Othello, the Moor of Venice']");
    await expect.poll(() => pills(phone).allTextContents()).toEqual(["Cordelia, Lear's daughter"]);
    expect(await phone.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Direct message recipients");
    await phone.context().close();
  }, 60_000);
});
