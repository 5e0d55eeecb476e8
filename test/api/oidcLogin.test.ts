import crypto, { createDecipheriv } from "node:crypto";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { CookieBrowser, jwtPayload, useOidcProvider } from "../support/oidcProvider.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

// Signing in through a real OpenID provider (oidc-provider on loopback), the redirect chain
// driven like a browser: the web session, Zulip's mobile and desktop app flows, account
// creation, and what must be refused.

const EXTERNAL_URL = "http://localhost:9991";
const idp = useOidcProvider([`${EXTERNAL_URL}/complete/oidc/`]);
const t = useTestServer();
const OTP = "ab".repeat(32);

function configure(extra: Record<string, unknown> = {}, more: Array<Record<string, unknown>> = []): void {
  const provider = idp.provider;
  t.ctx.config.auth = authSettingsSchema.parse({
    oidc: [
      { name: "corp", display_name: "Corp SSO", issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret, ...extra },
      ...more,
    ],
  });
}

function browser(): CookieBrowser {
  return new CookieBrowser((url) => url.replace(EXTERNAL_URL, t.baseUrl));
}

/** The session cookie's user, through GET /json/users/me. */
async function signedInAs(b: CookieBrowser): Promise<string | null> {
  const res = await b.fetch(`${t.baseUrl}/json/users/me`);
  if (res.status !== 200) return null;
  return ((await res.json()) as { email: string }).email;
}

/** Runs the flow from a login URL up to (not following) Parley's answer to the callback. */
async function signIn(b: CookieBrowser, path = "/accounts/login/social/oidc") {
  return b.follow(`${t.baseUrl}${path}`);
}

