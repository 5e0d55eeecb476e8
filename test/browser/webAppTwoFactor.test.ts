import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { chromiumFound } from "../support/browser.js";
import { useWebApp } from "../support/webApp.js";

// Two-factor authentication in a real Chromium: from the web app's Account & privacy settings to
// the setup page (QR code as a data: image under the pages' CSP), then the login form's second step.
const web = useWebApp();
const shots = process.env.PARLEY_SCREENSHOTS;

const codeAt = (secret: string, timestamp: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp });

/** A moment at least 3 seconds from a 30-second step's boundary (the server's clock is this machine's). */
async function awayFromStepBoundary(): Promise<void> {
  while (Date.now() % 30_000 > 27_000) await new Promise((resolve) => setTimeout(resolve, 250));
}

async function shot(page: Page, name: string): Promise<void> {
  if (shots) await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true });
}

describe.skipIf(!chromiumFound)("two-factor authentication in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("sets up an authenticator app from the settings, then needs its code to log in", async () => {
    const page = await web.signIn("King Hamlet");
    const csp: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) csp.push(message.text());
    });
    await page.evaluate(() => (location.hash = "#settings/account-and-privacy"));
    await page.getByRole("link", { name: "Set up or manage two-factor authentication" }).click();
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    await page.getByRole("link", { name: "Set up two-factor authentication" }).click();
    await page.getByRole("heading", { name: "Set up two-factor authentication" }).waitFor();
    // The QR code is drawn (a data: image the CSP allows).
    const qrWidth = await page.locator("img.qr").evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));
    expect(qrWidth).toBeGreaterThan(0);
    await shot(page, "two-factor-setup");

    const secret = ((await page.locator("code.secret").textContent()) ?? "").replace(/\s/g, "");
    await awayFromStepBoundary();
    // The previous step's code (accepted one step late), so that the login below has a fresh one.
    await page.getByLabel("Code").fill(codeAt(secret, Date.now() - 30_000));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Two-factor authentication is on" }).waitFor();
    expect(await page.locator(".backup-codes li").count()).toBe(10);
    await shot(page, "two-factor-backup-codes");
    expect(csp).toEqual([]);
    await page.context().close();

    const context = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const login = await context.newPage();
    await login.goto(`${web.server.baseUrl}/login/`);
    await login.getByLabel("Email").fill("hamlet@zulip.com");
    await login.getByLabel("Password").fill(DEV_PASSWORD);
    await login.getByRole("button", { name: "Log in" }).click();
    await login.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    await shot(login, "two-factor-login");
    // No session yet: the app is not reachable.
    expect((await login.request.get(`${web.server.baseUrl}/json/users/me`)).status()).toBe(401);
    await login.getByLabel("Code").fill("000000" === codeAt(secret, Date.now()) ? "111111" : "000000");
    await login.getByRole("button", { name: "Verify" }).click();
    await login.getByRole("alert").waitFor();
    await login.getByLabel("Code").fill(codeAt(secret, Date.now()));
    await login.getByRole("button", { name: "Verify" }).click();
    await login.waitForSelector(".sidebar .channels", { state: "attached" });
    expect(new URL(login.url()).pathname).toBe("/");
    await context.close();
  });
});
