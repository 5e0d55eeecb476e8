import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeScan } from "../support/axe.js";
import { CHROMIUM, chromiumFound } from "../support/browser.js";
import { useSmtpSink } from "../support/smtpSink.js";
import { useTestServer } from "../support/testApp.js";

// Creating an organization at /new/ in a real Chromium that resolves the root domain and its
// subdomains to the test server: the address, the emailed link, the form, and the redirect to
// the new organization's own host (which the page's Content-Security-Policy must allow).
const ROOT = "parley.test";
const smtp = useSmtpSink();
const t = useTestServer(Object.assign(smtp.overrides, { rootDomain: ROOT, organizationSignup: true }));
/** With PARLEY_SCREENSHOTS=<folder>: the two pages, light and dark, saved there. */
const shots = process.env.PARLEY_SCREENSHOTS;
let browser: Browser;

describe.skipIf(!chromiumFound)("organization sign-up in Chromium", () => {
  beforeAll(async () => {
    // The links and the redirect name the server's real port.
    const port = new URL(t.baseUrl).port;
    t.ctx.config.externalUrl = `http://${ROOT}:${port}`;
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        `--host-resolver-rules=MAP ${ROOT} 127.0.0.1, MAP *.${ROOT} 127.0.0.1`,
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("goes from the address to the new organization's login page", async () => {
    const base = t.ctx.config.externalUrl;
    for (const theme of shots ? (["light", "dark"] as const) : (["light"] as const)) {
      const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, colorScheme: theme });
      const page = await context.newPage();
      await page.goto(`${base}/new/`);
      if (shots) await page.screenshot({ path: `${shots}/new-organization-email-${theme}.png` });
      expect(await axeScan(page)).toEqual([]);
      const email = `owner-${theme}@example.test`;
      await page.getByLabel("Email").fill(email);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("heading", { name: "Check your email" }).waitFor();
      await t.drainJobs();
      const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes(email), 20_000);
      const link = /<(http:\/\/parley\.test:\d+\/new\/confirm\/[A-Za-z0-9]+\/)>/.exec(mail.parsed.text ?? "")?.[1];
      expect(link, mail.parsed.text).toBeDefined();

      await page.goto(link!);
      await page.getByLabel("Organization name").fill("Lemur Labs");
      await page.getByLabel("Organization URL").fill("ab");
      await page.getByLabel("Your name").fill("Lena Lemur");
      await page.getByLabel("Password").fill("a long secret");
      await page.getByRole("button", { name: "Create organization" }).click();
      expect(await page.locator("#realm_subdomain-error").textContent()).toBe("Subdomain needs to have length 3 or greater.");
      if (shots) await page.screenshot({ path: `${shots}/new-organization-form-${theme}.png`, fullPage: true });
      expect(await axeScan(page)).toEqual([]);

      await page.getByLabel("Organization URL").fill(`lemur-${theme}`);
      await page.getByLabel("Password").fill("a long secret");
      await page.getByRole("button", { name: "Create organization" }).click();
      await page.waitForURL(`http://lemur-${theme}.${ROOT}:${new URL(base).port}/login/`);
      await context.close();
    }
  }, 120_000);
});
