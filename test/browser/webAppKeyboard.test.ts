import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, openUnfocused as open, useWebApp, sendToChannel } from "../support/webApp.js";
import { seedChannels, seedUsers } from "../support/seed.js";
import { at } from "../support/at.js";

// Zulip's keyboard shortcuts in a real Chromium (issue 33, items 4 and 6): each group pressed as a
// person presses it, and checked by what the page then shows (the URL, the focus, the selected
// message, a star, a reaction chip, a menu). Messages are set up through the API.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const HAMLET_ID = seedUsers.hamlet.id;
const OTHELLO_ID = seedUsers.othello.id;
const IAGO_ID = seedUsers.iago.id;
const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const shots = process.env.PARLEY_SCREENSHOTS;

const send = sendToChannel;

const hash = (page: Page) => page.evaluate(() => location.hash);
const selected = (page: Page) => page.evaluate(() => Number(document.querySelector<HTMLElement>(".message-list .message.selected")?.dataset.id ?? 0));
/** Where the focus is: the closest of the given landmarks around the focused element, or its tag. */
const focusIn = (page: Page, selector: string) => page.evaluate((s) => !!document.activeElement?.closest(s), selector);

describe.skipIf(!chromiumFound)("keyboard shortcuts in Chromium", () => {
  let ids: number[] = [];

  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
    ids = [];
    for (let i = 1; i <= 40; i++) ids.push(await send(othello, VERONA, "keys", `Keyboard message ${i}`));
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("moves through messages with arrows, J/K, Home/End and PgUp/PgDn", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message .content:has-text('Keyboard message 40')");
    await hamlet.keyboard.press("End");
    await expect.poll(() => selected(hamlet)).toBe(ids[39]);
    await hamlet.keyboard.press("k");
    await expect.poll(() => selected(hamlet)).toBe(ids[38]);
    await hamlet.keyboard.press("ArrowUp");
    await expect.poll(() => selected(hamlet)).toBe(ids[37]);
    await hamlet.keyboard.press("j");
    await expect.poll(() => selected(hamlet)).toBe(ids[38]);
    await hamlet.keyboard.press("ArrowDown");
    await expect.poll(() => selected(hamlet)).toBe(ids[39]);

    // PgUp scrolls up by a screen and the selection follows onto the screen; PgDn comes back down.
    const list = hamlet.locator(".message-list");
    const scrollTop = () => list.evaluate((el) => el.scrollTop);
    const onScreen = () =>
      hamlet.evaluate(() => {
        const list = document.querySelector(".message-list")!.getBoundingClientRect();
        const row = document.querySelector(".message-list .message.selected")!.getBoundingClientRect();
        return row.top >= list.top - 1 && row.bottom <= list.bottom + 1;
      });
    const before = await scrollTop();
    await hamlet.keyboard.press("PageUp");
    await expect.poll(scrollTop).toBeLessThan(before - 100);
    expect(await selected(hamlet)).toBeLessThan(at(ids, 39));
    expect(await onScreen()).toBe(true);
    const afterUp = await scrollTop();
    await hamlet.keyboard.press("PageDown");
    await expect.poll(scrollTop).toBeGreaterThan(afterUp + 100);
    expect(await onScreen()).toBe(true);

    // Home: the first message drawn, at the top; End: the last one again.
    await hamlet.keyboard.press("Home");
    await expect.poll(scrollTop).toBeLessThan(50);
    const first = await selected(hamlet);
    expect(first).toBeLessThan(at(ids, 10));
    await hamlet.keyboard.press("End");
    await expect.poll(() => selected(hamlet)).toBe(ids[39]);
    expect(await onScreen()).toBe(true);
  }, 40_000);

  it("does nothing while typing in a field, nor with Ctrl or Alt on a letter", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message.selected");
    const was = await selected(hamlet);
    await hamlet.keyboard.press("Alt+k");
    await hamlet.keyboard.press("Control+k");
    // Ctrl+K is Zulip's other search key: the search box has the focus now, and k types there.
    expect(await focusIn(hamlet, ".search")).toBe(true);
    await hamlet.keyboard.type("kj");
    expect(await hamlet.locator(".search input").inputValue()).toBe("kj");
    expect(await selected(hamlet)).toBe(was);
    expect(await hash(hamlet)).toBe("#narrow/channel/1-Verona/topic/keys");
    await hamlet.locator(".search input").fill("");
    await hamlet.keyboard.press("Escape");
    expect(await focusIn(hamlet, ".search")).toBe(false);
  }, 20_000);

  it("goes to views with T, Shift+I, Shift+P, A, * and cycles channels with Shift+A / Shift+D", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message");
    await hamlet.keyboard.press("t");
    await expect.poll(() => hash(hamlet)).toBe("#recent");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Recent conversations");
    await hamlet.keyboard.press("Shift+I");
    await expect.poll(() => hash(hamlet)).toBe("#inbox");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Inbox");
    await hamlet.keyboard.press("Shift+P");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/is/dm");
    await hamlet.keyboard.press("a");
    await expect.poll(() => hash(hamlet)).toBe("#feed");
    await hamlet.keyboard.press("*");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/is/starred");

    // Hamlet's channels in the sidebar: core team, Denmark, Verona.
    await open(hamlet, "#narrow/channel/2-Denmark", ".message-list");
    await hamlet.keyboard.press("Shift+D");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/1-Verona");
    await hamlet.keyboard.press("Shift+D");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/6-core-team");
    await hamlet.keyboard.press("Shift+A");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/1-Verona");
  }, 30_000);

  it("focuses the search box with /, the channels with Q and the people with W; Esc leaves, then goes home", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message");
    await hamlet.keyboard.press("/");
    expect(await focusIn(hamlet, ".search")).toBe(true);
    await hamlet.keyboard.press("Escape");
    expect(await focusIn(hamlet, ".search")).toBe(false);
    await hamlet.keyboard.press("q");
    expect(await focusIn(hamlet, ".sidebar")).toBe(true);
    await hamlet.evaluate(() => (document.activeElement as HTMLElement).blur());
    await hamlet.keyboard.press("w");
    expect(await focusIn(hamlet, ".user-list")).toBe(true);
    await hamlet.evaluate(() => (document.activeElement as HTMLElement).blur());
    // Nothing open, no field: Esc goes to the home view (Zulip's default).
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hash(hamlet)).toBe("");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Inbox");
  }, 20_000);

  it("opens the next unread topic with N, the next unread direct message with P", async () => {
    expect((await call(hamlet, "POST", "/mark_all_as_read")).result).toBe("success");
    await open(hamlet, "#inbox", ".inbox");
    await send(othello, VERONA, "unread one", "An unread message in Verona");
    await send(othello, DENMARK, "unread two", "An unread message in Denmark");
    await call(othello, "POST", "/messages", { type: "direct", to: JSON.stringify([HAMLET_ID]), content: "Unread from Othello" });
    const iago = await web.signIn("Iago");
    await call(iago, "POST", "/messages", { type: "direct", to: JSON.stringify([HAMLET_ID]), content: "Unread from Iago" });
    await iago.context().close();
    await expect.poll(() => hamlet.locator(".inbox").textContent()).toContain("unread two");
    await expect.poll(() => hamlet.locator(".inbox").textContent()).toContain("Iago");

    // Sidebar order: Denmark before Verona.
    await hamlet.keyboard.press("n");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/2-Denmark/topic/unread.20two");
    await hamlet.waitForSelector(".message-list .message .content:has-text('An unread message in Denmark')");
    await hamlet.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await hamlet.keyboard.press("n");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/1-Verona/topic/unread.20one");
    // P: the newest unread direct message first (Iago's), then Othello's.
    await hamlet.keyboard.press("p");
    await expect.poll(() => hash(hamlet)).toBe(`#narrow/dm/${IAGO_ID}-Iago`);
    await hamlet.waitForSelector(".message-list .message .content:has-text('Unread from Iago')");
    await hamlet.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await hamlet.keyboard.press("p");
    await expect.poll(() => hash(hamlet)).toBe(`#narrow/dm/${OTHELLO_ID}-Othello,-the-Moor-of-Venice`);
  }, 40_000);

  /** Hamlet in the keys topic with its last message selected, nothing focused: that message's row. */
  async function atLastMessage() {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message .content:has-text('Keyboard message 40')");
    await hamlet.keyboard.press("End");
    await expect.poll(() => selected(hamlet)).toBe(ids[39]);
    return hamlet.locator(".message-list .message.selected");
  }
  const blur = () => hamlet.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

  it("stars and unstars the selected message with Ctrl+S", async () => {
    const row = await atLastMessage();
    await hamlet.keyboard.press("Control+s");
    await expect.poll(() => row.locator(".star").count()).toBe(1);
    await hamlet.keyboard.press("Control+s");
    await expect.poll(() => row.locator(".star").count()).toBe(0);
  }, 40_000);

  it("reacts to the selected message with +, and = toggles its first reaction", async () => {
    const row = await atLastMessage();
    await hamlet.keyboard.press("+");
    await expect.poll(() => row.locator(".reaction.mine").count()).toBe(1);
    expect(await row.locator(".reaction.mine").textContent()).toContain("👍");
    // = toggles the first reaction: Hamlet's 👍 goes.
    await hamlet.keyboard.press("=");
    await expect.poll(() => row.locator(".reaction").count()).toBe(0);
  }, 40_000);

  it("opens the emoji picker with : and the actions menu with I, and Esc closes them", async () => {
    await atLastMessage();
    await hamlet.keyboard.press(":");
    await expect.poll(() => hamlet.locator(".emoji-picker").isVisible()).toBe(true);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.locator(".emoji-picker").count()).toBe(0);

    // I: the actions menu, its first action focused; Esc closes it, the view stays.
    await hamlet.keyboard.press("i");
    await expect.poll(() => focusIn(hamlet, ".message.selected .menu, [role=menu]")).toBe(true);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => focusIn(hamlet, ".message.selected .menu, [role=menu]")).toBe(false);
    expect(await hash(hamlet)).toBe("#narrow/channel/1-Verona/topic/keys");
  }, 40_000);

  it("opens the sender's card with U and the move dialog with M, and Shift+M mutes and unmutes the topic", async () => {
    await atLastMessage();
    await hamlet.keyboard.press("u");
    await expect.poll(() => hamlet.locator(".user-card").textContent()).toContain("Othello, the Moor of Venice");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.locator(".user-card").count()).toBe(0);
    await blur();
    await hamlet.keyboard.press("m");
    await expect.poll(() => hamlet.locator(".topic-dialog").isVisible()).toBe(true);
    await hamlet.locator(".topic-dialog").press("Escape");
    await expect.poll(() => hamlet.locator(".topic-dialog").count()).toBe(0);
    expect(await hash(hamlet)).toBe("#narrow/channel/1-Verona/topic/keys");
    await blur();
    const topicItem = hamlet.locator(".sidebar li[data-topic='keys']");
    await hamlet.keyboard.press("Shift+M");
    await expect.poll(() => topicItem.getAttribute("class")).toContain("muted");
    await hamlet.keyboard.press("Shift+M");
    await expect.poll(() => topicItem.getAttribute("class")).not.toContain("muted");
  }, 40_000);

  it("closes the move dialog with an Esc pressed the moment it appears", async () => {
    await atLastMessage();
    // The Esc goes in from inside the page, as soon as the dialog is in the DOM (before any paint),
    // where a person's fast Esc or a slow machine can land it.
    const after = await hamlet.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const observer = new MutationObserver(() => {
            const dialog = document.querySelector<HTMLElement>(".topic-dialog");
            if (!dialog) return;
            observer.disconnect();
            dialog.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
            setTimeout(() => resolve(document.querySelector(".topic-dialog") ? "open" : "closed"), 300);
          });
          observer.observe(document.body, { childList: true, subtree: true });
          document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "m", bubbles: true }));
        }),
    );
    expect(after).toBe("closed");
    expect(await hash(hamlet)).toBe("#narrow/channel/1-Verona/topic/keys");
  }, 40_000);

  it("marks unread from the selected message with Shift+U, and shows its read receipts (Shift+V) and edit history (Shift+H)", async () => {
    await atLastMessage();
    // Shift+U: unread from the selected message on.
    await hamlet.keyboard.press("k");
    await hamlet.keyboard.press("Shift+U");
    await expect.poll(() => hamlet.locator(".message-list .message[data-unread]").count()).toBe(2);

    // Shift+V: who has read the selected message; Shift+H: its edit history, once it was edited.
    await hamlet.keyboard.press("Shift+V");
    await expect.poll(() => hamlet.locator("dialog.read-receipts-dialog[open]").count()).toBe(1);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.locator("dialog.read-receipts-dialog").count()).toBe(0);
    const selectedNow = await selected(hamlet);
    await call(othello, "PATCH", `/messages/${selectedNow}`, { content: "Othello's line, edited" });
    await expect.poll(() => hamlet.locator(`.message[data-id="${selectedNow}"] .edited`).count()).toBe(1);
    await hamlet.keyboard.press("Shift+H");
    await expect.poll(() => hamlet.locator("dialog.edit-history-dialog[open]").count()).toBe(1);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.locator("dialog.edit-history-dialog").count()).toBe(0);
  }, 40_000);

  it("shows the selected message in its conversation's context with Z, and goes from a topic to its channel with S", async () => {
    await atLastMessage();
    await hamlet.keyboard.press("k");
    await expect.poll(() => selected(hamlet)).toBe(ids[38]);
    await hamlet.keyboard.press("z");
    await expect.poll(() => hash(hamlet)).toBe(`#narrow/channel/1-Verona/topic/keys/near/${ids[38]}`);
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message");
    await hamlet.keyboard.press("End");
    await hamlet.keyboard.press("s");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/1-Verona");
  }, 40_000);

  it("opens compose with C, X, R and Shift+R, and edits the last message with E, ← or ↑ in an empty compose box", async () => {
    const mine = await send(hamlet, VERONA, "keys", "Hamlet's own line");
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", '.message-list .message .content:has-text("Hamlet\'s own line")');
    await hamlet.keyboard.press("c");
    await expect.poll(() => focusIn(hamlet, ".compose")).toBe(true);
    // C starts a new topic: the topic field's suggestions are open, and take the first Esc (as Zulip's).
    await expect.poll(() => hamlet.locator(".compose-typeahead.for-topic").count()).toBe(1);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.locator(".compose-typeahead").count()).toBe(0);
    expect(await focusIn(hamlet, ".compose")).toBe(true);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => focusIn(hamlet, ".compose")).toBe(false);
    await hamlet.keyboard.press("x");
    await expect.poll(() => focusIn(hamlet, ".compose")).toBe(true);
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.locator(".compose-open").count()).toBe(0);

    // Shift+R on Othello's message: a direct message to Othello.
    await hamlet.keyboard.press("End");
    await hamlet.keyboard.press("k");
    await expect.poll(() => selected(hamlet)).toBe(ids[39]);
    await hamlet.keyboard.press("Shift+R");
    await expect.poll(() => focusIn(hamlet, ".compose")).toBe(true);
    await expect.poll(() => hamlet.locator(".compose").textContent()).toContain("Othello, the Moor of Venice");
    await hamlet.keyboard.press("Escape");
    await hamlet.keyboard.press("r");
    await expect.poll(() => focusIn(hamlet, ".compose textarea")).toBe(true);

    // ↑ in the empty compose box: Hamlet's last message opens for editing.
    await hamlet.keyboard.press("ArrowUp");
    const edit = hamlet.locator(`.message[data-id="${mine}"] form.edit textarea`);
    await expect.poll(() => edit.inputValue()).toBe("Hamlet's own line");
    // Esc in the edit box cancels the edit.
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => edit.count()).toBe(0);
    // ← in the message view does the same; E edits the selected message.
    await hamlet.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await hamlet.keyboard.press("ArrowLeft");
    await expect.poll(() => edit.inputValue()).toBe("Hamlet's own line");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => edit.count()).toBe(0);
    expect(await selected(hamlet)).toBe(mine);
    await hamlet.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await hamlet.keyboard.press("e");
    await expect.poll(() => edit.inputValue()).toBe("Hamlet's own line");
    await hamlet.keyboard.press("Escape");
  }, 40_000);

  it("lists every shortcut under ?, grouped as Zulip's list", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message");
    await hamlet.keyboard.press("?");
    const dialog = hamlet.locator(".shortcuts");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.locator("caption").allTextContents()).toEqual([
      "The basics",
      "Search",
      "Scrolling",
      "Navigation",
      "Composing messages",
      "Message actions",
      "Menus",
    ]);
    const text = await dialog.textContent();
    for (const what of [
      "Next unread direct message",
      "Go to inbox",
      "Go to recent conversations",
      "Go to direct message feed",
      "Filter channels",
      "Filter users",
      "Star message",
      "Toggle message actions menu",
      "Toggle emoji reactions menu",
      "Mark as unread from selected message",
      "First message",
      "Scroll up",
      "Previous / next conversation in the inbox or recent conversations",
    ])
      expect(text).toContain(what);
    for (const [scheme, name] of !shots
      ? []
      : ([
          ["light", "keyboard-shortcuts-1280-light.png"],
          ["dark", "keyboard-shortcuts-1280-dark.png"],
        ] as const)) {
      await hamlet.emulateMedia({ colorScheme: scheme });
      await hamlet.screenshot({ path: `${shots}/${name}` });
    }
    await hamlet.emulateMedia({ colorScheme: "light" });
    // On a phone the list fits the screen's width and scrolls within the screen's height.
    await hamlet.setViewportSize({ width: 390, height: 800 });
    const box = (await dialog.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    if (shots) await hamlet.screenshot({ path: `${shots}/keyboard-shortcuts-phone-light.png` });
    await hamlet.setViewportSize({ width: 1280, height: 800 });
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    // That Esc closed the list only.
    expect(await hash(hamlet)).toBe("#narrow/channel/1-Verona/topic/keys");
  }, 30_000);

  it("lets Tab leave the search box; arrows and Enter choose a suggestion; Enter opens a result's conversation", async () => {
    await open(hamlet, "#narrow/channel/1-Verona/topic/keys", ".message-list .message");
    const box = hamlet.locator(".search input");
    await box.fill("");
    await box.pressSequentially("cha");
    await expect.poll(() => hamlet.locator(".suggestions li .query").allTextContents()).toEqual(["cha", "channel:"]);
    await hamlet.keyboard.press("Tab");
    expect(await focusIn(hamlet, ".search input")).toBe(false);
    expect(await box.inputValue()).toBe("cha");
    await hamlet.keyboard.press("Shift+Tab");
    expect(await focusIn(hamlet, ".search input")).toBe(true);
    await box.fill("");
    await box.pressSequentially("channel:den");
    await expect.poll(() => hamlet.locator(".suggestions li .query").allTextContents()).toEqual(["channel:Denmark"]);
    await box.press("Enter");
    await expect.poll(() => hash(hamlet)).toBe("#narrow/channel/2-Denmark");

    // Enter on a search result opens its conversation around it (in a conversation it replies).
    await open(hamlet, "#narrow/search/Keyboard", ".message-list .message .content:has-text('Keyboard message 40')");
    await hamlet.keyboard.press("End");
    await expect.poll(() => selected(hamlet)).toBe(ids[39]);
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => hash(hamlet)).toBe(`#narrow/channel/1-Verona/topic/keys/near/${ids[39]}`);
  }, 20_000);
});