describe.skipIf(process.env.PARLEY_SKIP_OIDC === "1")("OpenID Connect sign-in", () => {
  it("signs an existing user in to a web session and goes to next", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("hamlet", { email: "Hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    idp.provider.loginAs = "hamlet";
    const b = browser();
    const { res, url, visited } = await signIn(b, "/accounts/login/social/oidc?next=/%23narrow/channel/1");
    expect(visited.some((u) => u.startsWith(idp.provider.issuer))).toBe(true);
    expect(visited.some((u) => u.includes("/complete/oidc/?"))).toBe(true);
    expect(url).toBe(`${t.baseUrl}/#narrow/channel/1`);
    expect(res.status).toBe(200);
    expect(await signedInAs(b)).toBe("hamlet@zulip.com");
  });

  it("sends the authorization request with PKCE (S256), state and nonce", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    const res = await browser().fetch(`${t.baseUrl}/accounts/login/social/oidc`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin).toBe(idp.provider.issuer);
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    expect(location.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get("state")).toBeTruthy();
    expect(location.searchParams.get("nonce")).toBeTruthy();
    expect(location.searchParams.get("redirect_uri")).toBe(`${EXTERNAL_URL}/complete/oidc/`);
    expect(location.searchParams.get("scope")).toBe("openid profile email");
  });

  it("refuses a callback with a wrong or missing state", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    for (const query of ["?code=abc&state=forged", "?code=abc", ""]) {
      const res = await browser().fetch(`${t.baseUrl}/complete/oidc/${query}`);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("Sign-in failed");
    }
  });

  it("takes a callback once: a replayed one is refused, even with the browser's state cookie back", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    idp.provider.loginAs = "hamlet";
    const b = browser();
    const { url: callback } = await b.follow(`${t.baseUrl}/accounts/login/social/oidc`, 20, /\/complete\/oidc\/\?/);
    const stateCookie = b.cookie("oidc_oauth_state")!;
    expect(stateCookie).toBeTruthy();
    expect((await b.fetch(callback)).status).toBe(302);
    expect(await signedInAs(b)).toBe("hamlet@zulip.com");
    const again = browser();
    again.setCookie("oidc_oauth_state", stateCookie);
    const replay = await again.fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("Sign-in failed");
    expect(await signedInAs(again)).toBeNull();
  });

  it("signs nobody in through a callback opened in another browser than the one that started", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("iago", { email: "iago@zulip.com", email_verified: true, name: "Iago" });
    idp.provider.loginAs = "iago";
    // Someone starts a sign-in as themselves and sends the callback link to another person.
    const starter = browser();
    const { url: callback } = await starter.follow(`${t.baseUrl}/accounts/login/social/oidc`, 20, /\/complete\/oidc\/\?/);
    const victim = browser();
    const res = await victim.fetch(callback);
    expect(res.status).toBe(400);
    expect(await signedInAs(victim)).toBeNull();
    // The flow was not used up by the refusal: the browser that started it finishes it.
    expect((await starter.fetch(callback)).status).toBe(302);
    expect(await signedInAs(starter)).toBe("iago@zulip.com");
  });

  it("refuses an ID token signed with another key", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    idp.provider.loginAs = "hamlet";
    const otherKey = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    idp.provider.rewriteIdToken = (token) => idp.provider.sign({ ...jwtPayload(token), email: "iago@zulip.com" }, otherKey);
    try {
      const b = browser();
      const { res, html } = await signIn(b);
      expect(res.status).toBe(403);
      expect(html).toContain("could not be verified");
      expect(await signedInAs(b)).toBeNull();
    } finally {
      idp.provider.rewriteIdToken = null;
    }
  });

  it("refuses an expired ID token, and accepts the same token re-signed while valid", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    idp.provider.loginAs = "hamlet";
    const now = Math.floor(Date.now() / 1000);
    idp.provider.rewriteIdToken = (token) => idp.provider.sign({ ...jwtPayload(token), iat: now - 7200, exp: now - 3600 });
    try {
      const b = browser();
      const { res } = await signIn(b);
      expect(res.status).toBe(403);
      expect(await signedInAs(b)).toBeNull();
      // The same forgery with a valid lifetime passes: what failed above was the expiry.
      idp.provider.rewriteIdToken = (token) => idp.provider.sign({ ...jwtPayload(token) });
      const again = browser();
      await signIn(again);
      expect(await signedInAs(again)).toBe("hamlet@zulip.com");
    } finally {
      idp.provider.rewriteIdToken = null;
    }
  });

  it("refuses an email the provider has not verified, unless the provider is set to accept it", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("unverified", { email: "othello@zulip.com", email_verified: false, name: "Othello" });
    idp.provider.loginAs = "unverified";
    const b = browser();
    const { res, html } = await signIn(b);
    expect(res.status).toBe(403);
    expect(html).toContain("Email not verified");
    expect(await signedInAs(b)).toBeNull();

    configure({ accept_unverified_email: true });
    const trusting = browser();
    await signIn(trusting);
    expect(await signedInAs(trusting)).toBe("othello@zulip.com");
  });

  it("refuses a deactivated user and creates nothing", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    const prospero = await t.user("prospero");
    expectSuccess(await t.delete("iago", `/api/v1/users/${prospero.id}`));
    try {
      idp.provider.accounts.set("prospero", { email: "prospero@zulip.com", email_verified: true, name: "Prospero" });
      idp.provider.loginAs = "prospero";
      const b = browser();
      const { res, html } = await signIn(b);
      expect(res.status).toBe(403);
      expect(html).toContain("deactivated");
      expect(await signedInAs(b)).toBeNull();
      const rows = await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", "prospero@zulip.com").execute();
      expect(rows).toHaveLength(1);
    } finally {
      expectSuccess(await t.post("iago", `/api/v1/users/${prospero.id}/reactivate`));
    }
  });

  it("refuses when the organization turned OpenID Connect off", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { "OpenID Connect": false, Email: true } }));
    try {
      idp.provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
      idp.provider.loginAs = "hamlet";
      const b = browser();
      const { res, html } = await signIn(b);
      expect(res.status).toBe(403);
      expect(html).toContain("does not allow signing in with OpenID Connect");
      expect(await signedInAs(b)).toBeNull();
    } finally {
      expectSuccess(await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { "OpenID Connect": true } }));
    }
  });

  it("sends the browser back to the login page when the person refuses at the provider", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.loginAs = null;
    const { url } = await signIn(browser());
    expect(new URL(url).pathname).toBe("/login/");
  });

  it("needs an invitation where the organization requires one, and uses a pending one", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("newcomer", { email: "newcomer@zulip.com", email_verified: true, name: "New Comer" });
    idp.provider.loginAs = "newcomer";
    const refused = await signIn(browser());
    expect(refused.res.status).toBe(403);
    expect(refused.html).toContain("Please request an invite for newcomer@zulip.com from the organization administrator.");
    expect(await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", "newcomer@zulip.com").execute()).toHaveLength(0);

    const denmark = await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", "Denmark").executeTakeFirstOrThrow();
    expectSuccess(await t.post("iago", "/api/v1/invites", { invitee_emails: "newcomer@zulip.com", stream_ids: [denmark.id], invite_as: 300 }));
    const b = browser();
    await signIn(b);
    expect(await signedInAs(b)).toBe("newcomer@zulip.com");
    const user = await t.user("newcomer@zulip.com");
    expect(user.full_name).toBe("New Comer");
    expect(user.role).toBe(300);
    expect(user.password_hash).toBeNull();
  });

  it("creates the account when the organization is open, named from the claims or the address", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    await t.withRealmSettings({ invite_required: false }, async () => {
      idp.provider.accounts.set("ann", { email: "ann.other@zulip.com", email_verified: true, name: "Ann Other" });
      idp.provider.accounts.set("bob", { email: "bob.noname@zulip.com", email_verified: true });
      for (const [id, email, name] of [
        ["ann", "ann.other@zulip.com", "Ann Other"],
        ["bob", "bob.noname@zulip.com", "bob.noname"],
      ] as const) {
        idp.provider.loginAs = id;
        const b = browser();
        await signIn(b, "/accounts/register/social/oidc");
        expect(await signedInAs(b)).toBe(email);
        expect((await t.user(email)).full_name).toBe(name);
      }
    });
  });

  it("ends the mobile app's flow in a zulip:// redirect with the OTP-encrypted API key", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    idp.provider.loginAs = "hamlet";
    const b = browser();
    const { res, url } = await signIn(b, `/accounts/login/social/oidc?mobile_flow_otp=${OTP}`);
    expect(res.status).toBe(302);
    expect(url.startsWith("zulip://login?otp_encrypted_api_key=")).toBe(true);
    const params = new URL(url).searchParams;
    expect([...params.keys()]).toEqual(["otp_encrypted_api_key", "email", "user_id", "realm"]);
    const hamlet = await t.user("hamlet");
    const key = Buffer.from(params.get("otp_encrypted_api_key")!, "hex").map((byte, i) => byte ^ Buffer.from(OTP, "hex")[i]!);
    expect(Buffer.from(key).toString()).toBe(hamlet.api_key);
    expect(params.get("email")).toBe("hamlet@zulip.com");
    expect(params.get("user_id")).toBe(String(hamlet.id));
    expect(params.get("realm")).toBe(EXTERNAL_URL);
    // No web session in the app flows.
    expect(await signedInAs(b)).toBeNull();
  });

  it("ends the desktop app's flow with an encrypted one-time login token the app redeems once", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    idp.provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    idp.provider.loginAs = "hamlet";
    const { res, html } = await signIn(browser(), `/accounts/login/social/oidc?desktop_flow_otp=${OTP}`);
    expect(res.status).toBe(200);
    // No icon was uploaded: no image from another origin (Zulip's gravatar identicon), which the
    // page's Content-Security-Policy would block.
    expect(html).not.toContain("gravatar");
    expect(html).not.toContain("<img");

    const data = Buffer.from(/id="desktop-data" type="text" readonly value="([0-9a-f]+)"/.exec(html)![1]!, "hex");
    const decipher = createDecipheriv("aes-256-gcm", Buffer.from(OTP, "hex"), data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const token = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]).toString();
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);

    const app = browser();
    const redeemed = await app.fetch(`${t.baseUrl}/accounts/login/subdomain/${token}`);
    expect(redeemed.status).toBe(302);
    expect(await signedInAs(app)).toBe("hamlet@zulip.com");
    expect((await browser().fetch(`${t.baseUrl}/accounts/login/subdomain/${token}`)).status).toBe(400);
    expect((await browser().fetch(`${t.baseUrl}/accounts/login/subdomain/not-a-token`)).status).toBe(400);

    // With an uploaded icon, the page shows it, from this server.
    const icon = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    expectSuccess(await t.upload("iago", "/api/v1/realm/icon", [{ field: "file-0", data: icon, type: "image/png", filename: "icon.png" }]));
    const withIcon = await signIn(browser(), `/accounts/login/social/oidc?desktop_flow_otp=${OTP}`);
    expect(withIcon.html).toMatch(/<img class="realm-icon" src="\/user_avatars\/\d+\/realm\/icon\.png\?version=\d+"/);
    expect(withIcon.html).not.toContain("gravatar");
  });

  it("refuses an OTP that is not 64 hex digits, or both flows at once", async (c) => {
    if (!idp.available()) return c.skip();
    configure();
    const bad = await t.get(null, "/accounts/login/social/oidc", { mobile_flow_otp: "1234" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ result: "error", msg: "Invalid OTP" });
    const both = await t.get(null, "/accounts/login/social/oidc", { mobile_flow_otp: OTP, desktop_flow_otp: OTP });
    expect(both.body).toMatchObject({ result: "error", msg: "Can't use both mobile_flow_otp and desktop_flow_otp together." });
  });

  it("serves further providers at /accounts/login/social/oidc/<name>", async (c) => {
    if (!idp.available()) return c.skip();
    const provider = idp.provider;
    configure({}, [{ name: "partner", issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret, display_name: "Partner" }]);
    provider.accounts.set("hamlet", { email: "hamlet@zulip.com", email_verified: true, name: "King Hamlet" });
    provider.loginAs = "hamlet";
    const b = browser();
    await signIn(b, "/accounts/login/social/oidc/partner");
    expect(await signedInAs(b)).toBe("hamlet@zulip.com");
    expect((await browser().fetch(`${t.baseUrl}/accounts/login/social/oidc/corp`)).status).toBe(404);
  });

  it("shows a page, not a 500, when the provider cannot be discovered", async (c) => {
    if (!idp.available()) return c.skip();
    t.ctx.config.auth = authSettingsSchema.parse({
      oidc: [{ name: "down", issuer: "http://127.0.0.1:9/realms/none", client_id: "x", client_secret: "y" }],
    });
    const res = await browser().fetch(`${t.baseUrl}/accounts/login/social/oidc`);
    expect(res.status).toBe(502);
    expect(await res.text()).toContain("Sign-in unavailable");
  });
});
