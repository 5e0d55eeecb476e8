import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error scripts/build.mjs is plain JavaScript without type declarations
import { build, isBuilt } from "../../scripts/build.mjs";
import { chromiumFound, launchChromium } from "../support/browser.js";
import { axeScan } from "../support/axe.js";
import { TestOidcProvider } from "../support/oidcProvider.js";
import { freePort } from "../support/process.js";
import { useWebApp } from "../support/webApp.js";

// Signing in with an OpenID provider in a real Chromium: the login page's button, the
// provider (oidc-provider on loopback), and the web app signed in; the organization's toggle.
const web = useWebApp();
const shots = process.env.PARLEY_SCREENSHOTS;
let provider: TestOidcProvider | undefined;
let closeBrowser: (() => Promise<void>) | undefined;
let providerStarted = false;

describe.skipIf(!chromiumFound)("OpenID Connect sign-in in Chromium", () => {
  beforeAll(async () => {
    if (!isBuilt()) await build();
    const port = await freePort();
    provider = new TestOidcProvider([`http://127.0.0.1:${port}/complete/oidc/`]);
    try {
      await provider.start();
      providerStarted = true;
    } catch (error) {
      console.warn(`OpenID provider could not start, the browser OIDC test is skipped: ${String(error)}`);
      return;
    }
    provider.accounts.set("cordelia", { email: "cordelia@zulip.com", email_verified: true, name: "Cordelia, Lear's daughter" });
    provider.loginAs = "cordelia";
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-oidc-")), "auth.json");
    const oidc = [{ name: "corp", display_name: "Corp SSO", issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret }];
    fs.writeFileSync(file, JSON.stringify({ oidc }));
    web.env = { ...(await web.servers.freshEnv()), PARLEY_AUTH_FILE: file };
    await web.startServer(port);
    ({ browser: web.browser, close: closeBrowser } = await launchChromium());
  }, 180_000);
  afterAll(async () => {
    await closeBrowser?.();
    await provider?.stop();
  });

  it("clicks the provider's button on the login page and ends signed in to the web app, on the link it came from", async (c) => {
    if (!providerStarted) return c.skip();
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    // Signed out, from a link to a channel: `/` sends the browser to /login/, the hash with it,
    // which the page's script adds to the button's next (/static/login.js).
    await page.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona`);
    expect(new URL(page.url()).pathname).toBe("/login/");
    const button = page.getByRole("link", { name: "Log in with Corp SSO" });
    await button.waitFor();
    expect(new URL((await button.getAttribute("href"))!, web.server.baseUrl).searchParams.get("next")).toBe("/#narrow/channel/1-Verona");
    expect(await axeScan(page)).toEqual([]);
    if (shots) {
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.screenshot({ path: `docs/screenshots/login-oidc-1280-${theme}.png` });
      }
      await page.emulateMedia({ colorScheme: "light" });
    }
    await button.click();
    await page.waitForSelector(".sidebar .channels", { state: "attached" });
    expect(new URL(page.url()).origin).toBe(web.server.baseUrl);
    const me = await page.evaluate(async () => (await (await fetch("/json/users/me")).json()) as { email: string });
    expect(me.email).toBe("cordelia@zulip.com");
    expect(new URL(page.url()).hash).toBe("#narrow/channel/1-Verona");
    await expect.poll(() => page.locator(".view-title").textContent()).toBe("#Verona");
    await context.close();
  });

  it("shows owners a checkbox per method in Organization settings", async (c) => {
    if (!providerStarted) return c.skip();
    const page = await web.signIn("Desdemona");
    await page.evaluate(() => (location.hash = "#organization/organization-settings"));
    const oidc = page.getByRole("checkbox", { name: "OpenID Connect" });
    await oidc.waitFor();
    expect(await oidc.isChecked()).toBe(true);
    await oidc.uncheck();
    const externalCount = () =>
      page.evaluate(
        async () =>
          ((await (await fetch("/api/v1/server_settings")).json()) as { external_authentication_methods: unknown[] }).external_authentication_methods.length,
      );
    await expect.poll(externalCount).toBe(0);
    if (shots) await page.screenshot({ path: "docs/screenshots/admin-auth-methods-1280-light.png" });
    await oidc.check();
    await expect.poll(externalCount).toBe(1);
    await page.context().close();
  });
});
