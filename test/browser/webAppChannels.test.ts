import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// The channels overlay (#channels/...) in a real Chromium: browsing and joining channels,
// creating one, personal settings of a subscription, and channel administration, each reaching
// the server through Zulip's API and the others' browsers through events.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
let cordelia: Page;
let iago: Page;
const OTHELLO_ID = 12;
const VENICE = seedChannels.venice.id;
const ROME = seedChannels.rome.id;
const shots = process.env.PARLEY_SCREENSHOTS;

async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.waitForSelector(".channels-overlay");
}

const sidebarChannels = (page: Page) => page.locator(".sidebar .channels > li .name").allTextContents();
const row = (page: Page, name: string) => page.locator(".channel-row", { has: page.locator(".channel-name", { hasText: name }) });

async function serverSubscription(page: Page, channelId: number): Promise<Record<string, any> | undefined> {
  const { subscriptions } = await call(page, "GET", "/users/me/subscriptions");
  return subscriptions.find((s: { stream_id: number }) => s.stream_id === channelId);
}

async function channelId(page: Page, name: string): Promise<number> {
  return (await call(page, "GET", "/get_stream_id", { stream: name })).stream_id;
}

describe.skipIf(!chromiumFound)("channels overlay in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
    cordelia = await web.signIn("Cordelia");
    iago = await web.signIn("Iago");
    // A missing element fails its step, not the whole test's time.
    for (const page of [hamlet, othello, cordelia, iago]) page.setDefaultTimeout(8000);
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("opens from the sidebar, browses all channels with subscriber counts, filters by name and subscribes", async () => {
    await hamlet.click(".sidebar .browse-channels");
    await hamlet.waitForSelector(".channels-overlay");
    expect(await hamlet.evaluate(() => location.hash)).toBe("#channels/all");
    await expect.poll(() => row(hamlet, "Venice").count()).toBe(1);
    // Venice: Desdemona, Prospero, ZOE (and nobody else) in the development organization.
    const venice = row(hamlet, "Venice");
    await expect.poll(() => venice.locator(".subscriber-count").textContent()).toContain("3");
    expect(await venice.locator(".channel-description").textContent()).toBe("A northeastern Italian city");
    expect(await venice.locator(".privacy svg").getAttribute("aria-label")).toBe("Public");
    // The private "core team" is listed for its subscriber, with a lock.
    expect(await row(hamlet, "core team").locator(".privacy svg").getAttribute("aria-label")).toBe("Private");
    await hamlet.fill(".channel-list input[type=search]", "ven");
    await expect.poll(() => hamlet.locator(".channel-row .channel-name").allTextContents()).toEqual(["Venice"]);
    if (shots) await hamlet.screenshot({ path: `${shots}/channels-browse-light.png` });

    expect(await sidebarChannels(hamlet)).not.toContain("Venice");
    await venice.locator("button.subscribe").click();
    await expect.poll(() => sidebarChannels(hamlet)).toContain("Venice");
    await expect.poll(() => venice.locator("button.subscribe").textContent()).toBe("Unsubscribe");
    await expect.poll(() => venice.locator(".subscriber-count").textContent()).toContain("4");
    expect(await serverSubscription(hamlet, VENICE)).toBeTruthy();

    // The "Subscribed" tab lists it now.
    await hamlet.click(".list-tabs a:has-text('Subscribed')");
    await hamlet.fill(".channel-list input[type=search]", "");
    // Polled as one condition: until the tab's list replaces the "All" one, both are shown.
    await expect
      .poll(async () => {
        const names = await hamlet.locator(".channel-row .channel-name").allTextContents();
        return names.includes("Venice") && !names.includes("Scotland");
      })
      .toBe(true);
  });

  it("creates a private channel with a subscriber: his browser shows it live, another's does not", async () => {
    await hamlet.click(".channels-overlay header .close");
    await hamlet.waitForSelector(".channels-overlay", { state: "detached" });
    await hamlet.click(".sidebar .add-channel");
    await hamlet.waitForSelector(".channel-create");
    expect(await hamlet.evaluate(() => location.hash)).toBe("#channels/new");
    // The server's refusal shows under the form: a name already taken.
    await hamlet.fill(".channel-create input[name=name]", "verona");
    await hamlet.click(".channel-create button[type=submit]");
    await expect.poll(() => hamlet.locator(".channel-create .form-error").textContent()).toContain("already exists");

    await hamlet.fill(".channel-create input[name=name]", "Elsinore");
    await hamlet.fill(".channel-create textarea[name=description]", "Whispers on the battlements");
    await hamlet.check(".channel-create input[value=private-protected]");
    await hamlet.fill(".channel-create .initial-subscribers input[type=search]", "othel");
    await hamlet.click(`.channel-create .initial-subscribers button[data-user-id='${OTHELLO_ID}']`);
    expect(await hamlet.locator(".channel-create .initial-subscribers .pill").allTextContents()).toEqual([
      "King Hamlet (you)×",
      "Othello, the Moor of Venice×",
    ]);
    if (shots) await hamlet.screenshot({ path: `${shots}/channels-create-light.png` });
    await hamlet.click(".channel-create button[type=submit]");

    await expect.poll(() => hamlet.locator(".channel-settings .channel-title h2").textContent(), { timeout: 10_000 }).toContain("Elsinore");
    await expect.poll(() => sidebarChannels(othello)).toContain("Elsinore");
    await expect.poll(() => sidebarChannels(hamlet)).toContain("Elsinore");
    const id = await channelId(hamlet, "Elsinore");
    const { stream } = await call(hamlet, "GET", `/streams/${id}`);
    expect(stream).toMatchObject({ invite_only: true, history_public_to_subscribers: false, description: "Whispers on the battlements" });
    expect((await call(hamlet, "GET", `/streams/${id}/members`)).subscribers.sort()).toEqual([10, OTHELLO_ID]);
    // Cordelia is not invited: neither her sidebar nor her channel list has it.
    await open(cordelia, "#channels/all");
    await expect.poll(() => row(cordelia, "Verona").count()).toBe(1);
    await expect.poll(() => row(cordelia, "Elsinore").count()).toBe(0);
    expect(await sidebarChannels(cordelia)).not.toContain("Elsinore");
    // A public channel made elsewhere appears in her open list, with its subscriber.
    await call(iago, "POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Wittenberg", description: "A university town" }]) });
    await expect.poll(() => row(cordelia, "Wittenberg").locator(".subscriber-count").textContent()).toContain("1");
    expect(await row(cordelia, "Wittenberg").locator("button.subscribe").textContent()).toBe("Subscribe");

    // The server's refusal shows under the form: a private channel of that name she cannot see.
    await open(cordelia, "#channels/new");
    await cordelia.fill(".channel-create input[name=name]", "core team");
    await cordelia.click(".channel-create button[type=submit]");
    await expect.poll(() => cordelia.locator(".channel-create .form-error").textContent()).toMatch(/core team/);
    expect(await sidebarChannels(cordelia)).not.toContain("core team");
    await open(cordelia, "#channels/all");
  });

  it("changes the colour, mute and pin of a subscription: the sidebar follows and the server has them", async () => {
    const id = await channelId(hamlet, "Elsinore");
    await open(hamlet, `#channels/${id}/Elsinore/personal`);
    await hamlet.click(".color-swatch[data-color='#e4523d']");
    const swatch = hamlet.locator(`.sidebar .channels li[data-channel-id='${id}'] .swatch`);
    await expect.poll(() => swatch.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe("rgb(228, 82, 61)");
    await hamlet.check(".channel-personal input[name=is_muted]");
    await expect.poll(() => hamlet.locator(`.sidebar .channels li[data-channel-id='${id}']`).getAttribute("class")).toContain("muted");
    await hamlet.check(".channel-personal input[name=pin_to_top]");
    await expect.poll(async () => (await sidebarChannels(hamlet))[0]).toBe("Elsinore");
    // Notifications inherit the user's settings until set for the channel.
    expect(await hamlet.locator(".channel-personal label:has(input[name=desktop_notifications]) .hint").textContent()).toBe("(default)");
    await hamlet.click(".channel-personal input[name=desktop_notifications]");
    await expect.poll(() => hamlet.locator(".channel-personal label:has(input[name=desktop_notifications]) .hint").count()).toBe(0);
    await expect
      .poll(async () => {
        const sub = await serverSubscription(hamlet, id);
        return sub && { color: sub.color, is_muted: sub.is_muted, pin_to_top: sub.pin_to_top, desktop: sub.desktop_notifications !== null };
      })
      .toEqual({ color: "#e4523d", is_muted: true, pin_to_top: true, desktop: true });
    if (shots) await hamlet.screenshot({ path: `${shots}/channels-personal-light.png` });
  });

  it("lets an administrator rename, describe, restrict and archive a channel; subscribers see it go live", async () => {
    // Denmark: Hamlet and Othello are subscribed.
    await open(iago, "#channels/2/Denmark/general");
    await iago.waitForSelector(".channel-settings[data-editable=true]");
    await iago.fill(".channel-details input[name=new_name]", "Denmark North");
    await iago.fill(".channel-details textarea[name=description]", "A cold Scandinavian country");
    await iago.click(".channel-details button[type=submit]");
    await expect.poll(() => sidebarChannels(hamlet)).toContain("Denmark North");
    const { stream } = await call(iago, "GET", "/streams/2");
    expect(stream).toMatchObject({ name: "Denmark North", description: "A cold Scandinavian country" });

    await iago.click(".channel-tabs a:has-text('Permissions')");
    const admins = await iago.locator("select[name=can_send_message_group] option", { hasText: "Administrators" }).getAttribute("value");
    await iago.selectOption("select[name=can_send_message_group]", admins!);
    await expect.poll(async () => (await call(iago, "GET", "/streams/2")).stream.can_send_message_group).toBe(Number(admins));
    // Hamlet sees the permission change live in the same page, read-only.
    await open(hamlet, "#channels/2/Denmark.20North/permissions");
    await expect.poll(() => hamlet.locator("select[name=can_send_message_group]").inputValue()).toBe(admins);
    expect(await hamlet.locator("select[name=can_send_message_group]").isDisabled()).toBe(true);
    if (shots) await iago.screenshot({ path: `${shots}/channels-permissions-light.png` });

    // A custom set of administrators: Hamlet's read-only page becomes editable live.
    expect(await hamlet.locator(".channel-settings").getAttribute("data-editable")).toBe("false");
    await iago.selectOption("select[name=can_administer_channel_group]", "custom");
    const administrators = iago.locator(".group-setting[data-setting=can_administer_channel_group]");
    await administrators.locator("input[type=search]").fill("hamlet");
    await administrators.locator(".suggestions button[data-user-id='10']").click();
    await expect.poll(() => hamlet.locator(".channel-settings").getAttribute("data-editable")).toBe("true");
    expect((await call(iago, "GET", "/streams/2")).stream.can_administer_channel_group).toEqual({ direct_members: [10], direct_subgroups: [] });
    expect(await hamlet.locator("select[name=can_send_message_group]").isDisabled()).toBe(false);

    // Subscribers: Iago adds Cordelia, whose sidebar shows the channel at once.
    await iago.click(".channel-tabs a:has-text('Subscribers')");
    await iago.fill(".channel-subscribers input[type=search]", "cordelia");
    await iago.click(".channel-subscribers .suggestions button[data-user-id='8']");
    await expect.poll(() => sidebarChannels(cordelia)).toContain("Denmark North");
    await expect.poll(() => iago.locator(".subscriber-list .name").allTextContents()).toContain("Cordelia, Lear's daughter");
    await iago.click(".subscriber-list li[data-user-id='8'] button");
    await expect.poll(() => sidebarChannels(cordelia)).not.toContain("Denmark North");

    await iago.click(".channel-tabs a:has-text('General')");
    await iago.click(".archive-zone button.archive");
    if (shots) {
      await iago.locator(".archive-zone .confirm").scrollIntoViewIfNeeded();
      await iago.screenshot({ path: `${shots}/channels-archive-confirm-light.png` });
    }
    await iago.click(".archive-zone button.confirm-archive");
    await expect.poll(() => sidebarChannels(hamlet)).not.toContain("Denmark North");
    await expect.poll(() => sidebarChannels(othello)).not.toContain("Denmark North");
    expect((await call(iago, "GET", "/streams/2")).code).toBe("BAD_REQUEST");
    // The administrator can bring it back.
    await iago.waitForSelector(".archive-zone button.unarchive");
    await iago.click(".archive-zone button.unarchive");
    await expect.poll(async () => (await call(iago, "GET", "/streams/2")).stream?.is_archived).toBe(false);
    await expect.poll(() => sidebarChannels(othello)).toContain("Denmark North");
  });

  it("makes a channel private: who is not subscribed loses it from the list live", async () => {
    const id = await channelId(iago, "Wittenberg");
    await open(cordelia, "#channels/all");
    await expect.poll(() => row(cordelia, "Wittenberg").count()).toBe(1);
    await open(iago, `#channels/${id}/Wittenberg/general`);
    await iago.waitForSelector(".channel-settings[data-editable=true]");
    await iago.check(".privacy-choice input[value=private-shared]");
    await iago.click(".privacy-choice button.save-privacy");
    await expect.poll(async () => (await call(iago, "GET", `/streams/${id}`)).stream.invite_only).toBe(true);
    await expect.poll(() => row(cordelia, "Wittenberg").count()).toBe(0);
    await expect.poll(() => iago.locator(".channel-title .privacy svg").getAttribute("aria-label")).toBe("Private");
    await expect.poll(() => iago.locator(".privacy-choice button.save-privacy").count()).toBe(0);
  });

  it("lists archived channels for administrators, and lets an owner set a channel's message retention", async () => {
    await call(iago, "DELETE", `/streams/${ROME}`);
    await open(iago, "#channels/all");
    await expect.poll(() => row(iago, "Scotland").count()).toBe(1);
    await expect.poll(() => row(iago, "Rome").count()).toBe(0);
    await iago.check(".channel-list input[name=show_archived]");
    await expect.poll(() => row(iago, "Rome").locator(".archived-tag").count()).toBe(1);
    await expect.poll(() => row(iago, "Rome").locator("button.subscribe").count()).toBe(0);
    // Members have no such filter.
    await open(othello, "#channels/all");
    await expect.poll(() => row(othello, "Scotland").count()).toBe(1);
    await expect.poll(() => othello.locator(".channel-list input[name=show_archived]").count()).toBe(0);

    // Retention: owners only (Iago, an administrator, sees it read-only).
    await open(iago, "#channels/1/Verona/general");
    await iago.waitForSelector(".channel-settings[data-editable=true]");
    await expect.poll(() => iago.locator("input[name=message_retention_days]").count()).toBe(0);
    expect(await iago.locator(".retention").textContent()).toBe("Organization default");
    const desdemona = await web.signIn("Desdemona");
    desdemona.setDefaultTimeout(8000);
    await open(desdemona, "#channels/1/Verona/general");
    await desdemona.fill("input[name=message_retention_days]", "30");
    await desdemona.click("button:has-text('Save retention')");
    await expect.poll(async () => (await call(desdemona, "GET", "/streams/1")).stream.message_retention_days).toBe(30);
    await expect.poll(() => iago.locator(".retention").textContent()).toBe("30 days");
    await desdemona.context().close();
  });

  it("shows a member the same settings read-only", async () => {
    await open(othello, `#channels/${VENICE}/Venice/general`);
    await othello.waitForSelector(".channel-settings[data-editable=false]");
    await expect.poll(() => othello.locator(".channel-details input[name=new_name]").count()).toBe(0);
    expect(await othello.locator(".channel-facts .description").textContent()).toBe("A northeastern Italian city");
    expect(await othello.locator(".privacy-choice input[value=public]").isChecked()).toBe(true);
    expect(await othello.locator(".privacy-choice input[value=public]").isDisabled()).toBe(true);
    await expect.poll(() => othello.locator(".archive-zone").count()).toBe(0);
    await othello.click(".channel-tabs a:has-text('Subscribers')");
    await expect.poll(() => othello.locator(".subscriber-list .name").allTextContents()).toContain("King Hamlet");
    await expect.poll(() => othello.locator(".subscriber-list button").count()).toBe(0);
    if (shots) await othello.screenshot({ path: `${shots}/channels-readonly-light.png` });
  });

  it.runIf(!!shots)(
    "takes screenshots in the dark theme and on a phone",
    async () => {
      await call(hamlet, "PATCH", "/settings", { color_scheme: "2" });
      await expect.poll(() => hamlet.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await open(hamlet, "#channels/all");
      await expect.poll(() => row(hamlet, "Scotland").count()).toBe(1);
      await hamlet.screenshot({ path: `${shots}/channels-browse-dark.png` });
      await open(hamlet, "#channels/new");
      await hamlet.waitForSelector(".channel-create");
      await hamlet.screenshot({ path: `${shots}/channels-create-dark.png` });
      await open(hamlet, `#channels/${await channelId(hamlet, "Elsinore")}/Elsinore/general`);
      await hamlet.waitForSelector(".channel-settings[data-editable=true]");
      await hamlet.screenshot({ path: `${shots}/channels-settings-dark.png` });
      await call(hamlet, "PATCH", "/settings", { color_scheme: "3" });

      const phone = await web.signIn("Cordelia", { viewport: { width: 360, height: 740 } });
      await open(phone, "#channels/all");
      await expect.poll(() => row(phone, "Scotland").count()).toBe(1);
      await phone.screenshot({ path: `${shots}/channels-phone-browse-light.png` });
      await phone.click(".channel-row:has-text('Scotland') .channel-link");
      await phone.waitForSelector(".channel-settings");
      await phone.screenshot({ path: `${shots}/channels-phone-settings-light.png` });
      await call(phone, "PATCH", "/settings", { color_scheme: "2" });
      await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await open(phone, "#channels/new");
      await phone.waitForSelector(".channel-create");
      await phone.screenshot({ path: `${shots}/channels-phone-create-dark.png` });
      await open(phone, "#channels/1/Verona/personal");
      await phone.waitForSelector(".channel-personal");
      await phone.screenshot({ path: `${shots}/channels-phone-personal-dark.png` });
      await phone.context().close();
    },
    60_000,
  );
});
