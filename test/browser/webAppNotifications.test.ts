import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// Desktop notifications, the unread count in the tab title and Zulip's desktop app, the Inbox
// and Recent conversations filters, and settings that change what messages look like (muted
// users, alert words, emoji set), in a real Chromium. Notifications are real (permission
// granted); an init script records every `new Notification(...)` and plays Zulip's desktop
// app (window.electron_bridge) to record what the page tells it.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
let iago: Page;
const HAMLET_ID = 10;
const IAGO_ID = 11;
const OTHELLO_ID = 12;
const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const shots = process.env.PARLEY_SCREENSHOTS;

/** What the init script records in the page. */
function recorder(): void {
  const w = window as any;
  w.notifications = [];
  const Real = window.Notification;
  window.Notification = new Proxy(Real, {
    construct(target, args: [string, NotificationOptions?]) {
      const notification = new target(...args);
      w.notifications.push({ title: args[0], body: args[1]?.body ?? "", object: notification });
      return notification;
    },
  });
  w.chimes = 0;
  const createOscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function (this: AudioContext) {
    w.chimes++;
    return createOscillator.call(this);
  };
  w.bridgeCalls = [];
  w.bridgeListeners = {};
  w.electron_bridge = {
    send_event: (name: string, ...args: unknown[]) => (w.bridgeCalls.push([name, ...args]), true),
    on_event: (name: string, listener: unknown) => (w.bridgeListeners[name] = listener),
    set_send_notification_reply_message_supported: (value: boolean) => w.bridgeCalls.push(["reply_supported", value]),
  };
}

/** Signs in with notifications allowed (or not) and the recorder installed. */
async function signInRecorded(name: string, options: { grant: boolean; viewport?: { width: number; height: number } }): Promise<Page> {
  const context = await web.browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } });
  if (options.grant) await context.grantPermissions(["notifications"], { origin: web.server.baseUrl });
  await context.addInitScript(recorder);
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error(`${name}'s page:`, error));
  await page.goto(`${web.server.baseUrl}/devlogin/`);
  await page.click(`button:has-text('${name}')`);
  await page.waitForSelector(".sidebar .channels", { state: "attached" });
  return page;
}

const notificationTitles = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).notifications.map((n: any) => n.title));
const notificationBodies = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).notifications.map((n: any) => n.body));
const unreadCountsSent = (page: Page): Promise<number[]> =>
  page.evaluate(() => (window as any).bridgeCalls.filter((c: any[]) => c[0] === "total_unread_count").map((c: any[]) => c[1]));

async function send(page: Page, to: number | number[], content: string, topic?: string): Promise<number> {
  const params: Record<string, string> =
    typeof to === "number" ? { type: "stream", to: String(to), topic: topic ?? "notify", content } : { type: "direct", to: JSON.stringify(to), content };
  const result = await call(page, "POST", "/messages", params);
  expect(result.result).toBe("success");
  return result.id;
}

/** A DM from Othello that must notify: once it has, anything sent before it has been decided on. */
async function marker(text: string): Promise<void> {
  await send(othello, [HAMLET_ID], text);
  await expect.poll(() => notificationBodies(hamlet)).toContain(text);
}

/** The count in the title: "(N) …", 0 without one. */
async function titleCount(page: Page): Promise<number> {
  const match = /^\((\d+)\) /.exec(await page.title());
  return match ? Number(match[1]) : 0;
}

async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
}

