import { afterEach, describe, expect, it, vi } from "vitest";
import { group } from "../src/util/defined.js";
import { PASSWORD_RESET_SECONDS } from "../src/actions/passwordReset.js";
import { DEV_PASSWORD } from "../src/dev/seed.js";
import { useSmtpSink, type ReceivedEmail } from "./support/smtpSink.js";
import { expectSuccess, type TestServer, useTestServer } from "./support/testApp.js";
import { postLoginForm } from "./support/webLogin.js";
import { csrfTokenIn, PageBrowser } from "./support/pageBrowser.js";

// "Forgot your password?": /accounts/password/reset/ and the emailed link, as a browser and a mail client see them.
const smtp = useSmtpSink();
const t = useTestServer(smtp.overrides);
const limitedSmtp = useSmtpSink();
const limited = useTestServer(
  Object.assign(limitedSmtp.overrides, {
    trustedProxies: ["127.0.0.1"],
    rateLimits: {
      enabled: true,
      user: { max: 10_000, windowSeconds: 60 },
      ip: { max: 10_000, windowSeconds: 60 },
      login: { max: 100, windowSeconds: 1800 },
      email: { max: 3, windowSeconds: 3600 },
    },
  }),
);

afterEach(() => {
  vi.useRealTimers();
});

/** Asks for a reset of `email` as a browser does; returns the answer to the POST. */
async function requestReset(server: TestServer, email: string, headers: Record<string, string> = {}) {
  return new PageBrowser(server, headers).submit("/accounts/password/reset/", { email });
}

/** The email the server sent to `to` after `since` emails had arrived, once the job ran. */
async function mailTo(
  server: TestServer,
  sink: () => { waitFor: (p: (m: ReceivedEmail) => boolean) => Promise<ReceivedEmail>; messages: ReceivedEmail[] },
  to: string,
  since: number,
) {
  await server.drainJobs();
  return sink().waitFor((m) => sink().messages.indexOf(m) >= since && m.rcptTo.includes(to) && /^Reset your password/.test(m.parsed.subject ?? ""));
}

/** The link path of a reset email (on the test server's address in place of the configured external URL). */
function linkIn(mail: ReceivedEmail): string {
  const link = /http:\/\/localhost:9991(\/accounts\/password\/reset\/[A-Za-z0-9_-]+\/[A-Za-z0-9]{32}\/)/.exec(mail.parsed.text ?? "")?.[1];
  expect(link, mail.parsed.text).toBeDefined();
  return link!;
}

async function resetLinkFor(email: string): Promise<string> {
  const since = smtp.sink().messages.length;
  const posted = await requestReset(t, email);
  expect(posted.status).toBe(302);
  return linkIn(await mailTo(t, smtp.sink, email, since));
}

/** Posts the new-password form to `link` from a browser holding a valid form token (from the request page). */
async function postToLink(link: string, password: string) {
  const browser = new PageBrowser(t);
  const page = await browser.get("/accounts/password/reset/");
  return browser.request("POST", link, { csrfmiddlewaretoken: csrfTokenIn(page.html), new_password1: password, new_password2: password });
}

async function login(server: TestServer, email: string, password: string): Promise<number> {
  return (await postLoginForm(server.baseUrl, email, password, { headers: { Accept: "text/html" } })).status;
}

describe("GET /login/", () => {
  it("links to the password reset page", async () => {
    const page = await new PageBrowser(t).get("/login/");
    expect(page.html).toContain('<a href="/accounts/password/reset/">Forgot your password?</a>');
    const reset = await new PageBrowser(t).get("/accounts/password/reset/");
    expect(reset.status).toBe(200);
    expect(reset.html).toContain("<h1>Reset your password</h1>");
    expect(reset.html).toMatch(/<input id="email" type="email" name="email"/);
  });
});

