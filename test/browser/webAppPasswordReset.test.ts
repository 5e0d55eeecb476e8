import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { type SmtpSink, startSmtpSink } from "../support/smtpSink.js";
import { useWebApp } from "../support/webApp.js";

// "Forgot your password?" in a real Chromium: from the login page to the emailed link, a new
// password, and signing in with it.
const web = useWebApp();
let smtp: SmtpSink;
const shots = process.env.PARLEY_SCREENSHOTS;

const SIZES = [
  { name: "1280", viewport: { width: 1280, height: 800 } },
  { name: "1024", viewport: { width: 1024, height: 768 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

/** Screenshots of the page at `path` at every width in both themes (with PARLEY_SCREENSHOTS=1). */
async function screenshots(browser: Browser, view: string, path: string): Promise<void> {
  for (const size of SIZES) {
    for (const theme of ["light", "dark"] as const) {
      const context = await browser.newContext({ viewport: size.viewport, colorScheme: theme });
      const page = await context.newPage();
      await page.goto(web.server.baseUrl + path);
      await page.screenshot({ path: `docs/screenshots/${view}-${size.name}-${theme}.png` });
      await context.close();
    }
  }
}

describe.skipIf(!chromiumFound)("password reset in Chromium", () => {
  beforeAll(async () => {
    smtp = await startSmtpSink();
    await web.setUp({ PARLEY_SMTP_URL: smtp.url });
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
    await smtp?.close();
  });

  it("goes from the login page's link to the emailed link, a new password, and the app", async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${web.server.baseUrl}/login/`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
    await page.getByLabel("Email").fill("cordelia@zulip.com");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();

    const mail = await smtp.waitFor((m) => m.rcptTo.includes("cordelia@zulip.com") && /^Reset your password/.test(m.parsed.subject ?? ""), 20_000);
    const link = /<(http:\/\/127\.0\.0\.1:\d+\/accounts\/password\/reset\/[^>\s]+)>/.exec(mail.parsed.text ?? "")?.[1];
    expect(link, mail.parsed.text).toBeDefined();
    if (shots) await screenshots(web.browser, "password-reset-form", new URL(link!).pathname);

    await page.goto(link!);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.getByLabel("New password", { exact: true }).fill("lear-s-daughter");
    await page.getByLabel("Confirm new password").fill("lear-s-daughter");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("heading", { name: "Password reset complete" }).waitFor();

    // The link is spent.
    const again = await page.request.get(link!);
    expect(again.status()).toBe(404);

    await page.getByRole("link", { name: "Log in" }).click();
    await page.getByLabel("Email").fill("cordelia@zulip.com");
    await page.getByLabel("Password").fill("lear-s-daughter");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForSelector(".sidebar .channels", { state: "attached" });
    expect(new URL(page.url()).pathname).toBe("/");
    await context.close();

    if (shots) {
      await screenshots(web.browser, "password-reset", "/accounts/password/reset/");
      await screenshots(web.browser, "password-reset-done", "/accounts/password/reset/done/");
      await screenshots(web.browser, "login", "/login/");
    }
  }, 180_000);
});
