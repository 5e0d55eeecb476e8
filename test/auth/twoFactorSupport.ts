import { Secret, TOTP } from "otpauth";
import { expect, vi } from "vitest";
import { PageBrowser } from "../support/pageBrowser.js";

/** A page browser that also answers the sign-in's second step. */
export class TwoFactorBrowser extends PageBrowser {
  /** The second step's form with a code. */
  sendCode(html: string, code: string) {
    return this.post("/accounts/login/", html, { "two_factor_login_view-current_step": "token", "token-otp_token": code });
  }
}

/** The key the setup page shows (spaces removed). */
export const secretIn = (html: string) => (/<code class="secret">([^<]+)<\/code>/.exec(html)?.[1] ?? "").replace(/\s/g, "");

/** The backup codes a page shows. */
export const backupCodesIn = (html: string) => [...html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1] ?? "");

/** The app's code for the key at the (possibly faked) current time. */
export const codeFor = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() });

/** Moves the faked clock (Date only) on by `seconds`: the next time step's code is a new one. */
export function advanceClock(seconds: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

/** Sets up two-factor authentication for the browser's signed-in user; returns the key and the backup codes. */
export async function enrol(browser: PageBrowser): Promise<{ secret: string; backupCodes: string[] }> {
  const setup = await browser.get("/account/two_factor/setup/");
  expect(setup.status).toBe(200);
  const secret = secretIn(setup.html);
  const done = await browser.post("/account/two_factor/setup/", setup.html, { otp_token: codeFor(secret) });
  expect(done.status).toBe(200);
  const backupCodes = backupCodesIn(done.html);
  expect(backupCodes).toHaveLength(10);
  return { secret, backupCodes };
}
