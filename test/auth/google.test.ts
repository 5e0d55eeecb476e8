import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { GoogleIssuer, type GoogleAccount } from "../support/googleIssuer.js";
import { browserFor, type ServerOverrides, signedInAs } from "../support/socialLogin.js";
import { useTestServer } from "../support/testApp.js";

// Sign-in with Google (Zulip's GoogleAuthBackend) against a real OpenID provider on loopback
// (oidc-provider as the issuer): discovery, PKCE, state and nonce, the ID token checked by
// openid-client, and Google's email_verified claim.

const hamlet: GoogleAccount = { sub: "108", email: "hamlet@zulip.com", email_verified: true, given_name: "Hamlet", family_name: "Dane" };
const google = new GoogleIssuer({ id: "google-client", secret: "google-secret", redirectUri: "http://localhost:9991/complete/google/" }, hamlet);
const overrides: ServerOverrides = {};
beforeAll(async () => {
  await google.start();
  overrides.auth = authSettingsSchema.parse({ google: { client_id: "google-client", client_secret: "google-secret", issuer: google.issuer } });
});
afterAll(() => google.stop());
const t = useTestServer(overrides);

describe("Google sign-in", () => {
  it("signs an existing user in with a session, with state, nonce and PKCE", async () => {
    google.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/google?next=/%23settings`);
    const toGoogle = new URL(hops[0]!.location!);
    expect(toGoogle.origin).toBe(google.issuer);
    expect(toGoogle.searchParams.get("scope")).toBe("openid email profile");
    expect(toGoogle.searchParams.get("nonce")).toMatch(/.{20,}/);
    expect(toGoogle.searchParams.get("code_challenge_method")).toBe("S256");
    expect(hops.find((hop) => hop.url.startsWith(`${t.baseUrl}/complete/google/`))?.location).toBe(`${t.baseUrl}/#settings`);
    expect(await signedInAs(t, browser)).toBe("hamlet@zulip.com");
  });

  it("refuses an address Google has not verified", async () => {
    google.account = { ...hamlet, email_verified: false };
    const browser = browserFor(t);
    const end = (await browser.follow(`${t.baseUrl}/accounts/login/social/google`)).at(-1)!;
    expect(end.status).toBe(403);
    expect(end.text).toContain("Google has not verified the email address");
    expect(await signedInAs(t, browser)).toBeNull();
  });

  it("refuses a wrong state and a replayed callback", async () => {
    google.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/google`, { stop: (url) => url.includes("/complete/google/") });
    const callback = new URL(hops.at(-1)!.location!);
    const cookie = browser.cookie(t.baseUrl, "google_oauth_state")!;
    const tampered = new URL(callback);
    tampered.searchParams.set("state", "not-a-flow");
    expect((await browser.request(tampered.href)).status).toBe(400);
    browser.setCookie(t.baseUrl, "google_oauth_state", cookie);
    expect((await browser.request(callback.href)).status).toBe(302);
    expect(await signedInAs(t, browser)).toBe("hamlet@zulip.com");
    const replay = browserFor(t);
    replay.setCookie(t.baseUrl, "google_oauth_state", cookie);
    expect((await replay.request(callback.href)).status).toBe(400);
    expect(await signedInAs(t, replay)).toBeNull();
  });

  it("says so when the person declines at Google, and signs no one in", async () => {
    google.deny = true;
    try {
      const browser = browserFor(t);
      const end = (await browser.follow(`${t.baseUrl}/accounts/login/social/google`)).at(-1)!;
      expect(end.status).toBe(403);
      expect(end.text).toContain("Google did not sign you in");
      expect(await signedInAs(t, browser)).toBeNull();
    } finally {
      google.deny = false;
    }
  });
});
