import { afterEach, describe, expect, it, vi } from "vitest";
import { useTestServer } from "../support/testApp.js";
import { advanceClock, codeFor, enrol, TwoFactorBrowser } from "./twoFactorSupport.js";

// Two-factor authentication with the rate limits on, and on a server that does not offer it.
const limited = useTestServer({
  trustedProxies: ["127.0.0.1"],
  rateLimits: {
    enabled: true,
    user: { max: 10_000, windowSeconds: 60 },
    ip: { max: 10_000, windowSeconds: 60 },
    login: { max: 3, windowSeconds: 1800 },
    email: { max: 100, windowSeconds: 3600 },
  },
});
const off = useTestServer({ twoFactor: false });

afterEach(() => {
  vi.useRealTimers();
});

const wrongCode = (secret: string) => (codeFor(secret) === "000000" ? "111111" : "000000");

describe("two-factor authentication: rate limits", () => {
  it("refuses codes, even the right one, after too many wrong ones (429 with Retry-After)", async () => {
    const setup = new TwoFactorBrowser(limited);
    expect((await setup.logIn("hamlet@zulip.com")).status).toBe(302);
    const { secret } = await enrol(setup);
    advanceClock(31);

    const browser = new TwoFactorBrowser(limited);
    let step = await browser.logIn("hamlet@zulip.com");
    expect(step.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const wrong = await browser.sendCode(step.html, wrongCode(secret));
      expect(wrong.status).toBe(400);
      step = wrong;
    }
    const blocked = await browser.sendCode(step.html, codeFor(secret));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.html).toContain("Too many attempts");
    expect(browser.hasSession()).toBe(false);
    expect(await browser.ownUserStatus()).toBe(401);

    // The limit is the user's, not the browser's: another login of the same user waits too.
    advanceClock(30);
    const other = new TwoFactorBrowser(limited);
    const again = await other.logIn("hamlet@zulip.com");
    expect((await other.sendCode(again.html, codeFor(secret))).status).toBe(429);

    // After the window (and the pending login's ten minutes), a new login with the right code works.
    advanceClock(1801);
    expect((await browser.sendCode(step.html, codeFor(secret))).status).toBe(400);
    const later = await browser.logIn("hamlet@zulip.com");
    expect((await browser.sendCode(later.html, codeFor(secret))).status).toBe(302);
    expect(await browser.ownUserStatus()).toBe(200);
  });
});

describe("two-factor authentication off on the server (PARLEY_TWO_FACTOR=0)", () => {
  it("has no pages and asks no one for a code", async () => {
    const browser = new TwoFactorBrowser(off);
    expect((await browser.logIn("hamlet@zulip.com")).status).toBe(302);
    expect((await browser.get("/account/two_factor/")).status).toBe(404);
    expect((await browser.get("/account/two_factor/setup/")).status).toBe(404);
  });
});