describe.skipIf(!chromiumFound)("notifications, unread counts, view filters and message settings in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await signInRecorded("King Hamlet", { grant: true });
    othello = await signInRecorded("Othello, the Moor of Venice", { grant: false });
    iago = await signInRecorded("Iago", { grant: false });
    await goTo(hamlet, "#inbox");
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("asks for permission in a banner until allowed or told never to ask", async () => {
    await expect.poll(() => hamlet.locator(".notification-banner").count()).toBe(0);
    const banner = othello.locator(".notification-banner");
    expect(await banner.textContent()).toContain("Parley needs your permission to enable desktop notifications.");
    await banner.locator("button", { hasText: "Never ask on this computer" }).click();
    await expect.poll(() => banner.count()).toBe(0);
    await othello.reload();
    await othello.waitForSelector(".sidebar .channels", { state: "attached" });
    await expect.poll(() => othello.locator(".notification-banner").count()).toBe(0);
  });

  it("notifies of a direct message and a mention, not of a plain channel message, and opens the conversation on click", async () => {
    await send(othello, VERONA, "Just chatting", "notify");
    const dmId = await send(othello, [HAMLET_ID], "Are you there, my lord?");
    await expect.poll(() => notificationTitles(hamlet)).toContain("Othello, the Moor of Venice (to you)");
    await send(othello, VERONA, "@**King Hamlet** come to the ramparts", "notify");
    await expect.poll(() => notificationTitles(hamlet)).toContain("Othello, the Moor of Venice (#Verona > notify)");
    const bodies = await notificationBodies(hamlet);
    // Each notification chimed (two tones each): none for the plain channel message.
    expect(await hamlet.evaluate(() => (window as any).chimes)).toBe(4);
    expect(bodies).toContain("Are you there, my lord?");
    expect(bodies).toContain("@King Hamlet come to the ramparts");
    expect(bodies).not.toContain("Just chatting");

    // A click focuses the window and opens the conversation around the message.
    await hamlet.evaluate(() => (window as any).notifications.find((n: any) => n.title.endsWith("(to you)")).object.dispatchEvent(new Event("click")));
    await expect.poll(() => hamlet.evaluate(() => location.hash)).toBe(`#narrow/dm/${OTHELLO_ID}-Othello,-the-Moor-of-Venice/near/${dmId}`);
    await hamlet.waitForSelector(`.message[data-id='${dmId}']`);
    await goTo(hamlet, "#inbox");
  });

  it("stays silent for a muted channel and for own messages", async () => {
    await call(hamlet, "POST", "/users/me/subscriptions/properties", {
      subscription_data: JSON.stringify([{ stream_id: DENMARK, property: "is_muted", value: true }]),
    });
    await expect.poll(() => hamlet.locator(".sidebar [data-channel-id='2']").getAttribute("class")).toContain("muted");
    // A wildcard mention notifies in Verona, not in muted Denmark.
    await send(othello, DENMARK, "@**all** the castle is quiet", "Castle");
    await send(othello, VERONA, "@**all** lunch is served", "notify");
    await send(hamlet, [OTHELLO_ID], "My own words");
    await marker("After the muted channel");
    const bodies = await notificationBodies(hamlet);
    expect(bodies).toContain("@all lunch is served");
    expect(bodies).not.toContain("@all the castle is quiet");
    expect(bodies).not.toContain("My own words");

    // notification_sound "none": notifications without the chime.
    await call(hamlet, "PATCH", "/settings", { notification_sound: "none" });
    const chimes = await hamlet.evaluate(() => (window as any).chimes);
    await marker("Silent marker");
    expect(await hamlet.evaluate(() => (window as any).chimes)).toBe(chimes);
    await call(hamlet, "PATCH", "/settings", { notification_sound: "zulip" });
    await marker("Loud marker");
    expect(await hamlet.evaluate(() => (window as any).chimes)).toBe(chimes + 2);
  });

  it("keeps the title, the favicon and the desktop app's count live, and tells the app the organization's name", async () => {
    await goTo(hamlet, "#inbox");
    await expect.poll(() => hamlet.title()).toMatch(/^\(\d+\) Inbox - .+ - Parley$/);
    const before = await titleCount(hamlet);
    expect(before).toBeGreaterThan(0);
    expect((await unreadCountsSent(hamlet)).at(-1)).toBe(before);
    expect(await hamlet.locator("link[rel=icon]").getAttribute("data-count")).toBe(String(before));
    expect(await hamlet.locator("link[rel=icon]").getAttribute("href")).toMatch(/^data:image\/png/);
    const calls: any[][] = await hamlet.evaluate(() => (window as any).bridgeCalls);
    expect(calls.some((c) => c[0] === "realm_name" && typeof c[1] === "string" && c[1].length > 0)).toBe(true);
    expect(calls).toContainEqual(["reply_supported", true]);
    expect(calls.some((c) => c[0] === "realm_icon_url" && /^https?:\/\//.test(c[1]))).toBe(true);
    // A new organization name reaches the title and the desktop app live.
    const realmName = await hamlet.evaluate(() => (window as any).bridgeCalls.findLast((c: any[]) => c[0] === "realm_name")[1]);
    expect((await call(iago, "PATCH", "/realm", { name: "Elsinore" })).result).toBe("success");
    await expect.poll(() => hamlet.title()).toBe(`(${before}) Inbox - Elsinore - Parley`);
    expect(await hamlet.evaluate(() => (window as any).bridgeCalls.findLast((c: any[]) => c[0] === "realm_name")[1])).toBe("Elsinore");
    await call(iago, "PATCH", "/realm", { name: realmName });

    await send(othello, [HAMLET_ID], "One more unread");
    await expect.poll(() => titleCount(hamlet)).toBe(before + 1);
    await expect.poll(async () => (await unreadCountsSent(hamlet)).at(-1)).toBe(before + 1);
    expect(await hamlet.locator("link[rel=icon]").getAttribute("data-count")).toBe(String(before + 1));
    // A message in the muted channel does not count in "all unread messages".
    await send(othello, DENMARK, "Muted noise", "Castle");
    await marker("After the muted noise");
    expect(await titleCount(hamlet)).toBe(before + 2);

    // "DMs and mentions" counts fewer; "None" shows no count.
    await call(hamlet, "PATCH", "/settings", { desktop_icon_count_display: "4" });
    await expect.poll(() => hamlet.title()).toMatch(/^Inbox - .+ - Parley$/);
    await expect.poll(async () => (await unreadCountsSent(hamlet)).at(-1)).toBe(0);
    await call(hamlet, "PATCH", "/settings", { desktop_icon_count_display: "1" });
    await expect.poll(() => titleCount(hamlet)).toBe(before + 2);

    // The desktop app's menu opens the notification settings; a notification reply is sent.
    await hamlet.evaluate(() => (window as any).bridgeListeners["show-notification-settings"]());
    await expect.poll(() => hamlet.evaluate(() => location.hash)).toBe("#settings/notifications");
    await goTo(hamlet, "#inbox");
    const asked = await send(othello, [HAMLET_ID], "Reply from the notification, please");
    await expect.poll(() => notificationBodies(hamlet)).toContain("Reply from the notification, please");
    await hamlet.evaluate((id) => (window as any).bridgeListeners["send_notification_reply_message"](id, "Replied from the desktop app"), asked);
    await expect
      .poll(async () => (await call(othello, "GET", "/messages", { anchor: "newest", num_before: "1", num_after: "0" })).messages[0]?.content)
      .toContain("Replied from the desktop app");
  });

  it("shows notifications through the desktop app's new_notification when it has one", async () => {
    await iago.evaluate(() => {
      const w = window as any;
      w.appNotifications = [];
      w.electron_bridge.new_notification = (title: string, options: NotificationOptions, dispatch: (type: string, init: EventInit) => boolean) => {
        w.appNotifications.push({ title, body: options.body, dispatch });
        return { close: () => {} };
      };
    });
    await goTo(iago, "#inbox");
    const id = await send(othello, [IAGO_ID], "Through the desktop app");
    const appTitles = () => iago.evaluate(() => (window as any).appNotifications.map((n: any) => n.title));
    await expect.poll(appTitles).toEqual(["Othello, the Moor of Venice (to you)"]);
    // The page's permission was never granted: no browser notification.
    expect(await notificationTitles(iago)).toEqual([]);
    await iago.evaluate(() => (window as any).appNotifications[0].dispatch("click", {}));
    await expect.poll(() => iago.evaluate(() => location.hash)).toBe(`#narrow/dm/${OTHELLO_ID}-Othello,-the-Moor-of-Venice/near/${id}`);
  });

  it("hides a muted user's messages behind a click, without a notification, and hides their typing", async () => {
    await goTo(hamlet, `#narrow/dm/${IAGO_ID}-Iago`);
    await call(iago, "POST", "/typing", { op: "start", to: JSON.stringify([HAMLET_ID]) });
    await expect.poll(() => hamlet.locator(".compose .typing").textContent()).toContain("Iago is typing");
    await call(iago, "POST", "/typing", { op: "stop", to: JSON.stringify([HAMLET_ID]) });

    await call(hamlet, "POST", `/users/me/muted_users/${IAGO_ID}`);
    const hiddenId = await send(iago, [HAMLET_ID], "A whisper from Iago");
    await goTo(hamlet, "#inbox");
    await marker("After the muted user");
    expect(await notificationBodies(hamlet)).not.toContain("A whisper from Iago");
    await expect.poll(() => hamlet.locator(`.inbox [data-folder='dm'] li[data-key='dm:${IAGO_ID}']`).count()).toBe(0);

    await goTo(hamlet, `#narrow/dm/${IAGO_ID}-Iago`);
    const row = hamlet.locator(`.message[data-id='${hiddenId}']`);
    await expect.poll(() => row.textContent()).toContain("Message from a muted user");
    expect(await row.textContent()).not.toContain("A whisper from Iago");
    expect(await row.locator(".sender .name").textContent()).toBe("Muted user");
    await call(iago, "POST", "/typing", { op: "start", to: JSON.stringify([HAMLET_ID]) });
    await hamlet.waitForTimeout(500);
    await expect.poll(() => hamlet.locator(".compose .typing").count()).toBe(0);
    if (shots) await hamlet.screenshot({ path: `${shots}/muted-user-message.png` });
    await row.locator("button.reveal-muted").click();
    await expect.poll(() => row.locator(".content").textContent()).toContain("A whisper from Iago");
    await call(hamlet, "DELETE", `/users/me/muted_users/${IAGO_ID}`);
  });

  it("highlights alert words, which notify as mentions do", async () => {
    await call(hamlet, "POST", "/users/me/alert_words", { alert_words: JSON.stringify(["pomegranate"]) });
    await goTo(hamlet, "#inbox");
    const id = await send(othello, VERONA, "A Pomegranate tree by the window", "orchard");
    await expect.poll(() => notificationBodies(hamlet)).toContain("A Pomegranate tree by the window");
    await goTo(hamlet, "#narrow/channel/1-Verona/topic/orchard");
    const row = hamlet.locator(`.message[data-id='${id}']`);
    await expect.poll(() => row.getAttribute("class")).toContain("alerted");
    expect(await row.locator(".content .alert-word").textContent()).toBe("Pomegranate");
    await expect.poll(() => hamlet.locator(".message.alerted").count()).toBe(1);
    if (shots) await hamlet.screenshot({ path: `${shots}/alert-word.png` });
  });

  it("shows emoji as :name: text with the text emoji set, and as glyphs otherwise", async () => {
    const id = await send(othello, VERONA, "Well done :tada:", "emoji");
    await call(othello, "POST", `/messages/${id}/reactions`, { emoji_name: "heart" });
    await goTo(hamlet, "#narrow/channel/1-Verona/topic/emoji");
    const row = hamlet.locator(`.message[data-id='${id}']`);
    await expect.poll(() => row.locator(".content span.emoji").textContent()).toBe("🎉");
    await expect.poll(() => row.locator(".reaction").textContent()).toContain("❤");
    await call(hamlet, "PATCH", "/settings", { emojiset: "text" });
    await expect.poll(() => row.locator(".content span.emoji").textContent()).toBe(":tada:");
    await expect.poll(() => row.locator(".reaction").textContent()).toContain(":heart:");
    await call(hamlet, "PATCH", "/settings", { emojiset: "google" });
    await expect.poll(() => row.locator(".content span.emoji").textContent()).toBe("🎉");
  });

  it("counts starred messages in the sidebar while starred_message_counts is on", async () => {
    const starred = hamlet.locator(".sidebar .views li", { hasText: "Starred messages" }).locator(".count");
    // The count shown, 0 when none is (without waiting for the element to appear).
    const shown = async () => Number((await starred.count()) ? await starred.textContent() : 0);
    const before = await shown();
    const id = await send(othello, VERONA, "Worth a star", "stars");
    await call(hamlet, "POST", "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" });
    await expect.poll(shown).toBe(before + 1);
    await call(hamlet, "PATCH", "/settings", { starred_message_counts: "false" });
    await expect.poll(() => starred.count()).toBe(0);
    await call(hamlet, "PATCH", "/settings", { starred_message_counts: "true" });
    await expect.poll(shown).toBe(before + 1);
    await call(hamlet, "POST", "/messages/flags", { messages: JSON.stringify([id]), op: "remove", flag: "starred" });
    await expect.poll(shown).toBe(before);
  }, 40_000);

  it("filters the Inbox by text and by view (unmuted, all, followed), with folders that fold, kept across reloads", async () => {
    await send(othello, VERONA, "About alpha", "alpha notes");
    await send(othello, VERONA, "About beta", "beta plans");
    await call(hamlet, "POST", "/user_topics", { stream_id: String(VERONA), topic: "beta plans", visibility_policy: "3" });
    await goTo(hamlet, "#inbox");
    const folder = (key: string) => hamlet.locator(`.inbox [data-folder='${key}']`);
    const topics = (key: string) => folder(key).locator("li .name").allTextContents();
    await expect.poll(() => topics("channel:1")).toEqual(expect.arrayContaining(["alpha notes", "beta plans"]));
    await expect.poll(() => folder("dm").count()).toBe(1);
    // Denmark is muted: not in the default view.
    await expect.poll(() => folder("channel:2").count()).toBe(0);

    await hamlet.fill(".inbox .filter-search", "alpha");
    await expect.poll(() => topics("channel:1")).toEqual(["alpha notes"]);
    await expect.poll(() => folder("dm").count()).toBe(0);
    if (shots) await hamlet.screenshot({ path: `${shots}/inbox-filters-light.png` });
    await hamlet.fill(".inbox .filter-search", "");

    await hamlet.selectOption(".inbox select[aria-label='Inbox view']", "all");
    await expect.poll(() => folder("channel:2").count()).toBe(1);
    await hamlet.selectOption(".inbox select[aria-label='Inbox view']", "followed");
    await expect.poll(() => topics("channel:1")).toEqual(["beta plans"]);
    await expect.poll(() => folder("dm").count()).toBe(0);
    await expect.poll(() => folder("channel:2").count()).toBe(0);
    await hamlet.reload();
    await hamlet.waitForSelector(".inbox");
    await expect.poll(() => hamlet.locator(".inbox select[aria-label='Inbox view']").inputValue()).toBe("followed");
    await hamlet.selectOption(".inbox select[aria-label='Inbox view']", "unmuted");

    await folder("channel:1").locator("button.fold").click();
    await expect.poll(() => folder("channel:1").locator("li").count()).toBe(0);
    expect(await folder("channel:1").locator(".folder-head .count").textContent()).toMatch(/^\d+$/);
    await hamlet.reload();
    await hamlet.waitForSelector(".inbox [data-folder='channel:1']");
    await expect.poll(() => folder("channel:1").locator("li").count()).toBe(0);
    await folder("channel:1").locator("button.fold").click();
    await expect.poll(() => folder("channel:1").locator("li").count()).toBeGreaterThan(1);
  });

  it("filters Recent conversations: unread, participated, DMs, muted, and by text", async () => {
    await goTo(hamlet, "#recent");
    const rows = hamlet.locator(".recent tbody tr");
    const keys = () => rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.key!));
    await expect.poll(keys).toContain("c:1:alpha notes");
    const all = await keys();
    // Muted Denmark is left out until asked for; DMs are in.
    expect(all).not.toContain("c:2:castle");
    expect(all).toContain(`dm:${OTHELLO_ID}`);
    const button = (name: string) => hamlet.locator(`.recent .filter-button[data-filter='${name}']`);

    await button("includeMuted").click();
    await expect.poll(keys).toContain("c:2:castle");
    await button("includeDms").click();
    await expect.poll(async () => (await keys()).some((k) => k.startsWith("dm:"))).toBe(false);
    await hamlet.fill(".recent .filter-search", "alpha");
    await expect.poll(keys).toEqual(["c:1:alpha notes"]);
    if (shots) await hamlet.screenshot({ path: `${shots}/recent-filters-light.png` });
    await hamlet.fill(".recent .filter-search", "");

    // Participated: Hamlet wrote in Verona's "test" (development data), not in "alpha notes".
    await button("participated").click();
    await expect.poll(keys).toContain("c:1:test");
    expect(await keys()).not.toContain("c:1:alpha notes");
    await button("participated").click();
    // Unread only: "alpha notes" is unread, "emoji" was read.
    await button("unreadOnly").click();
    await expect.poll(keys).toContain("c:1:alpha notes");
    expect(await keys()).not.toContain("c:1:emoji");
    // Kept across a reload.
    await hamlet.reload();
    await hamlet.waitForSelector(".recent tbody tr");
    expect(await button("unreadOnly").getAttribute("aria-pressed")).toBe("true");
    expect(await button("includeDms").getAttribute("aria-pressed")).toBe("false");
    for (const name of ["unreadOnly", "includeDms", "includeMuted"]) await button(name).click();
  });

  it("looks right in dark theme and at 360 px", async () => {
    if (!shots) return;
    const phone = await signInRecorded("King Hamlet", { grant: false, viewport: { width: 360, height: 740 } });
    await call(phone, "PATCH", "/settings", { color_scheme: "2" });
    await goTo(phone, "#inbox");
    await phone.waitForSelector(".inbox .inbox-folder");
    await phone.screenshot({ path: `${shots}/inbox-filters-dark-360.png` });
    await goTo(phone, "#recent");
    await phone.waitForSelector(".recent tbody tr");
    await phone.screenshot({ path: `${shots}/recent-filters-dark-360.png` });
    await hamlet.setViewportSize({ width: 1280, height: 800 });
    await goTo(hamlet, "#inbox");
    await hamlet.waitForSelector(".inbox .inbox-folder");
    await hamlet.screenshot({ path: `${shots}/inbox-filters-dark.png` });
    await call(phone, "PATCH", "/settings", { color_scheme: "1" });
  });
});
