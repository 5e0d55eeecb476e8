import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { axeScanBothSchemes } from "../support/axe.js";
import { callJson as call, useWebApp } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// Where people find integrations, in a real Chromium: Settings → Bots → "Generate URL for an
// integration" writes the webhook URL of a bot, an integration and a channel; a service posting
// to that URL shows up in the web app. The catalog at /integrations/ works signed out.
const web = useWebApp();
let hamlet: Page;
const VERONA = seedChannels.verona.id;
const shots = process.env.PARLEY_SCREENSHOTS;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

const dialog = (page: Page) => page.locator("dialog.integration-url-dialog");

/** Screenshots of `target` at both widths, light and dark (PARLEY_SCREENSHOTS=<dir>). */
async function screenshots(page: Page, name: string, target?: () => ReturnType<Page["locator"]>): Promise<void> {
  if (!shots) return;
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const path = `${shots}/${name}-${size.width}-${scheme}.png`;
      await (target ? target().screenshot({ path }) : page.screenshot({ path, fullPage: true }));
    }
  }
  await page.setViewportSize(SIZES[0]);
  await page.emulateMedia({ colorScheme: "light" });
}

describe.skipIf(!chromiumFound)("integrations in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    await hamlet.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.server.baseUrl });
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("generates a bot's URL for an integration and a channel, copies it, and a payload posted there arrives", async () => {
    const bot = await call(hamlet, "POST", "/bots", { full_name: "Deploy hooks", short_name: "deployhooks", bot_type: "2" });
    expect(bot.result).toBe("success");
    await hamlet.evaluate(() => (location.hash = "#settings/your-bots"));
    await hamlet.locator(`.bots li[data-bot-id='${bot.user_id}']`).waitFor();
    if (shots) await hamlet.screenshot({ path: `${shots}/settings-bots-integration-url.png` });
    await hamlet.click(".open-integration-url");
    await dialog(hamlet).waitFor();
    expect(await dialog(hamlet).locator(".modal-head h2").textContent()).toBe("Generate URL for an integration");
    const url = dialog(hamlet).locator(".integration-url");
    expect(await url.textContent()).toBe("Integration URL will appear here.");
    expect(await dialog(hamlet).locator(".copy-url").isDisabled()).toBe(true);

    await dialog(hamlet).locator("select[name=bot]").selectOption(String(bot.user_id));
    // The integration list is searchable; one match left is chosen.
    const integrations = await dialog(hamlet).locator("select[name=integration] option").allTextContents();
    expect(integrations).toEqual(expect.arrayContaining(["Select an integration", "JSON formatter", "Slack-compatible webhook"]));
    await dialog(hamlet).locator("input.integration-search").fill("json");
    expect(await dialog(hamlet).locator("select[name=integration] option").allTextContents()).toEqual(["Select an integration", "JSON formatter"]);
    await expect.poll(() => dialog(hamlet).locator("select[name=integration]").inputValue()).toBe("json");
    // Without a channel: a direct message to me, no stream in the URL, no topic to set.
    expect(await url.textContent()).toBe(`${web.server.baseUrl}/api/v1/external/json?api_key=${bot.api_key}`);
    expect(await dialog(hamlet).locator("input[name=override_topic]").isDisabled()).toBe(true);
    expect(await dialog(hamlet).locator(".doc-link a").getAttribute("href")).toBe("/integrations/doc/json");

    await dialog(hamlet).locator("select[name=stream]").selectOption(String(VERONA));
    await dialog(hamlet).locator("input[name=override_topic]").check();
    // An unfinished topic cannot be copied, as in Zulip.
    expect(await dialog(hamlet).locator(".copy-url").isDisabled()).toBe(true);
    await dialog(hamlet).locator("input[name=topic]").fill("from the generator");
    const expected = `${web.server.baseUrl}/api/v1/external/json?api_key=${bot.api_key}&stream=${VERONA}&topic=from+the+generator`;
    await expect.poll(() => url.textContent()).toBe(expected);
    await dialog(hamlet).locator(".copy-url").click();
    await expect.poll(() => dialog(hamlet).locator(".copy-status").textContent()).toBe("Copied!");
    const copied = await hamlet.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(expected);
    await screenshots(hamlet, "integration-url-dialog", () => dialog(hamlet));
    expect(await axeScanBothSchemes(hamlet)).toEqual([]);

    // The service posts to the copied URL; the message arrives in the web app.
    const res = await fetch(copied, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ deployed: "v2.4.1" }) });
    expect(await res.json()).toMatchObject({ result: "success" });
    await dialog(hamlet).locator("button", { hasText: "Close" }).click();
    await expect.poll(() => dialog(hamlet).count()).toBe(0);
    await hamlet.evaluate((hash) => (location.hash = hash), `#narrow/channel/${VERONA}-Verona/topic/from.20the.20generator`);
    const message = hamlet.locator(".message", { has: hamlet.locator(".content code, .content pre", { hasText: "v2.4.1" }) });
    await message.waitFor();
    expect(await message.locator(".sender .name").first().textContent()).toBe("Deploy hooks");
    expect(await message.locator(".content pre").textContent()).toContain('"deployed": "v2.4.1"');
  });

  it("opens the dialog from an incoming webhook bot's card with that bot chosen", async () => {
    const other = await call(hamlet, "POST", "/bots", { full_name: "Alerts", short_name: "alerts", bot_type: "2" });
    await hamlet.evaluate(() => (location.hash = "#settings/your-bots"));
    const card = hamlet.locator(`.bots li[data-bot-id='${other.user_id}']`);
    await card.locator(".generate-url").click();
    await expect.poll(() => dialog(hamlet).locator("select[name=bot]").inputValue()).toBe(String(other.user_id));
    await dialog(hamlet).locator("select[name=integration]").selectOption("slack_incoming");
    expect(await dialog(hamlet).locator(".integration-url").textContent()).toBe(
      `${web.server.baseUrl}/api/v1/external/slack_incoming?api_key=${other.api_key}`,
    );
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => dialog(hamlet).count()).toBe(0);
  });

  it("filters events and sets an integration's options, for the first integration that has them", async () => {
    const state = await call(hamlet, "POST", "/register", { fetch_event_types: JSON.stringify(["realm_incoming_webhook_bots", "realm_bot"]) });
    const withEvents = (state.realm_incoming_webhook_bots as Array<{ name: string; all_event_types: string[] | null }>).find(
      (i) => i.all_event_types && i.all_event_types.length > 1,
    );
    // The integrations present decide what there is to filter: none has event types, nothing to do.
    if (!withEvents) return;
    const bot = (state.realm_bots as Array<{ user_id: number; full_name: string; api_key: string }>).find((b) => b.full_name === "Deploy hooks")!;
    await hamlet.evaluate(() => (location.hash = "#settings/your-bots"));
    await hamlet.click(".open-integration-url");
    await dialog(hamlet).locator("select[name=bot]").selectOption(String(bot.user_id));
    await dialog(hamlet).locator("select[name=integration]").selectOption(withEvents.name);
    await dialog(hamlet).locator("select[name=stream]").selectOption(String(VERONA));
    await dialog(hamlet).locator("input[name=filter_events]").check();
    // No event chosen yet: nothing to copy, as in Zulip.
    expect(await dialog(hamlet).locator(".copy-url").isDisabled()).toBe(true);
    const sorted = [...withEvents.all_event_types!].sort((a, b) => a.localeCompare(b));
    expect(
      await dialog(hamlet)
        .locator("input.integration-event")
        .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value)),
    ).toEqual(sorted);
    const query = async () => new URL((await dialog(hamlet).locator(".integration-url").textContent())!).searchParams;
    await dialog(hamlet).locator(".check-all").click();
    await expect.poll(async () => JSON.parse((await query()).get("only_events") ?? "null")).toEqual(sorted);
    await dialog(hamlet).locator(".uncheck-all").click();
    await dialog(hamlet).locator(`input.integration-event[value="${sorted[1]}"]`).check();
    await expect.poll(async () => JSON.parse((await query()).get("only_events") ?? "null")).toEqual([sorted[1]]);
    expect(await dialog(hamlet).locator(".copy-url").isDisabled()).toBe(false);
    // Its own options: a checkbox adds key=true, a text field its text.
    const options = dialog(hamlet).locator(".integration-url-parameter");
    for (let i = 0; i < (await options.count()); i++) {
      const option = options.nth(i);
      const key = (await option.getAttribute("name"))!;
      if ((await option.getAttribute("type")) === "checkbox") {
        await option.check();
        await expect.poll(async () => (await query()).get(key)).toBe("true");
      } else {
        await option.fill("main,dev");
        await expect.poll(async () => (await query()).get(key)).toBe("main,dev");
      }
    }
    expect((await query()).get("api_key")).toBe(bot.api_key);
    await screenshots(hamlet, "integration-url-events", () => dialog(hamlet));
    await hamlet.keyboard.press("Escape");
    await expect.poll(() => dialog(hamlet).count()).toBe(0);
  });

  it("shows the catalog and an integration's page signed out, and searches it", async () => {
    const context = await web.browser.newContext({ viewport: SIZES[0] });
    const visitor = await context.newPage();
    try {
      await visitor.goto(`${web.server.baseUrl}/integrations/`);
      expect(await visitor.locator("h1").textContent()).toBe("Integrations");
      const names = () => visitor.locator(".integration .integration-name").allTextContents();
      expect(await names()).toEqual(expect.arrayContaining(["JSON formatter", "Slack-compatible webhook"]));
      await screenshots(visitor, "integrations-catalog");
      expect(await axeScanBothSchemes(visitor)).toEqual([]);
      await visitor.fill("#integration-search", "slack");
      await visitor.press("#integration-search", "Enter");
      await visitor.waitForURL(/\?q=slack$/);
      expect(await names()).toEqual(["Slack-compatible webhook"]);
      await visitor.click(".integration a");
      await visitor.waitForURL(/\/integrations\/doc\/slack_incoming$/);
      expect(await visitor.locator("h1").textContent()).toBe("Slack-compatible webhook");
      expect(await visitor.locator(".webhook-url").textContent()).toBe(`${web.server.baseUrl}/api/v1/external/slack_incoming?api_key=…&stream=…`);
      await screenshots(visitor, "integrations-doc");
      expect(await axeScanBothSchemes(visitor)).toEqual([]);
      await visitor.click("a[href='/integrations/category/communication']");
      expect(await visitor.locator("h1").textContent()).toBe("Communication integrations");
    } finally {
      await context.close();
    }
  });
});
