import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { FakeOAuthProvider } from "../support/fakeOAuthProvider.js";
import { browserFor, type ServerOverrides, signedInAs } from "../support/socialLogin.js";
import { useTestServer } from "../support/testApp.js";

// Sign-in with a self-hosted GitLab (Zulip's GitLabAuthBackend) living under /gitlab on a
// loopback server: OAuth 2 with PKCE, the person from /api/v4/user, confirmed address only.

interface GitLabAccount {
  username: string;
  name: string;
  email: string;
  confirmed_at: string | null;
}

const hamlet: GitLabAccount = { username: "hamlet", name: "Hamlet of GitLab", email: "hamlet@zulip.com", confirmed_at: "2024-03-01T10:00:00.000Z" };

const gl = new FakeOAuthProvider<GitLabAccount>({
  clientId: "gl-client",
  clientSecret: "gl-secret",
  prefix: "/gitlab",
  authorizePath: "/oauth/authorize",
  tokenPath: "/oauth/token",
  account: hamlet,
  api: (path, a) => (path === "/api/v4/user" ? { status: 200, body: { id: 17, state: "active", ...a } } : null),
});
const overrides: ServerOverrides = {};
beforeAll(async () => {
  await gl.start();
  overrides.auth = authSettingsSchema.parse({ gitlab: { client_id: "gl-client", client_secret: "gl-secret", url: gl.url } });
});
afterAll(() => gl.stop());
const t = useTestServer(overrides);

describe("GitLab sign-in", () => {
  it("signs an existing user in with a session, asking for read_user with PKCE", async () => {
    gl.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/gitlab`);
    const toGitLab = new URL(hops[0]!.location!);
    expect(toGitLab.origin + toGitLab.pathname).toBe(`${gl.url}/oauth/authorize`);
    expect(toGitLab.searchParams.get("scope")).toBe("read_user");
    expect(toGitLab.searchParams.get("code_challenge_method")).toBe("S256");
    expect(toGitLab.searchParams.get("redirect_uri")).toBe("http://localhost:9991/complete/gitlab/");
    expect(gl.apiCalls.at(-1)).toBe("/api/v4/user");
    expect(await signedInAs(t, browser)).toBe("hamlet@zulip.com");
  });

  it("refuses an account whose address GitLab has not confirmed", async () => {
    gl.account = { ...hamlet, confirmed_at: null };
    const browser = browserFor(t);
    const end = (await browser.follow(`${t.baseUrl}/accounts/login/social/gitlab`)).at(-1)!;
    expect(end.status).toBe(403);
    expect(end.text).toContain("has not confirmed the email address");
    expect(await signedInAs(t, browser)).toBeNull();
  });

  it("refuses a wrong state and a replayed callback", async () => {
    gl.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/gitlab`, { stop: (url) => url.includes("/complete/gitlab/") });
    const callback = new URL(hops.at(-1)!.location!);
    const cookie = browser.cookie(t.baseUrl, "gitlab_oauth_state")!;
    const tampered = new URL(callback);
    tampered.searchParams.set("state", `${callback.searchParams.get("state")}x`);
    expect((await browser.request(tampered.href)).status).toBe(400);
    // The refusal spent the browser's cookie; with it back, the real callback still works once.
    browser.setCookie(t.baseUrl, "gitlab_oauth_state", cookie);
    expect((await browser.request(callback.href)).status).toBe(302);
    const replay = browserFor(t);
    replay.setCookie(t.baseUrl, "gitlab_oauth_state", cookie);
    const again = await replay.request(callback.href);
    expect(again.status).toBe(400);
    expect(await signedInAs(t, replay)).toBeNull();
  });

  it("says so when GitLab reports an error, and signs no one in", async () => {
    gl.deny = true;
    try {
      const browser = browserFor(t);
      const end = (await browser.follow(`${t.baseUrl}/accounts/register/social/gitlab`)).at(-1)!;
      expect(end.status).toBe(403);
      expect(end.text).toContain("GitLab did not sign you in");
      expect(await signedInAs(t, browser)).toBeNull();
    } finally {
      gl.deny = false;
    }
  });
});
