import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";

// Organization administration (#organization/<section>) in a real Chromium: an administrator
// changes roles, deactivates and reactivates people, edits the organization's profile (others see
// it live), revokes invitations, adds linkifiers and custom emoji; a member gets no admin controls.
const web = useWebApp();
let iago: Page;
let othello: Page;
const HAMLET_ID = 10;
const CORDELIA_ID = 8;
const DESDEMONA_ID = 9;
const IAGO_ID = 11;
const shots = process.env.PARLEY_SCREENSHOTS;
/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

async function open(page: Page, section: string): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), `#organization/${section}`);
  await page.waitForSelector(`.settings-section[data-section='${section}']`);
}

const saved = (page: Page) => page.locator(".settings .saved").textContent();
const row = (page: Page, id: number) => page.locator(`.admin-users tr[data-user-id='${id}']`);

describe.skipIf(!chromiumFound)("organization administration in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    iago = await web.signIn("Iago", { acceptDialogs: true });
    othello = await web.signIn("Othello, the Moor of Venice", { acceptDialogs: true });
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("gives a member no admin controls", async () => {
    await expect.poll(() => othello.locator("a[aria-label='Organization settings']").count()).toBe(0);
    await open(othello, "users");
    await expect.poll(() => othello.locator(".admin-only").count()).toBe(1);
    await expect.poll(() => othello.locator(".admin-users").count()).toBe(0);
    await othello.click("button[aria-label='Close organization settings']");
    await expect.poll(() => othello.locator(".settings-overlay").count()).toBe(0);
  });

  it("changes a role, deactivates and reactivates a user, in a chunk of its own", async () => {
    const adminChunks = () => iago.evaluate(() => performance.getEntriesByType("resource").filter((e) => /\/Admin-/.test(e.name)).length);
    expect(await adminChunks()).toBe(0);
    await iago.click("a[aria-label='Organization settings']");
    await iago.waitForSelector(".settings-section[data-section='organization-profile']");
    expect(await adminChunks()).toBeGreaterThan(0);
    await iago.click("nav a[href='#organization/users']");
    await iago.waitForSelector(`.admin-users tr[data-user-id='${HAMLET_ID}']`);

    // An administrator cannot touch an owner (Desdemona) nor make one; nor change their own role.
    expect(await row(iago, DESDEMONA_ID).locator("select[name=role]").isDisabled()).toBe(true);
    await expect.poll(() => row(iago, DESDEMONA_ID).locator("button.deactivate").count()).toBe(0);
    expect(await row(iago, HAMLET_ID).locator("option[value='100']").isDisabled()).toBe(true);
    expect(await row(iago, IAGO_ID).locator("select[name=role]").isDisabled()).toBe(true);
    await row(iago, HAMLET_ID).locator("select[name=role]").selectOption("300");
    await expect.poll(() => saved(iago)).toBe("Role changed");
    expect((await call(iago, "GET", `/users/${HAMLET_ID}`)).user.role).toBe(300);

    await row(iago, CORDELIA_ID).locator("button.deactivate").click();
    await expect.poll(() => saved(iago)).toBe("Deactivated");
    await expect.poll(() => row(iago, CORDELIA_ID).count()).toBe(0);
    expect((await call(iago, "GET", `/users/${CORDELIA_ID}`)).user.is_active).toBe(false);

    await iago.click("nav a[href='#organization/deactivated']");
    await iago.waitForSelector(`.admin-users tr[data-user-id='${CORDELIA_ID}']`);
    await expect.poll(() => row(iago, HAMLET_ID).count()).toBe(0);
    if (shots) await iago.screenshot({ path: `${shots}/admin-deactivated.png` });
    await row(iago, CORDELIA_ID).locator("button.reactivate").click();
    await expect.poll(() => saved(iago)).toBe("Reactivated");
    await expect.poll(() => row(iago, CORDELIA_ID).count()).toBe(0);
    expect((await call(iago, "GET", `/users/${CORDELIA_ID}`)).user.is_active).toBe(true);
    await iago.click("nav a[href='#organization/users']");
    await iago.waitForSelector(`.admin-users tr[data-user-id='${CORDELIA_ID}']`);
    if (shots) await iago.screenshot({ path: `${shots}/admin-users.png` });
  }, 40_000);

  it("edits the organization's name and permissions; others see the name live", async () => {
    await open(iago, "organization-profile");
    await iago.fill("input[name=realm_name]", "Elsinore");
    await iago.fill("textarea[name=realm_description]", "The castle.");
    await iago.click("button:has-text('Save changes')");
    await expect.poll(() => saved(iago)).toBe("Saved");
    await expect.poll(() => othello.locator("header.top .realm").textContent()).toBe("Elsinore");
    await expect.poll(() => iago.locator("header.top .realm").textContent()).toBe("Elsinore");

    // After a reload the form shows the server's description (rendered in /register) as text.
    await iago.reload();
    await iago.waitForSelector(".settings-section[data-section='organization-profile']");
    expect(await iago.inputValue("textarea[name=realm_description]")).toBe("The castle.");
    expect(await iago.inputValue("input[name=realm_name]")).toBe("Elsinore");

    await open(iago, "organization-permissions");
    const check = iago.locator("input[name=mandatory_topics]");
    const before = await check.isChecked();
    await check.click();
    await expect.poll(() => saved(iago)).toBe("Saved");
    const state = await call(iago, "POST", "/register", { fetch_event_types: JSON.stringify(["realm"]) });
    expect(state.realm_mandatory_topics).toBe(!before);
    expect(state.realm_name).toBe("Elsinore");
  }, 30_000);

  it("adds and deletes a linkifier, revokes an invitation, uploads a custom emoji", async () => {
    await open(iago, "linkifier-settings");
    await iago.fill("input[name=pattern]", "#(?P<id>[0-9]+)");
    await iago.fill("input[name=url_template]", "https://github.com/parley/parley/issues/{id}");
    await iago.click("button:has-text('Add linkifier')");
    await expect.poll(() => saved(iago)).toBe("Added");
    await expect.poll(() => iago.locator(".admin-linkifiers tr").count()).toBe(1);
    const { linkifiers } = await call(iago, "GET", "/realm/linkifiers");
    expect(linkifiers.map((l: any) => l.url_template)).toEqual(["https://github.com/parley/parley/issues/{id}"]);
    if (shots) await iago.screenshot({ path: `${shots}/admin-linkifiers.png` });
    await iago.locator(".admin-linkifiers button:has-text('Delete')").click();
    await expect.poll(() => iago.locator(".admin-linkifiers tr").count()).toBe(0);

    expect((await call(iago, "POST", "/invites", { invitee_emails: "horatio@zulip.com", stream_ids: "[]" })).result).toBe("success");
    await open(iago, "invites-list-admin");
    const invite = iago.locator(".admin-invites li", { hasText: "horatio@zulip.com" });
    await invite.waitFor();
    await invite.locator("button:has-text('Revoke')").click();
    await expect.poll(() => saved(iago)).toBe("Revoked");
    await expect.poll(() => iago.locator(".admin-invites li").count()).toBe(0);
    expect((await call(iago, "GET", "/invites")).invites).toEqual([]);

    await open(iago, "emoji-settings");
    await iago.fill("input[name=emoji_name]", "yorick");
    await iago.setInputFiles("input[name=emoji_file]", { name: "yorick.png", mimeType: "image/png", buffer: PNG });
    await iago.click("button:has-text('Add emoji')");
    await expect.poll(() => saved(iago)).toBe("Added");
    await iago.locator(".admin-emoji li[data-emoji-name='yorick']").waitFor();
    await iago.locator(".admin-emoji li[data-emoji-name='yorick'] button").click();
    await expect.poll(() => saved(iago)).toBe("Deleted");
    await expect.poll(() => iago.locator(".admin-emoji li[data-emoji-name='yorick']").count()).toBe(0);
  }, 30_000);
});
