import { afterEach, describe, expect, it, vi } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { useTestServer } from "../support/testApp.js";
import { advanceClock, backupCodesIn, codeFor, enrol, TwoFactorBrowser, secretIn } from "./twoFactorSupport.js";

// Two-factor authentication (TOTP) as a browser meets it: the pages under /account/two_factor/
// and the login form's second step. Each test uses its own user, so their devices do not meet.
const t = useTestServer();

afterEach(() => {
  vi.useRealTimers();
});

/** A browser signed in (password only) as `email`, with two-factor authentication set up. */
async function enrolled(email: string) {
  const browser = new TwoFactorBrowser(t);
  expect((await browser.logIn(email)).status).toBe(302);
  const device = await enrol(browser);
  advanceClock(31); // the code used to confirm is spent: the next login needs the next step's
  return { browser, ...device };
}

describe("two-factor authentication: setting it up", () => {
  it("shows a QR code of an otpauth URL (issuer the organization, account the email) and the key; a code from the app turns it on", async () => {
    const browser = new TwoFactorBrowser(t);
    expect((await browser.logIn("hamlet@zulip.com")).status).toBe(302);
    const profile = await browser.get("/account/two_factor/");
    expect(profile.status).toBe(200);
    expect(profile.html).toContain("is <strong>off</strong>");

    const setup = await browser.get("/account/two_factor/setup/");
    expect(setup.status).toBe(200);
    expect(setup.res.headers.get("content-security-policy")).toContain("img-src 'self' data:");
    expect(setup.html).toMatch(/<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+"/);
    const uri = /alt="QR code of ([^"]+)"/.exec(setup.html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    const url = new URL(uri);
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(decodeURIComponent(url.pathname)).toBe("/Zulip Dev:hamlet@zulip.com");
    expect(url.searchParams.get("issuer")).toBe("Zulip Dev");
    const secret = secretIn(setup.html);
    expect(url.searchParams.get("secret")).toBe(secret);

    // A wrong code keeps the same key on the page; the right one turns it on and shows ten backup codes once.
    const wrong = await browser.post("/account/two_factor/setup/", setup.html, { otp_token: "000000" === codeFor(secret) ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(secretIn(wrong.html)).toBe(secret);
    const done = await browser.post("/account/two_factor/setup/", wrong.html, { otp_token: codeFor(secret) });
    expect(done.status).toBe(200);
    const codes = backupCodesIn(done.html);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const after = await browser.get("/account/two_factor/");
    expect(after.html).toContain("is <strong>on</strong>");
    expect(after.html).toContain("10 backup codes left");
    expect(after.html).not.toContain(codes[0]);
    // Setting up again while on leads back to the state page, keeping the device.
    expect((await browser.get("/account/two_factor/setup/")).status).toBe(302);
  });

  it("keeps the key out of the database in the clear and out of every API answer", async () => {
    const { secret, backupCodes } = await enrolled("cordelia@zulip.com");
    const user = await t.user("cordelia@zulip.com");
    const row = await t.ctx.db.kysely.selectFrom("user_two_factor").selectAll().where("user_id", "=", user.id).executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(secret);
    for (const code of backupCodes) expect(row.backup_codes).not.toContain(code.replace("-", ""));
    const register = await t.post("cordelia", "/api/v1/register", {});
    expect(JSON.stringify(register.body)).not.toContain(secret);
  });

  it("refuses a page form without the session's CSRF token, and sends a visitor without a session to the login page", async () => {
    const browser = new TwoFactorBrowser(t);
    expect((await browser.logIn("othello@zulip.com")).status).toBe(302);
    const setup = await browser.get("/account/two_factor/setup/");
    const forged = await browser.request("POST", "/account/two_factor/setup/", { otp_token: codeFor(secretIn(setup.html)) });
    expect(forged.status).toBe(403);
    const stranger = new TwoFactorBrowser(t);
    const redirected = await stranger.get("/account/two_factor/");
    expect(redirected.status).toBe(302);
    expect(redirected.res.headers.get("location")).toBe("/login/");
  });
});

describe("two-factor authentication: the login form's second step", () => {
  it("asks for a code after the right password, starts no session until it comes, then signs in", async () => {
    const { secret } = await enrolled("iago@zulip.com");
    const browser = new TwoFactorBrowser(t);
    const step = await browser.logIn("iago@zulip.com");
    expect(step.status).toBe(200);
    expect(step.html).toContain("Two-factor authentication");
    expect(browser.hasSession()).toBe(false);
    // The pending step cannot be skipped.
    expect(await browser.ownUserStatus()).toBe(401);
    expect((await browser.get("/")).res.headers.get("location")).toBe("/login/");

    const done = await browser.sendCode(step.html, codeFor(secret));
    expect(done.status).toBe(302);
    expect(done.res.headers.get("location")).toBe("/");
    expect(browser.hasSession()).toBe(true);
    expect(await browser.ownUserStatus()).toBe(200);

    // POST /fetch_api_key (the mobile apps' password login) takes the password alone, as Zulip's api_fetch_api_key.
    const res = await t.post(null, "/api/v1/fetch_api_key", { username: "iago@zulip.com", password: DEV_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it("refuses a wrong code, and a code already used (the same time step), and starts no session", async () => {
    const { secret } = await enrolled("zoe@zulip.com");
    const first = new TwoFactorBrowser(t);
    const step = await first.logIn("zoe@zulip.com");
    const code = codeFor(secret);
    const wrong = await first.sendCode(step.html, code === "123456" ? "654321" : "123456");
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain("not valid");
    expect(first.hasSession()).toBe(false);
    expect((await first.sendCode(wrong.html, code)).status).toBe(302);

    // Another browser, the same code within the same step: a replay.
    const second = new TwoFactorBrowser(t);
    const again = await second.logIn("zoe@zulip.com");
    const replay = await second.sendCode(again.html, code);
    expect(replay.status).toBe(400);
    expect(second.hasSession()).toBe(false);
    expect(await second.ownUserStatus()).toBe(401);
    advanceClock(30);
    expect((await second.sendCode(replay.html, codeFor(secret))).status).toBe(302);
  });

  it("accepts each backup code once", async () => {
    const { backupCodes } = await enrolled("prospero@zulip.com");
    const code = backupCodes[3] ?? "";
    const browser = new TwoFactorBrowser(t);
    const step = await browser.logIn("prospero@zulip.com");
    expect((await browser.sendCode(step.html, code.toUpperCase())).status).toBe(302);

    const other = new TwoFactorBrowser(t);
    const again = await other.logIn("prospero@zulip.com");
    expect((await other.sendCode(again.html, code)).status).toBe(400);
    expect(other.hasSession()).toBe(false);
    const profile = await browser.get("/account/two_factor/");
    expect(profile.html).toContain("9 backup codes left");
  });

  it("binds the pending login to the browser that gave the password, and keeps the page's next", async () => {
    const { secret } = await enrolled("aaron@zulip.com");
    const browser = new TwoFactorBrowser(t);
    const next = "/#narrow/channel/1-general";
    const page = await browser.get(`/login/?next=${encodeURIComponent(next)}`);
    const step = await browser.post("/accounts/login/", page.html, { username: "aaron@zulip.com", password: DEV_PASSWORD, next });
    // Another browser with its own login form's CSRF token but not the pending login's cookie.
    const thief = new TwoFactorBrowser(t);
    const form = await thief.get("/login/");
    const stolen = await thief.sendCode(form.html, codeFor(secret));
    expect(stolen.status).toBe(400);
    expect(stolen.html).toContain("log in again");
    expect(thief.hasSession()).toBe(false);
    const done = await browser.sendCode(step.html, codeFor(secret));
    expect(done.status).toBe(302);
    expect(done.res.headers.get("location")).toBe(next);
  });

  it("expires the pending login after ten minutes", async () => {
    const { secret } = await enrolled("polonius@zulip.com");
    const browser = new TwoFactorBrowser(t);
    const step = await browser.logIn("polonius@zulip.com");
    advanceClock(11 * 60);
    const late = await browser.sendCode(step.html, codeFor(secret));
    expect(late.status).toBe(400);
    expect(browser.hasSession()).toBe(false);
  });
});

describe("two-factor authentication: new backup codes, turning it off, the organization's switch", () => {
  it("makes new backup codes after a fresh code (the old ones stop working) and turns off after one", async () => {
    const { browser, secret, backupCodes } = await enrolled("shiva@zulip.com");
    const form = await browser.get("/account/two_factor/backup/tokens/");
    expect(form.status).toBe(200);
    const made = await browser.post("/account/two_factor/backup/tokens/", form.html, { otp_token: codeFor(secret) });
    expect(made.status).toBe(200);
    const fresh = backupCodesIn(made.html);
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(backupCodes[0]);

    const other = new TwoFactorBrowser(t);
    const step = await other.logIn("shiva@zulip.com");
    const old = await other.sendCode(step.html, backupCodes[0] ?? "");
    expect(old.status).toBe(400);
    expect((await other.sendCode(old.html, fresh[0] ?? "")).status).toBe(302);

    advanceClock(30);
    const disable = await browser.get("/account/two_factor/disable/");
    expect((await browser.post("/account/two_factor/disable/", disable.html, { otp_token: "000000" === codeFor(secret) ? "111111" : "000000" })).status).toBe(
      400,
    );
    const off = await browser.post("/account/two_factor/disable/", disable.html, { otp_token: codeFor(secret) });
    expect(off.status).toBe(302);
    expect((await new TwoFactorBrowser(t).logIn("shiva@zulip.com")).status).toBe(302);
  });

  it("asks nobody for a code while an owner has turned it off for the organization; only owners may", async () => {
    const { secret } = await enrolled("othello@zulip.com");
    const owner = new TwoFactorBrowser(t);
    expect((await owner.logIn("desdemona@zulip.com")).status).toBe(302);
    const profile = await owner.get("/account/two_factor/");
    expect(profile.html).toContain("Turn off for the organization");

    // A member cannot.
    const member = new TwoFactorBrowser(t);
    const memberStep = await member.logIn("othello@zulip.com");
    expect((await member.sendCode(memberStep.html, codeFor(secret))).status).toBe(302);
    const memberPage = await member.get("/account/two_factor/");
    expect(memberPage.html).not.toContain("for the organization</button>");
    expect((await member.post("/account/two_factor/organization/", memberPage.html, { enabled: "false" })).status).toBe(403);
    expect((await new TwoFactorBrowser(t).logIn("othello@zulip.com")).status).toBe(200);

    expect((await owner.post("/account/two_factor/organization/", profile.html, { enabled: "false" })).status).toBe(302);
    const straight = new TwoFactorBrowser(t);
    expect((await straight.logIn("othello@zulip.com")).status).toBe(302);
    expect(await straight.ownUserStatus()).toBe(200);
    expect((await owner.get("/account/two_factor/setup/")).status).toBe(403);

    const turnedOff = await owner.get("/account/two_factor/");
    expect(turnedOff.html).toContain("Turn on for the organization");
    expect((await owner.post("/account/two_factor/organization/", turnedOff.html, { enabled: "true" })).status).toBe(302);
    expect((await new TwoFactorBrowser(t).logIn("othello@zulip.com")).status).toBe(200);
  });
});