describe("POST /accounts/password/reset/", () => {
  it("emails a link that sets a new password once; the old password stops working, sessions end, the API key stays", async () => {
    const othello = await t.user("othello");
    // A browser signed in as Othello before the reset.
    const signedIn = await postLoginForm(t.baseUrl, othello.delivery_email, DEV_PASSWORD);
    expect(signedIn.status).toBe(302);
    const session = signedIn.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    expect((await fetch(`${t.baseUrl}/json/users/me`, { headers: { Cookie: session } })).status).toBe(200);

    const since = smtp.sink().messages.length;
    const posted = await requestReset(t, "Othello@Zulip.com");
    expect(posted.status).toBe(302);
    expect(posted.res.headers.get("location")).toBe("/accounts/password/reset/done/");
    const done = await new PageBrowser(t).get("/accounts/password/reset/done/");
    expect(done.html).toContain("<h1>Check your email</h1>");

    const mail = await mailTo(t, smtp.sink, othello.delivery_email, since);
    expect(mail.parsed.subject).toBe("Reset your password for Zulip Dev");
    const link = linkIn(mail);

    const browser = new PageBrowser(t);
    const form = await browser.get(link);
    expect(form.status).toBe(200);
    expect(form.html).toContain("<h1>Choose a new password</h1>");
    expect(form.html).toContain(`value="${othello.delivery_email}" readonly`);
    const token = csrfTokenIn(form.html);

    const mismatch = await browser.request("POST", link, { csrfmiddlewaretoken: token, new_password1: "a-new-password", new_password2: "another-one" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.html).toContain('role="alert">The two password fields didn’t match.</p>');
    const weak = await browser.request("POST", link, { csrfmiddlewaretoken: token, new_password1: "abc", new_password2: "abc" });
    expect(weak.status).toBe(400);
    expect(weak.html).toContain('role="alert">The password is too weak.</p>');
    expect(await login(t, othello.delivery_email, DEV_PASSWORD)).toBe(302);

    const set = await browser.request("POST", link, { csrfmiddlewaretoken: token, new_password1: "moor-of-venice", new_password2: "moor-of-venice" });
    expect(set.status).toBe(302);
    expect(set.res.headers.get("location")).toBe("/accounts/password/done/");
    const complete = await browser.get("/accounts/password/done/");
    expect(complete.html).toContain("<h1>Password reset complete</h1>");
    expect(complete.html).toContain('<a href="/login/">Log in</a>');

    expect(await login(t, othello.delivery_email, "moor-of-venice")).toBe(302);
    expect(await login(t, othello.delivery_email, DEV_PASSWORD)).toBe(401);
    // The session opened before the reset is over (Zulip: a new password ends every session); the API key still works.
    expect((await fetch(`${t.baseUrl}/json/users/me`, { headers: { Cookie: session } })).status).toBe(401);
    expectSuccess(await t.get("othello", "/api/v1/users/me"));

    // The link worked once: neither its page nor its form works again.
    const reused = await new PageBrowser(t).get(link);
    expect(reused.status).toBe(404);
    expect(reused.html).toContain('role="alert">This password reset link is invalid, has expired, or has already been used.</p>');
    expect((await postToLink(link, "second-try")).status).toBe(404);
    expect(await login(t, othello.delivery_email, "moor-of-venice")).toBe(302);
  });

  it("answers the same for an unknown address, which gets the no-account email and no link", async () => {
    const since = smtp.sink().messages.length;
    const posted = await requestReset(t, "nobody@example.com");
    expect(posted.status).toBe(302);
    expect(posted.res.headers.get("location")).toBe("/accounts/password/reset/done/");
    const mail = await mailTo(t, smtp.sink, "nobody@example.com", since);
    expect(mail.parsed.text).toContain("you do not have an active account");
    expect(mail.parsed.text).not.toContain("/accounts/password/reset/");
  });

  it("tells a deactivated account so, with no link; a link made before the deactivation stops working", async () => {
    const link = await resetLinkFor("aaron@zulip.com");
    const aaron = await t.user("aaron");
    expectSuccess(await t.request("DELETE", "iago", `/api/v1/users/${aaron.id}`));
    expect((await new PageBrowser(t).get(link)).status).toBe(404);

    const since = smtp.sink().messages.length;
    expect((await requestReset(t, "aaron@zulip.com")).status).toBe(302);
    const mail = await mailTo(t, smtp.sink, "aaron@zulip.com", since);
    expect(mail.parsed.text).toContain("has been deactivated");
    expect(mail.parsed.text).not.toContain("/accounts/password/reset/");
  });

  it("sends a bot's address no link", async () => {
    const bot = await t.ctx.db.kysely.selectFrom("users").select("delivery_email").where("is_bot", "=", 1).where("is_active", "=", 1).executeTakeFirstOrThrow();
    const since = smtp.sink().messages.length;
    expect((await requestReset(t, bot.delivery_email)).status).toBe(302);
    const mail = await mailTo(t, smtp.sink, bot.delivery_email, since);
    expect(mail.parsed.text).not.toContain("/accounts/password/reset/");
  });

  it("refuses an invalid address on the form, sending nothing", async () => {
    const posted = await requestReset(t, "not an address");
    expect(posted.status).toBe(400);
    expect(posted.html).toContain('role="alert">Enter a valid email address.</p>');
  });

  it("refuses a form without its CSRF token (403), sending nothing and changing nothing", async () => {
    const since = smtp.sink().messages.length;
    const browser = new PageBrowser(t);
    await browser.get("/accounts/password/reset/");
    const noToken = await browser.request("POST", "/accounts/password/reset/", { email: "hamlet@zulip.com" });
    expect(noToken.status).toBe(403);
    expect(noToken.html).toContain("CSRF verification failed");
    const noCookie = await new PageBrowser(t).request("POST", "/accounts/password/reset/", { email: "hamlet@zulip.com", csrfmiddlewaretoken: "x".repeat(32) });
    expect(noCookie.status).toBe(403);

    const link = await resetLinkFor("desdemona@zulip.com");
    const page = new PageBrowser(t);
    await page.get(link);
    const forged = await page.request("POST", link, { new_password1: "stolen-password", new_password2: "stolen-password" });
    expect(forged.status).toBe(403);
    expect(await login(t, "desdemona@zulip.com", DEV_PASSWORD)).toBe(302);
    await t.drainJobs();
    expect(
      smtp
        .sink()
        .messages.slice(since)
        .filter((m) => m.rcptTo.includes("hamlet@zulip.com")),
    ).toEqual([]);
    // The link still works after the refused posts.
    expect((await new PageBrowser(t).get(link)).status).toBe(200);
  });
});

describe("GET /accounts/password/reset/<uid>/<token>/", () => {
  it("expires after 3 days (Django's PASSWORD_RESET_TIMEOUT, kept by Zulip)", async () => {
    const link = await resetLinkFor("cordelia@zulip.com");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + (PASSWORD_RESET_SECONDS - 60) * 1000);
    expect((await new PageBrowser(t).get(link)).status).toBe(200);
    vi.setSystemTime(Date.now() + 120 * 1000);
    const page = await new PageBrowser(t).get(link);
    expect(page.status).toBe(404);
    expect(page.html).toContain("has expired");
    expect((await postToLink(link, "too-late-now")).status).toBe(404);
    vi.useRealTimers();
    expect(await login(t, "cordelia@zulip.com", DEV_PASSWORD)).toBe(302);
  });

  it("dies when the password changes another way", async () => {
    const link = await resetLinkFor("prospero@zulip.com");
    expect((await new PageBrowser(t).get(link)).status).toBe(200);
    expectSuccess(await t.request("PATCH", "prospero", "/api/v1/settings", { old_password: DEV_PASSWORD, new_password: "the-tempest" }));
    expect((await new PageBrowser(t).get(link)).status).toBe(404);
    expect((await postToLink(link, "x-y-z-w-v")).status).toBe(404);
    expect(await login(t, "prospero@zulip.com", "the-tempest")).toBe(302);
  });

  it("refuses tokens and user ids that were never sent", async () => {
    const link = await resetLinkFor("shiva@zulip.com");
    const match = /\/reset\/([^/]+)\/([^/]+)\/$/.exec(link)!;
    const [uid, token] = [group(match, 1), group(match, 2)];
    const hamletUid = Buffer.from(String((await t.user("hamlet")).id)).toString("base64url");
    for (const path of [
      `/accounts/password/reset/${hamletUid}/${token}/`,
      `/accounts/password/reset/${uid}/${"A".repeat(32)}/`,
      `/accounts/password/reset/${uid}/${token.slice(0, 31)}/`,
      `/accounts/password/reset/!!/${token}/`,
    ]) {
      expect((await new PageBrowser(t).get(path)).status, path).toBe(404);
    }
    expect((await new PageBrowser(t).get(link)).status).toBe(200);
  });
});

describe("rate limits", () => {
  it("limits requests per address and per IP, with the same answer for known and unknown addresses", async () => {
    const from = (ip: string) => ({ "X-Forwarded-For": ip });
    const rule = limited.ctx.config.rateLimits.email;
    for (let i = 0; i < rule.max; i++) expect((await requestReset(limited, "hamlet@zulip.com", from("10.0.0.1"))).status).toBe(302);
    const over = await requestReset(limited, "hamlet@zulip.com", from("10.0.0.1"));
    expect(over.status).toBe(429);
    expect(Number(over.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.html).toMatch(/Try again in \d+ seconds\./);
    // The address is limited from another IP too; another address from that IP is not.
    expect((await requestReset(limited, "hamlet@zulip.com", from("10.0.0.2"))).status).toBe(429);
    expect((await requestReset(limited, "nobody@example.com", from("10.0.0.2"))).status).toBe(302);
    // The first IP is limited for any address.
    expect((await requestReset(limited, "someone@example.com", from("10.0.0.1"))).status).toBe(429);
    await limited.drainJobs();
    const toHamlet = limitedSmtp.sink().messages.filter((m) => m.rcptTo.includes("hamlet@zulip.com"));
    expect(toHamlet).toHaveLength(rule.max);
  });
});
