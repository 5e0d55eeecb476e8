import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, openCompose, useWebApp } from "../support/webApp.js";

// The compose box's tools in a real Chromium: typeahead (people, channels, emoji, topics), the
// Markdown preview, formatting buttons, drafts synchronized through the server (#drafts), send
// later (#scheduled: edit, reschedule, delivery, send now) and saved snippets.
const web = useWebApp();
let hamlet: Page;
const shots = process.env.PARLEY_SCREENSHOTS;

const textarea = (page: Page) => page.locator(".compose textarea");
const value = (page: Page) => textarea(page).inputValue();
const menuItems = (page: Page) => page.locator(".compose-typeahead li");

async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
}

async function openTopic(page: Page, topic: string): Promise<void> {
  await open(page, `#narrow/channel/1-Verona/topic/${topic}`);
  await openCompose(page);
  await expect.poll(() => page.locator(".compose input[aria-label='Topic']").inputValue()).toBe(topic);
}

/** A `datetime-local` value `seconds` from now, in the page's time zone. */
function localTimeFromNow(page: Page, seconds: number): Promise<string> {
  return page.evaluate((s) => {
    const d = new Date(Date.now() + s * 1000);
    const two = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  }, seconds);
}

describe.skipIf(!chromiumFound)("the compose box's tools in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    // A missing element fails the test with its selector, within the test's time.
    hamlet.setDefaultTimeout(8000);
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("completes a mention, a channel and an emoji by keyboard, and the sent message renders them", async () => {
    await openTopic(hamlet, "typeahead");
    await textarea(hamlet).click();
    await hamlet.keyboard.type("Hi @othel");
    await expect.poll(() => menuItems(hamlet).first().textContent()).toContain("Othello, the Moor of Venice");
    if (shots) await hamlet.screenshot({ path: `${shots}/compose-typeahead.png` });
    await hamlet.keyboard.press("Enter");
    expect(await value(hamlet)).toBe("Hi @**Othello, the Moor of Venice** ");
    await hamlet.keyboard.type("see #den");
    await expect.poll(() => menuItems(hamlet).first().textContent()).toBe("#Denmark");
    await hamlet.keyboard.press("Tab");
    await hamlet.keyboard.type("now :thumbs_u");
    await expect.poll(() => menuItems(hamlet).first().textContent()).toContain(":thumbs_up:");
    // Down and Up move the choice; Esc closes the menu without changing the text.
    await hamlet.keyboard.press("ArrowDown");
    await hamlet.keyboard.press("ArrowUp");
    await hamlet.keyboard.press("Enter");
    expect(await value(hamlet)).toBe("Hi @**Othello, the Moor of Venice** see #**Denmark** now :thumbs_up: ");
    await hamlet.keyboard.type("@iag");
    await expect.poll(() => menuItems(hamlet).count()).toBeGreaterThan(0);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => menuItems(hamlet).count()).toBe(0);
    expect(await value(hamlet)).toContain("@iag");
    await hamlet.keyboard.press("Backspace");
    await hamlet.keyboard.press("Backspace");
    await hamlet.keyboard.press("Backspace");
    await hamlet.keyboard.press("Backspace");
    await hamlet.keyboard.press("Control+Enter");
    const sent = hamlet.locator(".message .content", { hasText: "Hi" }).last();
    await expect.poll(() => sent.locator(".user-mention").textContent(), { timeout: 10_000 }).toBe("@Othello, the Moor of Venice");
    expect(await sent.locator("a.stream").textContent()).toBe("#Denmark");
    expect(await sent.locator(".emoji").getAttribute("title")).toBe("thumbs up");
  }, 60_000);

  it("suggests the channel's topics in the topic field, and a channel's topics after #**channel>", async () => {
    await openTopic(hamlet, "typeahead");
    const topicField = hamlet.locator(".compose input[aria-label='Topic']");
    await topicField.fill("");
    await topicField.type("type");
    await expect.poll(() => menuItems(hamlet).first().textContent()).toBe("typeahead");
    await topicField.fill("");
    await textarea(hamlet).fill("");
    await textarea(hamlet).type("about #**Verona>typ");
    await expect.poll(() => menuItems(hamlet).first().textContent()).toBe("typeahead");
    await hamlet.keyboard.press("Enter");
    expect(await value(hamlet)).toBe("about #**Verona>typeahead** ");
    await textarea(hamlet).fill("");
  }, 60_000);

  it("previews the message as rendered HTML and goes back to editing", async () => {
    await openTopic(hamlet, "preview");
    await textarea(hamlet).fill("**Strong** words and `code`\n\n- one\n- two");
    await hamlet.click(".compose .preview-toggle");
    const preview = hamlet.locator(".compose .compose-preview");
    await expect.poll(() => preview.locator("strong").textContent()).toBe("Strong");
    expect(await preview.locator("code").textContent()).toBe("code");
    await expect.poll(() => preview.locator("li").count()).toBe(2);
    expect(await textarea(hamlet).isVisible()).toBe(false);
    if (shots) await hamlet.screenshot({ path: `${shots}/compose-preview.png` });
    await hamlet.click(".compose .preview-toggle");
    await expect.poll(() => preview.count()).toBe(0);
    expect(await textarea(hamlet).isVisible()).toBe(true);
    expect(await value(hamlet)).toBe("**Strong** words and `code`\n\n- one\n- two");
    await textarea(hamlet).fill("");
  });

  it("wraps the selection in bold with the button and in italic with Ctrl+I", async () => {
    await openTopic(hamlet, "formatting");
    await textarea(hamlet).fill("make this bold");
    await textarea(hamlet).evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(5, 9));
    await hamlet.click(".compose .format-bold");
    expect(await value(hamlet)).toBe("make **this** bold");
    expect(await textarea(hamlet).evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd))).toBe("this");
    await hamlet.keyboard.press("Control+i");
    expect(await value(hamlet)).toBe("make ***this*** bold");
    await hamlet.click(".compose .format-bold");
    expect(await value(hamlet)).toBe("make *this* bold");
    await textarea(hamlet).fill("");
  });

  it("saves a draft on the server that another browser of the same person lists live in #drafts and restores", async () => {
    const other = await web.signIn("King Hamlet");
    other.setDefaultTimeout(8000);
    // "d" opens the drafts, as in Zulip.
    await other.keyboard.press("d");
    await other.waitForSelector(".compose-overlay.drafts");
    await openTopic(hamlet, "drafty");
    await textarea(hamlet).type("A draft to finish later");
    // Saved after a pause in typing, and shown live in the other browser.
    const row = other.locator(".compose-list .draft", { hasText: "A draft to finish later" });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.locator(".to").textContent()).toBe("#Verona › drafty");
    if (shots) await other.screenshot({ path: `${shots}/drafts.png` });
    // Switching conversations saves at once and restores when coming back.
    await textarea(hamlet).type(", with more");
    await openTopic(hamlet, "elsewhere");
    expect(await value(hamlet)).toBe("");
    await expect.poll(() => row.textContent()).toContain("A draft to finish later, with more");
    await openTopic(hamlet, "drafty");
    expect(await value(hamlet)).toBe("A draft to finish later, with more");

    await row.locator("button.restore").click();
    await expect.poll(() => other.evaluate(() => decodeURIComponent(location.hash))).toContain("/topic/drafty");
    expect(await value(other)).toBe("A draft to finish later, with more");
    const drafts = await call(other, "GET", "/drafts");
    expect(drafts.drafts).toHaveLength(1);
    // Sent: the draft is deleted.
    await textarea(other).press("Control+Enter");
    await expect.poll(async () => (await call(other, "GET", "/drafts")).count).toBe(0);
    await expect.poll(() => other.locator(".message .content", { hasText: "A draft to finish later, with more" }).count()).toBe(1);
    await other.context().close();
    // The first browser learns that the draft went (event) and does not bring it back.
    await openTopic(hamlet, "elsewhere");
    await openTopic(hamlet, "drafty");
    expect(await value(hamlet)).toBe("");
  });

  it("keeps drafts in the browser only when the person does not synchronize them", async () => {
    const iago = await web.signIn("Iago");
    iago.setDefaultTimeout(8000);
    expect((await call(iago, "PATCH", "/settings", { enable_drafts_synchronization: "false" })).result).toBe("success");
    await iago.reload();
    await iago.waitForSelector(".compose");
    await openTopic(iago, "local");
    await textarea(iago).type("Only on this computer");
    await openTopic(iago, "elsewhere");
    await open(iago, "#drafts");
    await expect.poll(() => iago.locator(".compose-list .draft .text").allTextContents()).toEqual(["Only on this computer"]);
    // Not on the server; still there after a reload.
    expect((await call(iago, "GET", "/drafts")).result).toBe("error");
    await iago.reload();
    await iago.waitForSelector(".compose-overlay.drafts");
    await expect.poll(() => iago.locator(".compose-list .draft .text").allTextContents()).toEqual(["Only on this computer"]);
    await iago.locator(".compose-list .draft button.delete").click();
    await expect.poll(() => iago.locator(".compose-list .draft").count()).toBe(0);
    expect(await iago.evaluate(() => localStorage.getItem("parley-drafts:11"))).toBe("[]");
    await iago.context().close();
  });

  it("schedules a message that appears in #scheduled, is edited and rescheduled, and then delivered", async () => {
    await openTopic(hamlet, "later");
    await textarea(hamlet).fill("Scheduled hello");
    await hamlet.click(".compose .send-options");
    await hamlet.fill(".send-later-menu input[type='datetime-local']", await localTimeFromNow(hamlet, 3600));
    await hamlet.click(".send-later-menu button[type='submit']");
    await expect.poll(() => value(hamlet)).toBe("");
    await open(hamlet, "#scheduled");
    const row = hamlet.locator(".compose-list .scheduled");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator(".text").textContent()).toBe("Scheduled hello");
    expect(await row.locator(".to").textContent()).toBe("#Verona › later");
    if (shots) await hamlet.screenshot({ path: `${shots}/scheduled.png` });

    // Edit: back in the compose box, saved with PATCH.
    await row.locator("button.edit").click();
    await expect.poll(() => value(hamlet)).toBe("Scheduled hello");
    expect(await hamlet.locator(".compose .send").textContent()).toBe("Save");
    await textarea(hamlet).fill("Scheduled hello, edited");
    await hamlet.click(".compose .send");
    await expect.poll(async () => (await call(hamlet, "GET", "/scheduled_messages")).scheduled_messages[0]?.content).toBe("Scheduled hello, edited");
    // The server has the edit before the page has its answer: the button turns back to Send then.
    await expect.poll(() => hamlet.locator(".compose .send").textContent()).toBe("Send");

    // Reschedule to a few seconds from now: the server delivers it.
    await open(hamlet, "#scheduled");
    await row.locator("button.reschedule").click();
    await row.locator("input[type='datetime-local']").fill(await localTimeFromNow(hamlet, 4));
    await row.locator(".reschedule-form button[type='submit']").click();
    await open(hamlet, "#narrow/channel/1-Verona/topic/later");
    await expect.poll(() => hamlet.locator(".message .content", { hasText: "Scheduled hello, edited" }).count(), { timeout: 15_000 }).toBe(1);
    expect((await call(hamlet, "GET", "/scheduled_messages")).scheduled_messages).toHaveLength(0);

    // Send now: delivered at once, off the schedule.
    const scheduled = await call(hamlet, "POST", "/scheduled_messages", {
      type: "stream",
      to: "1",
      topic: "later",
      content: "Sent right away",
      scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 3600),
    });
    expect(scheduled.result).toBe("success");
    await open(hamlet, "#scheduled");
    await expect.poll(() => row.count()).toBe(1);
    await row.locator("button.send-now").click();
    await expect.poll(() => row.count()).toBe(0);
    await open(hamlet, "#narrow/channel/1-Verona/topic/later");
    await expect.poll(() => hamlet.locator(".message .content", { hasText: "Sent right away" }).count()).toBe(1);
  }, 45_000);

  it("saves the message as a snippet and inserts it", async () => {
    await openTopic(hamlet, "snippets");
    await textarea(hamlet).fill("Thanks for the report, we are looking into it.");
    await hamlet.click(".compose .snippets-toggle");
    await hamlet.fill(".snippets-menu input[aria-label='Snippet title']", "Ack");
    await hamlet.click(".snippets-menu button[type='submit']");
    await expect.poll(() => hamlet.locator(".snippets-menu .snippet-insert").allTextContents()).toEqual(["Ack"]);
    await hamlet.click(".compose .snippets-toggle");
    await textarea(hamlet).fill("Hello! ");
    await hamlet.click(".compose .snippets-toggle");
    await hamlet.click(".snippets-menu .snippet-insert");
    expect(await value(hamlet)).toBe("Hello! Thanks for the report, we are looking into it.");
    expect((await call(hamlet, "GET", "/saved_snippets")).saved_snippets.map((s: any) => s.title)).toEqual(["Ack"]);
    // A click outside closes the list; deleting a snippet takes it off the list and the server.
    await hamlet.click(".compose .snippets-toggle");
    await hamlet.click(".view-title");
    await expect.poll(() => hamlet.locator(".snippets-menu").count()).toBe(0);
    await hamlet.click(".compose .snippets-toggle");
    await hamlet.click(".snippets-menu .snippet-delete");
    await expect.poll(() => hamlet.locator(".snippets-menu .snippet-insert").count()).toBe(0);
    expect((await call(hamlet, "GET", "/saved_snippets")).saved_snippets).toEqual([]);
    await textarea(hamlet).fill("");
  });

  it("looks right at 360 px wide in the dark theme", async () => {
    const phone = await web.signIn("King Hamlet", { viewport: { width: 360, height: 740 } });
    await phone.emulateMedia({ colorScheme: "dark" });
    await openTopic(phone, "typeahead");
    await textarea(phone).click();
    await phone.keyboard.type("@co");
    await expect.poll(() => menuItems(phone).count()).toBeGreaterThan(0);
    // Every tool is on screen.
    const overflow = await phone.evaluate(
      () =>
        [...document.querySelectorAll(".compose button, .compose-typeahead")].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).length,
    );
    expect(overflow).toBe(0);
    if (shots) await phone.screenshot({ path: `${shots}/compose-phone-dark.png` });
    // Light theme, the "Send later" menu open: on screen too.
    await phone.emulateMedia({ colorScheme: "light" });
    await phone.keyboard.press("Escape");
    await phone.click(".compose .send-options");
    const menu = await phone.locator(".send-later-menu").boundingBox();
    expect(menu!.x).toBeGreaterThanOrEqual(0);
    expect(menu!.x + menu!.width).toBeLessThanOrEqual(360);
    if (shots) await phone.screenshot({ path: `${shots}/compose-phone-light-send-later.png` });
    await phone.context().close();
  });
});
