import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp, openCompose } from "../support/webApp.js";
import { type SmtpSink, startSmtpSink } from "../support/smtpSink.js";
import { seedChannels } from "../support/seed.js";
import { basicAuth } from "../support/auth.js";

// Personal settings (#settings/<section>), user cards and invitations (#invite) in a real
// Chromium: what a person changes in settings reaches the server through Zulip's API, and the
// others see it live; an invited person signs up through the emailed link and chats.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
let smtp: SmtpSink;
const HAMLET_ID = 10;
const OTHELLO_ID = 12;
const IAGO_ID = 11;
const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const shots = process.env.PARLEY_SCREENSHOTS;

/** The settings as the server has them now (a fresh /register). */
async function serverSettings(page: Page): Promise<Record<string, any>> {
  const state = await call(page, "POST", "/register", { fetch_event_types: JSON.stringify(["user_settings"]) });
  return state.user_settings;
}

async function openSettings(page: Page, section: string): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), `#settings/${section}`);
  await page.waitForSelector(`.settings-section[data-section='${section}']`);
}

const saved = (page: Page) => page.locator(".settings .saved").textContent();
const card = (page: Page) => page.locator(".user-card");

describe.skipIf(!chromiumFound)("personal settings and user cards in Chromium", () => {
  beforeAll(async () => {
    smtp = await startSmtpSink();
    await web.setUp({
      PARLEY_SMTP_URL: smtp.url,
    });
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
    await smtp?.close();
  });

  it("shows a sender's card with presence, local time, role and custom profile fields, and starts a DM from it", async () => {
    await call(hamlet, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "cards", content: "Who am I?" });
    await othello.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/cards`);
    const sender = othello.locator(".message .sender .name", { hasText: "King Hamlet" }).first();
    await sender.click();
    await expect.poll(() => card(othello).getAttribute("data-user-id")).toBe(String(HAMLET_ID));
    expect(await card(othello).locator(".card-name").textContent()).toContain("King Hamlet");
    expect(await card(othello).locator(".card-role").textContent()).toBe("Member");
    expect(await card(othello).locator(".card-email").textContent()).toBe("hamlet@zulip.com");
    // Hamlet is signed in: active. His time zone is UTC.
    await expect.poll(() => card(othello).locator(".card-presence").textContent()).toBe("Active now");
    const utcNow = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", hour12: true, timeZone: "UTC" });
    expect([utcNow.format(new Date()), utcNow.format(new Date(Date.now() - 60_000))]).toContain(await card(othello).locator(".card-time").textContent());
    // Custom profile fields by their types: text, a choice, a person, a link, Markdown.
    const field = (name: string) => card(othello).locator("dt", { hasText: name }).locator("xpath=following-sibling::dd[1]");
    expect(await field("Phone number").textContent()).toBe("+0-11-23-456-7890");
    expect(await field("Favorite editor").textContent()).toBe("Vim");
    expect(await field("Mentor").textContent()).toBe("Iago");
    expect(await field("Favorite website").locator("a").getAttribute("href")).toBe("https://blog.zulig.org");
    // Long text comes rendered by the server (its rendered_value): Hamlet's biography is a paragraph and a list.
    expect(await field("Biography").locator(".rendered_markdown p").textContent()).toBe("I am:");
    expect(await field("Biography").locator(".rendered_markdown ul li").allTextContents()).toEqual([
      "The prince of Denmark",
      "Nephew to the usurping Claudius",
    ]);
    if (shots) await othello.screenshot({ path: `${shots}/user-card.png` });

    await card(othello).locator("button", { hasText: "Send direct message" }).click();
    await expect.poll(() => othello.evaluate(() => location.hash)).toBe(`#narrow/dm/${HAMLET_ID}-King-Hamlet`);
    await expect.poll(() => card(othello).count()).toBe(0);
    await openCompose(othello);
    await othello.fill(".compose textarea", "Sent from your card");
    await othello.press(".compose textarea", "Control+Enter");
    await expect
      .poll(async () => (await call(hamlet, "GET", "/messages", { anchor: "newest", num_before: "1", num_after: "0" })).messages[0]?.content)
      .toContain("Sent from your card");

    // An entry of the people list opens a card too: Iago, an administrator, not signed in.
    await othello.locator(`.user-list li[data-user-id='${IAGO_ID}'] a`).click();
    await expect.poll(() => card(othello).getAttribute("data-user-id")).toBe(String(IAGO_ID));
    expect(await card(othello).locator(".card-role").textContent()).toBe("Administrator");
    expect(await card(othello).locator(".card-presence").textContent()).toBe("Offline");
    await othello.keyboard.press("Escape");
    await expect.poll(() => card(othello).count()).toBe(0);
  }, 40_000);

  it("changes name, time zone and status in #settings/profile, loaded as a chunk of its own; others see them live", async () => {
    const settingsChunks = () => hamlet.evaluate(() => performance.getEntriesByType("resource").filter((e) => /\/Settings-/.test(e.name)).length);
    expect(await settingsChunks()).toBe(0);
    await hamlet.click("a[aria-label='Personal settings']");
    await hamlet.waitForSelector(".settings-section[data-section='profile']");
    expect(await hamlet.evaluate(() => location.hash)).toBe("#settings/profile");
    expect(await settingsChunks()).toBeGreaterThan(0);

    await hamlet.fill("input[name=full_name]", "Prince Hamlet");
    await hamlet.click("button:has-text('Save name')");
    await expect.poll(() => saved(hamlet)).toBe("Saved");
    await expect.poll(() => othello.locator(`.user-list li[data-user-id='${HAMLET_ID}'] .name`).textContent()).toBe("Prince Hamlet");

    await hamlet.selectOption("select[name=timezone]", "America/New_York");
    await expect.poll(() => saved(hamlet)).toBe("Saved");

    await hamlet.fill("input[name=status_text]", "In a meeting");
    // The emoji data is a chunk of its own: Enter pressed while it loads picks the first match once it is here.
    await hamlet.route(/\/emojiTable-[\w-]+\.js$/, async (route) => (await new Promise((r) => setTimeout(r, 500)), route.continue()));
    await hamlet.click("button[aria-label='Status emoji']");
    await hamlet.fill(".emoji-picker input", "calendar");
    expect(await hamlet.locator(".emoji-picker .status").textContent()).toBe("Loading…");
    await hamlet.keyboard.press("Enter");
    await expect.poll(() => hamlet.locator("button[aria-label='Status emoji']").textContent()).not.toBe("☺");
    await hamlet.click("button:has-text('Save status')");
    await expect.poll(() => saved(hamlet)).toBe("Saved");
    if (shots) await hamlet.screenshot({ path: `${shots}/settings-profile-light.png` });

    // Othello's card for Hamlet: the new name, status and the time in New York.
    await othello.locator(`.user-list li[data-user-id='${HAMLET_ID}'] a`).click();
    await expect.poll(() => card(othello).locator(".card-status").textContent()).toContain("In a meeting");
    await expect.poll(() => card(othello).locator(".card-status .status-emoji").count()).toBe(1);
    expect(await card(othello).locator(".card-name").textContent()).toContain("Prince Hamlet");
    const newYork = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", hour12: true, timeZone: "America/New_York" });
    await expect
      .poll(async () =>
        [newYork.format(new Date()), newYork.format(new Date(Date.now() - 60_000))].includes((await card(othello).locator(".card-time").textContent())!),
      )
      .toBe(true);
    await othello.keyboard.press("Escape");

    // Clearing the status: gone from the card.
    await hamlet.click("button:has-text('Clear')");
    await expect.poll(() => saved(hamlet)).toBe("Saved");
    await othello.locator(`.user-list li[data-user-id='${HAMLET_ID}'] a`).click();
    await expect.poll(() => card(othello).locator(".card-status").count()).toBe(0);
    await othello.keyboard.press("Escape");

    // After a reload the form shows what the server has.
    await hamlet.reload();
    await hamlet.waitForSelector(".settings-section[data-section='profile']");
    expect(await hamlet.inputValue("input[name=full_name]")).toBe("Prince Hamlet");
    expect(await hamlet.inputValue("select[name=timezone]")).toBe("America/New_York");
    await hamlet.click("button[aria-label='Close settings']");
    await expect.poll(() => hamlet.locator(".settings-overlay").count()).toBe(0);
    // Message-list shortcuts are off in settings; Esc closes them, back to the view they came from.
    await hamlet.evaluate(() => (location.hash = "#narrow/channel/1-Verona/topic/cards"));
    await hamlet.waitForSelector(".message");
    await openSettings(hamlet, "preferences");
    await hamlet.locator(".settings-section h2").click();
    await hamlet.keyboard.press("n");
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => hamlet.evaluate(() => location.hash)).toBe("#narrow/channel/1-Verona/topic/cards");
    await expect.poll(() => hamlet.locator(".settings-overlay").count()).toBe(0);
  }, 40_000);

  it("changes the password and shows and regenerates the API key in #settings/account-and-privacy", async () => {
    const prospero = await web.signIn("Prospero from The Tempest");
    await openSettings(prospero, "account-and-privacy");
    expect(await prospero.locator(".own-email").textContent()).toBe("prospero@zulip.com");
    await prospero.fill("input[name=old_password]", "not my password");
    await prospero.fill("input[name=new_password]", "a new secret 123");
    await prospero.click("button:has-text('Change password')");
    await expect.poll(() => saved(prospero)).toBe("Wrong password!");
    await prospero.fill("input[name=old_password]", "parleydev");
    await prospero.click("button:has-text('Change password')");
    await expect.poll(() => saved(prospero)).toBe("Password changed");
    expect(await prospero.inputValue("input[name=old_password]")).toBe("");

    // The API key needs the (new) password; it works against /api/v1.
    await prospero.fill("input[name=api_key_password]", "a new secret 123");
    await prospero.click("button:has-text('Show API key')");
    const key = (await prospero.locator(".api-key").textContent())!;
    expect(key).toMatch(/^\w{20,}$/);
    const me = (apiKey: string) => fetch(`${web.server.baseUrl}/api/v1/users/me`, { headers: { Authorization: basicAuth("prospero@zulip.com", apiKey) } });
    expect((await me(key)).status).toBe(200);
    await prospero.click("button:has-text('Generate new API key')");
    await expect.poll(() => prospero.locator(".api-key").textContent()).not.toBe(key);
    const fresh = (await prospero.locator(".api-key").textContent())!;
    expect((await me(fresh)).status).toBe(200);
    expect((await me(key)).status).toBe(401);

    // Privacy switches go to the server.
    await prospero.uncheck("input[name=send_read_receipts]");
    await expect.poll(() => saved(prospero)).toBe("Saved");
    expect((await serverSettings(prospero)).send_read_receipts).toBe(false);
    await prospero.context().close();
  }, 40_000);

  it("lists the signed-in browsers in Sessions and signs one out, which sends it to the login page", async () => {
    const desk = await web.signIn("Cordelia, Lear's daughter");
    const phone = await web.signIn("Cordelia, Lear's daughter", { viewport: { width: 390, height: 844 } });
    await openSettings(desk, "account-and-privacy");
    const rows = desk.locator("ul.sessions li");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await desk.locator("ul.sessions li.current .session-current").textContent()).toBe("This session");
    expect(await desk.locator("ul.sessions li.current .session-device").textContent()).toMatch(/Chrom/);
    if (shots) {
      await desk.locator(".sessions").scrollIntoViewIfNeeded();
      await desk.screenshot({ path: `${shots}/settings-sessions-light.png` });
    }

    await desk.click("ul.sessions li:not(.current) button:has-text('Log out')");
    await expect.poll(() => saved(desk)).toBe("Signed out");
    await expect.poll(() => rows.count()).toBe(1);
    // The other browser's event queue went with its session, and its next request is refused: it goes
    // to the login page (by itself, or after this navigation, whichever comes first).
    await phone.evaluate(() => (location.hash = "#settings/profile")).catch(() => {});
    await expect.poll(() => new URL(phone.url()).pathname, { timeout: 15_000 }).toBe("/login/");

    if (shots) {
      await call(desk, "PATCH", "/settings", { color_scheme: "2" });
      await expect.poll(() => desk.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await desk.locator(".sessions").scrollIntoViewIfNeeded();
      await desk.screenshot({ path: `${shots}/settings-sessions-dark.png` });
      await call(desk, "PATCH", "/settings", { color_scheme: "1" });
    }
    await desk.context().close();
    await phone.context().close();
  }, 60_000);

  it("applies theme, 24-hour time and home view from #settings/preferences, and notification switches", async () => {
    await call(othello, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "clock", content: "What time is it?" });
    await openSettings(hamlet, "preferences");
    await hamlet.selectOption("select[name=color_scheme]", "2");
    await expect.poll(() => hamlet.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    if (shots) {
      await hamlet.screenshot({ path: `${shots}/settings-preferences-dark.png` });
      await openSettings(hamlet, "profile");
      await hamlet.screenshot({ path: `${shots}/settings-profile-dark.png` });
      await openSettings(hamlet, "preferences");
    }
    await hamlet.selectOption("select[name=color_scheme]", "3");
    await expect.poll(() => hamlet.evaluate(() => document.documentElement.dataset.theme)).toBe("light");

    await hamlet.selectOption("select[name=emojiset]", "twitter");
    await expect.poll(async () => (await serverSettings(hamlet)).emojiset).toBe("twitter");

    await hamlet.selectOption("select[name=twenty_four_hour_time]", "true");
    await expect.poll(async () => (await serverSettings(hamlet)).twenty_four_hour_time).toBe(true);
    await hamlet.evaluate(() => (location.hash = "#narrow/channel/1-Verona/topic/clock"));
    const time = hamlet.locator(".message", { hasText: "What time is it?" }).locator("time");
    await expect.poll(() => time.textContent()).toMatch(/^\d{2}:\d{2}$/);
    await openSettings(hamlet, "preferences");
    await hamlet.selectOption("select[name=twenty_four_hour_time]", "false");
    await hamlet.evaluate(() => (location.hash = "#narrow/channel/1-Verona/topic/clock"));
    await expect.poll(() => time.textContent()).toMatch(/^\d{1,2}:\d{2}\s?[AP]M$/);

    await openSettings(hamlet, "preferences");
    await hamlet.selectOption("select[name=web_home_view]", "recent_topics");
    await expect.poll(() => saved(hamlet)).toBe("Saved");
    await hamlet.evaluate(() => (location.hash = "#"));
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Recent conversations");

    await openSettings(hamlet, "notifications");
    if (shots) await hamlet.screenshot({ path: `${shots}/settings-notifications-light.png` });
    await hamlet.uncheck("input[name=enable_desktop_notifications]");
    await expect.poll(() => saved(hamlet)).toBe("Saved");
    await hamlet.check("input[name=enable_stream_email_notifications]");
    await expect.poll(() => saved(hamlet)).toBe("Saved");
    await hamlet.selectOption("select[name=automatically_follow_topics_policy]", "4");
    await expect.poll(async () => (await serverSettings(hamlet)).automatically_follow_topics_policy).toBe(4);
    const now = await serverSettings(hamlet);
    expect([now.enable_desktop_notifications, now.enable_stream_email_notifications]).toEqual([false, true]);
    await hamlet.reload();
    await hamlet.waitForSelector(".settings-section[data-section='notifications']");
    expect(await hamlet.isChecked("input[name=enable_desktop_notifications]")).toBe(false);
    expect(await hamlet.isChecked("input[name=enable_stream_email_notifications]")).toBe(true);
  }, 40_000);

  it("lists followed and muted topics, muted users and alert words, and changes them", async () => {
    await call(hamlet, "POST", "/user_topics", { stream_id: String(VERONA), topic: "Followed One", visibility_policy: "3" });
    await call(hamlet, "POST", "/user_topics", { stream_id: String(VERONA), topic: "Muted One", visibility_policy: "1" });
    await openSettings(hamlet, "topics");
    const topicRow = (name: string) => hamlet.locator(`.topic-policies tr[data-topic='${name}']`);
    await expect.poll(() => topicRow("Followed One").locator("select").inputValue()).toBe("3");
    expect(await topicRow("Muted One").locator("select").inputValue()).toBe("1");
    await topicRow("Muted One").locator("select").selectOption("0");
    await expect.poll(() => topicRow("Muted One").count()).toBe(0);
    const state = await call(hamlet, "POST", "/register", { fetch_event_types: JSON.stringify(["user_topic"]) });
    const kept = state.user_topics.filter((t: any) => t.visibility_policy !== 0).map((t: any) => t.topic_name);
    expect(kept).toContain("Followed One");
    expect(kept).not.toContain("Muted One");

    // Muting from a card; unmuting in settings.
    await hamlet.evaluate(() => (location.hash = "#inbox"));
    await hamlet.locator(`.user-list li[data-user-id='${OTHELLO_ID}'] a`).click();
    await card(hamlet).locator("button", { hasText: "Mute this user" }).click();
    await expect.poll(() => card(hamlet).locator("button", { hasText: "Unmute this user" }).count()).toBe(1);
    await hamlet.keyboard.press("Escape");
    await openSettings(hamlet, "muted-users");
    await expect.poll(() => hamlet.locator(`.muted-users li[data-user-id='${OTHELLO_ID}']`).count()).toBe(1);
    if (shots) await hamlet.screenshot({ path: `${shots}/settings-muted-users-light.png` });
    await hamlet.click(`.muted-users li[data-user-id='${OTHELLO_ID}'] button`);
    await expect.poll(() => hamlet.locator(".muted-users li").count()).toBe(0);
    expect((await call(hamlet, "POST", "/register", { fetch_event_types: JSON.stringify(["muted_users"]) })).muted_users).toEqual([]);

    await openSettings(hamlet, "alert-words");
    await hamlet.fill("input[name=alert_word]", "Elsinore");
    await hamlet.click("button:has-text('Add alert word')");
    await expect.poll(() => hamlet.locator(".alert-words .word").allTextContents()).toEqual(["Elsinore"]);
    expect((await call(hamlet, "GET", "/users/me/alert_words")).alert_words).toEqual(["Elsinore"]);
    // A message with the word is flagged for Hamlet.
    const id = (await call(othello, "POST", "/messages", { type: "stream", to: String(VERONA), topic: "alerts", content: "Back to Elsinore" })).id;
    const flags = (await call(hamlet, "GET", `/messages/${id}`)).message?.flags ?? (await call(hamlet, "GET", `/messages/${id}`)).flags;
    expect(flags).toContain("has_alert_word");
    await hamlet.click("button[aria-label='Delete Elsinore']");
    await expect.poll(() => hamlet.locator(".alert-words .word").count()).toBe(0);
  }, 40_000);

  it("an administrator invites by email and by a reusable link; the invited person signs up through the link, lands in the app and chats", async () => {
    const iago = await web.signIn("Iago");
    await iago.click("a[aria-label='Invite users']");
    await iago.waitForSelector("textarea[name=invitee_emails]");
    await iago.fill("textarea[name=invitee_emails]", "viola@example.com");
    await iago.check(`input[name=stream][value='${DENMARK}']`);
    await iago.click(".invite button[type=submit]");
    await expect.poll(() => iago.locator(".invite-result").textContent()).toBe("Invitations sent.");
    if (shots) await iago.screenshot({ path: `${shots}/invite.png` });
    const mail = await smtp.waitFor((m) => m.rcptTo.includes("viola@example.com"), 20_000);
    const link = /https?:\/\/[^\s]+\/join\/[a-z0-9]+\//.exec(mail.parsed.text ?? "")?.[0];
    expect(link).toContain(web.server.baseUrl);

    const viola = await (await web.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    viola.on("pageerror", (error) => console.error("viola's page:", error));
    await viola.goto(link!);
    expect(await viola.inputValue("#email")).toBe("viola@example.com");
    await viola.fill("input[name=full_name]", "Viola");
    await viola.fill("input[name=password]", "twelfth-night-1");
    await viola.click("button[type=submit]");
    await viola.waitForSelector(".sidebar .channels");
    expect(new URL(viola.url()).pathname).toBe("/");
    // The channel she was invited to is hers; what she writes there reaches Iago.
    await expect.poll(() => viola.locator(".sidebar .channels", { hasText: "Denmark" }).count()).toBe(1);
    await viola.evaluate(() => (location.hash = "#narrow/channel/2-Denmark/topic/new.20people"));
    await openCompose(viola);
    await viola.fill(".compose textarea", "Hello, I am Viola, new here");
    await viola.press(".compose textarea", "Control+Enter");
    await iago.evaluate(() => (location.hash = "#narrow/channel/2-Denmark/topic/new.20people"));
    await iago.waitForSelector(".message .content:has-text('Hello, I am Viola, new here')");
    await expect.poll(() => iago.locator(".message .sender .name", { hasText: "Viola" }).count()).toBe(1);
    await iago.locator(`.user-list li a`, { hasText: "Viola" }).click();
    expect(await card(iago).locator(".card-role").textContent()).toBe("Member");
    await iago.keyboard.press("Escape");

    // A reusable link: made in #invite, it asks a newcomer for an address first.
    await iago.evaluate(() => (location.hash = "#invite"));
    await iago.click("button.make-link");
    await expect.poll(() => iago.locator("input.invite-link").inputValue()).toMatch(/\/join\/[a-z0-9]+\/$/);
    const reusable = await iago.locator("input.invite-link").inputValue();
    const newcomer = await (await web.browser.newContext()).newPage();
    await newcomer.goto(reusable);
    await expect.poll(() => newcomer.locator("input[name=email]").count()).toBe(1);
    await expect.poll(() => newcomer.locator("input[name=password]").count()).toBe(0);
    await newcomer.context().close();

    // A member without the right is told so by the server.
    await othello.evaluate(() => (location.hash = "#invite"));
    await othello.click(".invite button.make-link");
    await expect.poll(() => othello.locator(".invite-result.error").count()).toBe(1);
    await othello.evaluate(() => (location.hash = "#"));
    await viola.context().close();
    await iago.context().close();
  }, 60_000);

  it.runIf(!!shots)(
    "takes screenshots of settings on a phone, light and dark",
    async () => {
      const phone = await web.signIn("Iago", { viewport: { width: 390, height: 844 } });
      await openSettings(phone, "notifications");
      await phone.screenshot({ path: `${shots}/settings-phone-light.png` });
      await call(phone, "PATCH", "/settings", { color_scheme: "2" });
      await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await openSettings(phone, "profile");
      await phone.screenshot({ path: `${shots}/settings-phone-dark.png` });
      await phone.context().close();
    },
    30_000,
  );
});
