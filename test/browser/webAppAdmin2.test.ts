import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";

// The rest of organization administration in a real Chromium: group-based permissions (a member
// loses a right), user groups (#groups: create with members, join/leave under the server's rules,
// mention), custom profile fields (add, edit, reorder, delete; shown on a user card), linkifier
// editing and reordering (a message renders with the edited one), bots (an outgoing webhook bot,
// its key, zuliprc, deactivation); a member sees no admin controls.
const web = useWebApp();
let iago: Page;
let othello: Page;
const HAMLET_ID = 10;
const OTHELLO_ID = 12;
const shots = process.env.PARLEY_SCREENSHOTS;

async function go(page: Page, hash: string, selector: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.waitForSelector(selector);
}
const openAdmin = (page: Page, section: string) => go(page, `#organization/${section}`, `.settings-section[data-section='${section}']`);
const saved = (page: Page) => page.locator(".settings .saved").textContent();
const savedIsError = (page: Page) => page.locator(".settings .saved.error").count();

async function setScheme(page: Page, scheme: number): Promise<void> {
  await call(page, "PATCH", "/settings", { color_scheme: String(scheme) });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme === 2 ? "dark" : "light");
}

async function systemGroupId(page: Page, name: string): Promise<number> {
  const { user_groups } = await call(page, "GET", "/user_groups");
  return user_groups.find((g: any) => g.name === name).id;
}

describe.skipIf(!chromiumFound)("organization administration, the rest, in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    iago = await web.signIn("Iago", { acceptDialogs: true });
    othello = await web.signIn("Othello, the Moor of Venice", { acceptDialogs: true });
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("gives a member no admin controls in the new sections", async () => {
    for (const section of ["organization-permissions", "profile-field-settings", "bot-list-admin", "organization-settings"]) {
      await openAdmin(othello, section);
      await expect.poll(() => othello.locator(".admin-only").count()).toBe(1);
      await expect.poll(() => othello.locator(".group-setting, .profile-fields, .bots").count()).toBe(0);
    }
  }, 30_000);

  it("changes a group permission: /register shows it and a member can no longer create a channel", async () => {
    const admins = await systemGroupId(iago, "role:administrators");
    const members = await systemGroupId(iago, "role:members");
    await openAdmin(iago, "organization-permissions");
    const picker = iago.locator("select[name=can_create_public_channel_group]");
    expect(await picker.inputValue()).toBe(String(members));
    await picker.selectOption({ label: "Administrators" });
    await expect.poll(() => saved(iago)).toBe("Saved");
    const state = await call(iago, "POST", "/register", { fetch_event_types: JSON.stringify(["realm"]) });
    expect(state.realm_can_create_public_channel_group).toBe(admins);
    const refused = await call(othello, "POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Battlements" }]) });
    expect(refused.result).toBe("error");
    expect(refused.msg).toMatch(/Insufficient permission/);

    // A custom value: chosen people (Othello) instead of a group.
    await iago.locator("select[name=can_add_custom_emoji_group]").selectOption("custom");
    const custom = iago.locator(".group-setting[data-setting=can_add_custom_emoji_group]");
    await custom.locator("button[aria-label='Remove Everyone except guests']").click();
    await custom.locator("select[name=can_add_custom_emoji_group_add]").selectOption({ label: "Othello, the Moor of Venice" });
    if (shots) await iago.screenshot({ path: `${shots}/admin-permissions.png` });
    await custom.locator("button:has-text('Save')").click();
    await expect.poll(() => saved(iago)).toBe("Saved");
    const after = await call(iago, "POST", "/register", { fetch_event_types: JSON.stringify(["realm"]) });
    expect(after.realm_can_add_custom_emoji_group).toEqual({ direct_members: [OTHELLO_ID], direct_subgroups: [] });

    // Organization settings: language and a default for new users.
    await openAdmin(iago, "organization-settings");
    await iago.selectOption("select[name=default_language]", "de");
    await expect.poll(() => saved(iago)).toBe("Saved");
    await iago.selectOption("select[name=default_web_home_view]", "recent_topics");
    await expect.poll(() => saved(iago)).toBe("Saved");
    const realmState = await call(iago, "POST", "/register", { fetch_event_types: JSON.stringify(["realm", "realm_user_settings_defaults"]) });
    expect(realmState.realm_default_language).toBe("de");
    expect(realmState.realm_user_settings_defaults.web_home_view).toBe("recent_topics");
    // The form follows the realm_user_settings_defaults event.
    expect(await iago.inputValue("select[name=default_web_home_view]")).toBe("recent_topics");
    if (shots) await iago.screenshot({ path: `${shots}/admin-organization-settings.png` });
  }, 40_000);

  it("creates a user group with a member, who sees it in #groups, mentions it and may leave but not join back", async () => {
    await go(iago, "#groups/new", ".new-group");
    await iago.fill("input[name=group_name]", "Gravediggers");
    await iago.fill("textarea[name=group_description]", "Alas, poor Yorick");
    await iago.locator(".new-group select[name=add_member]").selectOption({ label: "Othello, the Moor of Venice" });
    await iago.click(".new-group button[type=submit]");
    await iago.waitForSelector(".group-page");
    expect(await iago.locator(".settings-section h2").textContent()).toContain("@Gravediggers");
    const { user_groups } = await call(iago, "GET", "/user_groups");
    const group = user_groups.find((g: any) => g.name === "Gravediggers");
    expect(group.members.sort()).toEqual([11, OTHELLO_ID]);
    expect(group.description).toBe("Alas, poor Yorick");

    // Members tab: Hamlet added, live for Othello.
    await iago.click(".group-page .tabs a:has-text('Members')");
    await iago.locator(".group-page select[name=add_member]").selectOption({ label: "King Hamlet" });
    await iago.click(".group-page button:has-text('Add')");
    await expect.poll(() => saved(iago)).toBe("Added");
    await iago.waitForSelector(`.member-list li[data-user-id='${HAMLET_ID}']`);
    // A subgroup: the development organization's @hamletcharacters.
    const characters = (await call(iago, "GET", "/user_groups")).user_groups.find((g: any) => g.name === "hamletcharacters");
    await iago.locator(".group-page select[name=add_member]").selectOption({ label: "@hamletcharacters" });
    await iago.click(".group-page button:has-text('Add')");
    await iago.waitForSelector(`.member-list li[data-subgroup-id='${characters.id}']`);
    expect((await call(iago, "GET", `/user_groups/${group.id}/subgroups`, { direct_subgroup_only: "true" })).subgroups).toEqual([characters.id]);
    if (shots) await iago.screenshot({ path: `${shots}/groups-members.png` });

    await go(othello, "#groups/your", ".group-list");
    const row = othello.locator(`.group-list li[data-group-id='${group.id}']`);
    await row.waitFor();
    expect(await row.locator(".member-count").textContent()).toBe("3 members");

    // A mention of the group renders as one.
    const sent = await call(othello, "POST", "/messages", { type: "stream", to: "Verona", topic: "graves", content: "@*Gravediggers* dig here" });
    await go(othello, "#narrow/channel/1-Verona/topic/graves", `.message[data-id="${sent.id}"]`);
    expect(await othello.locator(`.message[data-id="${sent.id}"] .user-group-mention`).textContent()).toBe("@Gravediggers");

    // Leaving is allowed (can_leave_group: everyone); joining back is not (can_join_group: nobody).
    await go(othello, "#groups/your", `.group-list li[data-group-id='${group.id}']`);
    await row.locator("button.leave").click();
    await expect.poll(() => saved(othello)).toBe("Left");
    await expect.poll(() => row.count()).toBe(0);
    await go(othello, "#groups/all", `.group-list li[data-group-id='${group.id}'] button.join`);
    await row.locator("button.join").click();
    await expect.poll(() => savedIsError(othello)).toBe(1);
    expect((await call(othello, "GET", `/user_groups/${group.id}/members`)).members).not.toContain(OTHELLO_ID);

    // Edit name and a group permission; Othello's list follows.
    await go(iago, `#groups/${group.id}/Gravediggers/general`, "input[name=group_name]");
    await iago.fill("input[name=group_name]", "Sextons");
    await iago.click(".group-page button:has-text('Save changes')");
    await expect.poll(() => saved(iago)).toBe("Saved");
    await expect.poll(() => othello.locator(`.group-list li[data-group-id='${group.id}'] .group-name`).textContent()).toBe("@Sextons");
    await go(iago, `#groups/${group.id}/Sextons/permissions`, "select[name=can_join_group]");
    await iago.locator("select[name=can_join_group]").selectOption({ label: "Everyone except guests" });
    await expect.poll(() => saved(iago)).toBe("Saved");
    const members = await systemGroupId(iago, "role:members");
    expect((await call(iago, "GET", "/user_groups")).user_groups.find((g: any) => g.id === group.id).can_join_group).toBe(members);
    if (shots) await iago.screenshot({ path: `${shots}/groups-permissions.png` });
    await othello.locator(`.group-list li[data-group-id='${group.id}'] button.join`).click();
    await expect.poll(() => saved(othello)).toBe("Joined");

    // Deactivation: the group leaves the lists.
    await go(iago, `#groups/${group.id}/Sextons/general`, "button.deactivate");
    await iago.click("button.deactivate");
    await expect.poll(() => iago.evaluate(() => location.hash)).toBe("#groups/all");
    await expect.poll(() => othello.locator(`.group-list li[data-group-id='${group.id}']`).count()).toBe(0);
  }, 60_000);

  it("adds, edits, reorders and deletes custom profile fields; a user card shows the value", async () => {
    await openAdmin(iago, "profile-field-settings");
    const before = (await call(iago, "GET", "/realm/profile_fields")).custom_fields.length;
    await iago.fill(".new-profile-field input[name=name]", "Sword");
    await iago.click(".new-profile-field button[type=submit]");
    await expect.poll(() => saved(iago)).toBe("Added");
    await iago.selectOption(".new-profile-field select[name=field_type]", "3");
    await iago.fill(".new-profile-field input[name=name]", "House");
    await iago.fill(".new-profile-field input[aria-label='Option 1']", "Montague");
    await iago.click(".new-profile-field button.add-choice");
    await iago.fill(".new-profile-field input[aria-label='Option 2']", "Capulet");
    await iago.click(".new-profile-field button[type=submit]");
    await expect.poll(() => saved(iago)).toBe("Added");
    await expect.poll(() => iago.locator(".profile-fields > li").count()).toBe(before + 2);
    let fields = (await call(iago, "GET", "/realm/profile_fields")).custom_fields;
    const sword = fields.find((f: any) => f.name === "Sword");
    const house = fields.find((f: any) => f.name === "House");
    expect(Object.values(JSON.parse(house.field_data)).map((c: any) => c.text)).toEqual(["Montague", "Capulet"]);

    // Edit: a new label.
    const swordRow = iago.locator(`.profile-fields li[data-field-id='${sword.id}']`);
    await swordRow.locator("button.edit").click();
    await swordRow.locator("input[name=name]").fill("Blade");
    if (shots) await iago.screenshot({ path: `${shots}/admin-profile-field-edit.png` });
    await swordRow.locator("button[type=submit]").click();
    await expect.poll(() => swordRow.locator(".name").textContent()).toBe("Blade");
    // Reorder: Blade moves above the field before it.
    await swordRow.locator(`button[aria-label='Move Blade up']`).click();
    await expect.poll(() => saved(iago)).toBe("Reordered");
    fields = (await call(iago, "GET", "/realm/profile_fields")).custom_fields;
    const ids = fields.map((f: any) => f.id);
    expect(ids.indexOf(sword.id)).toBe(ids.length - 3);
    await expect
      .poll(() =>
        iago
          .locator(".profile-fields > li")
          .nth(before - 1)
          .getAttribute("data-field-id"),
      )
      .toBe(String(sword.id));
    if (shots) await iago.screenshot({ path: `${shots}/admin-profile-fields.png` });

    // Delete House.
    await iago.locator(`.profile-fields li[data-field-id='${house.id}'] button.delete`).click();
    await expect.poll(() => saved(iago)).toBe("Deleted");
    await expect.poll(() => iago.locator(`.profile-fields li[data-field-id='${house.id}']`).count()).toBe(0);

    // Hamlet's value of Blade shows on his card.
    expect((await call(iago, "PATCH", `/users/${HAMLET_ID}`, { profile_data: JSON.stringify([{ id: sword.id, value: "Rapier" }]) })).result).toBe("success");
    await go(othello, "#inbox", `.user-list li[data-user-id='${HAMLET_ID}'] a`);
    await othello.click(`.user-list li[data-user-id='${HAMLET_ID}'] a`);
    const card = othello.locator(".user-card");
    await expect.poll(() => card.locator(`.card-field[data-field-id='${sword.id}']`).textContent()).toBe("Rapier");
    expect(await card.textContent()).toContain("Blade");
    await othello.keyboard.press("Escape");
  }, 40_000);

  it("edits and reorders linkifiers; a new message renders with the edited one", async () => {
    const first = await call(iago, "POST", "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/old/{id}" });
    const second = await call(iago, "POST", "/realm/filters", { pattern: "RFC(?P<rfc>[0-9]+)", url_template: "https://www.rfc-editor.org/rfc/rfc{rfc}" });
    await openAdmin(iago, "linkifier-settings");
    const row = iago.locator(`.admin-linkifiers tr[data-linkifier-id='${first.id}']`);
    await row.locator("button.edit").click();
    await row.locator("input[name=edit_url_template]").fill("https://example.com/issues/{id}");
    await row.locator("button[type=submit]").click();
    await expect.poll(() => saved(iago)).toBe("Saved");
    await expect.poll(() => row.locator(".template").textContent()).toBe("https://example.com/issues/{id}");
    await row.locator("button[aria-label^='Move'][aria-label$='down']").click();
    await expect.poll(() => saved(iago)).toBe("Reordered");
    const { linkifiers } = await call(iago, "GET", "/realm/linkifiers");
    expect(linkifiers.map((l: any) => l.id)).toEqual([second.id, first.id]);
    await expect.poll(() => iago.locator(".admin-linkifiers tr").first().getAttribute("data-linkifier-id")).toBe(String(second.id));

    const sent = await call(othello, "POST", "/messages", { type: "stream", to: "Verona", topic: "links", content: "See #42" });
    await go(othello, "#narrow/channel/1-Verona/topic/links", `.message[data-id="${sent.id}"]`);
    expect(await othello.locator(`.message[data-id="${sent.id}"] a`).getAttribute("href")).toBe("https://example.com/issues/42");
  }, 30_000);

  it("creates an outgoing-webhook bot, shows its key and zuliprc, deactivates it; the admin list shows every bot", async () => {
    await go(iago, "#settings/your-bots", ".new-bot");
    await iago.selectOption(".new-bot select[name=bot_type]", "3");
    await iago.fill(".new-bot input[name=full_name]", "Ghost");
    await iago.fill(".new-bot input[name=short_name]", "ghost");
    await iago.fill(".new-bot input[name=payload_url]", "https://example.com/hook");
    await iago.click(".new-bot button[type=submit]");
    await expect.poll(() => saved(iago)).toBe("Bot created");
    const state = await call(iago, "POST", "/register", { fetch_event_types: JSON.stringify(["realm_bot"]) });
    const ghost = state.realm_bots.find((b: any) => b.full_name === "Ghost");
    expect(ghost.services[0]).toMatchObject({ base_url: "https://example.com/hook", interface: 1 });
    expect(ghost.owner_id).toBe(11);
    const card = iago.locator(`.bots li[data-bot-id='${ghost.user_id}']`);
    await card.waitFor();
    expect(await card.locator(".endpoint").textContent()).toContain("https://example.com/hook");
    await card.locator("button.show-key").click();
    const key = ghost.api_key;
    expect(await card.locator(".api-key").textContent()).toBe(key);
    const [download] = await Promise.all([iago.waitForEvent("download"), card.locator("button.zuliprc").click()]);
    expect(download.suggestedFilename()).toBe("zuliprc");
    const zuliprc = await readFile((await download.path())!, "utf8");
    expect(zuliprc).toBe(`[api]\nemail=${ghost.email}\nkey=${key}\nsite=${web.server.baseUrl}\n`);
    if (shots) await iago.screenshot({ path: `${shots}/settings-bots.png` });

    // A new key replaces the old one on the card.
    await card.locator("button.regenerate").click();
    await expect.poll(() => saved(iago)).toBe("New API key generated");
    await expect.poll(() => card.locator(".api-key").textContent()).not.toBe(key);

    await card.locator("button.deactivate").click();
    await expect.poll(() => saved(iago)).toBe("Deactivated");
    await card.locator("button.reactivate").waitFor();
    expect((await call(iago, "GET", `/users/${ghost.user_id}`)).user.is_active).toBe(false);
    await card.locator("button.reactivate").click();
    await expect.poll(() => saved(iago)).toBe("Reactivated");
    await card.locator("button.deactivate").waitFor();
    await card.locator("button.deactivate").click();
    await card.locator("button.reactivate").waitFor();

    await openAdmin(iago, "bot-list-admin");
    await iago.locator(`.bots li[data-bot-id='${ghost.user_id}']`).waitFor();
    // Othello's new bot appears there live, with its owner; Othello's own list has only it.
    const herald = await call(othello, "POST", "/bots", { full_name: "Herald", short_name: "herald" });
    const heraldCard = iago.locator(`.bots li[data-bot-id='${herald.user_id}']`);
    await heraldCard.waitFor();
    expect(await heraldCard.textContent()).toContain("owner Othello, the Moor of Venice");
    await go(othello, "#settings/your-bots", `.bots li[data-bot-id='${herald.user_id}']`);
    await expect.poll(() => othello.locator(".bots li").count()).toBe(1);
    await setScheme(iago, 2);
    if (shots) await iago.screenshot({ path: `${shots}/admin-bots-dark.png` });
    await iago.setViewportSize({ width: 360, height: 740 });
    await openAdmin(iago, "organization-permissions");
    expect(await iago.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    if (shots) await iago.screenshot({ path: `${shots}/admin-permissions-phone-dark.png` });
    await go(iago, "#groups/all", ".group-list");
    if (shots) await iago.screenshot({ path: `${shots}/groups-phone-dark.png` });
    await setScheme(iago, 3);
  }, 40_000);
});
