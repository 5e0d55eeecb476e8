import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { FakeOAuthProvider } from "../support/fakeOAuthProvider.js";
import { browserFor, type ServerOverrides, signedInAs } from "../support/socialLogin.js";
import { type TestServer, useTestServer } from "../support/testApp.js";
import type { TestBrowser } from "../support/testBrowser.js";

// Sign-in with GitHub (Zulip's GitHubAuthBackend) against a loopback GitHub: OAuth 2 with PKCE,
// the person from /user and /user/emails, verified emails only, organization and team rules.

interface GitHubAccount {
  login: string;
  name: string | null;
  emails: { email: string; verified: boolean; primary: boolean }[];
  orgs: string[];
  teams: Record<number, "active" | "pending">;
}

const hamlet: GitHubAccount = {
  login: "hamlet-gh",
  name: "Hamlet of GitHub",
  emails: [{ email: "hamlet@zulip.com", verified: true, primary: true }],
  orgs: [],
  teams: {},
};

/** GitHub's documented API, as much of it as sign-in reads, under /api (as GitHub Enterprise's /api/v3). */
function fakeGitHub(): FakeOAuthProvider<GitHubAccount> {
  return new FakeOAuthProvider<GitHubAccount>({
    clientId: "gh-client",
    clientSecret: "gh-secret",
    prefix: "",
    authorizePath: "/login/oauth/authorize",
    tokenPath: "/login/oauth/access_token",
    account: hamlet,
    api(path, a) {
      if (path === "/api/user") return { status: 200, body: { login: a.login, id: 583231, name: a.name, email: null } };
      if (path === "/api/user/emails") return { status: 200, body: a.emails.map((e) => ({ ...e, visibility: e.primary ? "private" : null })) };
      const org = /^\/api\/orgs\/([^/]+)\/members\/([^/]+)$/.exec(path);
      if (org) return org[2] === a.login && a.orgs.includes(org[1] ?? "") ? { status: 204 } : null;
      const team = /^\/api\/teams\/(\d+)\/memberships\/([^/]+)$/.exec(path);
      const state = team && team[2] === a.login ? a.teams[Number(team[1])] : undefined;
      if (state) return { status: 200, body: { state, role: "member", url: `${path}` } };
      return null;
    },
  });
}

/** A GitHub and a Parley configured for it (`github` settings beyond the client and URLs). */
function useGitHubServer(github: Record<string, unknown> = {}): { t: TestServer; gh: FakeOAuthProvider<GitHubAccount> } {
  const gh = fakeGitHub();
  const overrides: ServerOverrides = {};
  beforeAll(async () => {
    await gh.start();
    overrides.auth = authSettingsSchema.parse({
      github: { client_id: "gh-client", client_secret: "gh-secret", url: gh.url, api_url: `${gh.url}/api`, ...github },
    });
  });
  afterAll(() => gh.stop());
  return { t: useTestServer(overrides), gh };
}

/** Starts a GitHub sign-in and follows the redirects to their end. */
async function signIn(t: TestServer, browser: TestBrowser, path = "/accounts/login/social/github") {
  const hops = await browser.follow(`${t.baseUrl}${path}`);
  return hops.at(-1)!;
}

describe("GitHub sign-in", () => {
  const { t, gh } = useGitHubServer();

  it("signs an existing user in with a session, through OAuth 2 with PKCE", async () => {
    gh.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/github?next=/%23narrow/channel/1`);
    const toGitHub = new URL(hops[0]!.location!);
    expect(toGitHub.origin + toGitHub.pathname).toBe(`${gh.url}/login/oauth/authorize`);
    expect(toGitHub.searchParams.get("redirect_uri")).toBe("http://localhost:9991/complete/github/");
    expect(toGitHub.searchParams.get("scope")).toBe("user:email");
    expect(toGitHub.searchParams.get("code_challenge_method")).toBe("S256");
    const back = hops.find((hop) => hop.url.startsWith(`${t.baseUrl}/complete/github/`))!;
    expect(back.status).toBe(302);
    expect(back.location).toBe(`${t.baseUrl}/#narrow/channel/1`);
    expect(await signedInAs(t, browser)).toBe("hamlet@zulip.com");
  });

  it("refuses an account with no verified email, and signs no one in", async () => {
    gh.account = { ...hamlet, emails: [{ email: "hamlet@zulip.com", verified: false, primary: true }] };
    const browser = browserFor(t);
    const end = await signIn(t, browser);
    expect(end.status).toBe(403);
    expect(end.text).toContain("no verified email address");
    expect(await signedInAs(t, browser)).toBeNull();
  });

  it("does not count GitHub's no-reply address as an email for a new account", async () => {
    gh.account = { ...hamlet, emails: [{ email: "583231+hamlet-gh@users.noreply.github.com", verified: true, primary: true }] };
    const end = await signIn(t, browserFor(t));
    expect(end.status).toBe(403);
    expect(end.text).toContain("no verified email address");
  });

  it("picks the one verified address that has an account here", async () => {
    gh.account = {
      ...hamlet,
      emails: [
        { email: "hamlet.elsewhere@example.com", verified: true, primary: true },
        { email: "hamlet@zulip.com", verified: true, primary: false },
      ],
    };
    const browser = browserFor(t);
    await signIn(t, browser);
    expect(await signedInAs(t, browser)).toBe("hamlet@zulip.com");
  });

  it("lets a person with several verified accounts choose, from the list GitHub gave only", async () => {
    gh.account = {
      ...hamlet,
      emails: [
        { email: "hamlet@zulip.com", verified: true, primary: true },
        { email: "othello@zulip.com", verified: true, primary: false },
        { email: "iago@zulip.com", verified: false, primary: false },
      ],
    };
    const browser = browserFor(t);
    const page = await signIn(t, browser);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Choose an email");
    expect(page.text).toContain('value="othello@zulip.com"');
    expect(page.text).not.toContain("iago@zulip.com");
    const flow = /name="flow" value="([^"]+)"/.exec(page.text)![1]!;

    // A forged choice (an address GitHub did not verify) is refused, and uses the flow up.
    const forged = await browserFor(t).request(`${t.baseUrl}/complete/github/email/`, { form: { flow, email: "iago@zulip.com" } });
    expect(forged.status).toBe(400); // another browser: not the one the flow belongs to
    const cookie = browser.cookie(t.baseUrl, "github_oauth_state")!;
    const wrong = await browser.request(`${t.baseUrl}/complete/github/email/`, { form: { flow, email: "iago@zulip.com" } });
    expect(wrong.status).toBe(403);
    expect(await signedInAs(t, browser)).toBeNull();
    browser.setCookie(t.baseUrl, "github_oauth_state", cookie);
    const replay = await browser.request(`${t.baseUrl}/complete/github/email/`, { form: { flow, email: "othello@zulip.com" } });
    expect(replay.status).toBe(400);
    expect(await signedInAs(t, browser)).toBeNull();

    const again = await signIn(t, browser);
    const flow2 = /name="flow" value="([^"]+)"/.exec(again.text)![1]!;
    const chosen = await browser.request(`${t.baseUrl}/complete/github/email/`, { form: { flow: flow2, email: "othello@zulip.com" } });
    expect(chosen.status).toBe(302);
    expect(await signedInAs(t, browser)).toBe("othello@zulip.com");
  });

  it("refuses a state it did not give this browser, and a callback used once already", async () => {
    gh.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/github`, { stop: (url) => url.includes("/complete/github/") });
    const callback = new URL(hops.at(-1)!.location!);

    const tampered = new URL(callback);
    tampered.searchParams.set("state", "forged-state");
    const wrongState = await browser.request(tampered.href);
    expect(wrongState.status).toBe(400);
    expect(wrongState.text).toContain("Sign-in expired");

    // The right state from another browser (a link sent to a victim) is refused too.
    const elsewhere = await browserFor(t).request(callback.href);
    expect(elsewhere.status).toBe(400);
    expect(await signedInAs(t, browser)).toBeNull();
  });

  it("refuses a replayed callback, even with the state cookie", async () => {
    gh.account = hamlet;
    const browser = browserFor(t);
    const hops = await browser.follow(`${t.baseUrl}/accounts/login/social/github`, { stop: (url) => url.includes("/complete/github/") });
    const callback = hops.at(-1)!.location!;
    const cookie = browser.cookie(t.baseUrl, "github_oauth_state")!;
    const first = await browser.request(callback);
    expect(first.status).toBe(302);
    const other = browserFor(t);
    other.setCookie(t.baseUrl, "github_oauth_state", cookie);
    const replay = await other.request(callback);
    expect(replay.status).toBe(400);
    expect(await signedInAs(t, other)).toBeNull();
  });

  it("says so when the person declines at GitHub, and creates nothing", async () => {
    gh.account = hamlet;
    gh.deny = true;
    try {
      const browser = browserFor(t);
      const end = await signIn(t, browser);
      expect(end.status).toBe(403);
      expect(end.text).toContain("Sign-in cancelled");
      expect(await signedInAs(t, browser)).toBeNull();
    } finally {
      gh.deny = false;
    }
  });
});

describe("GitHub sign-in restricted to an organization and a team", () => {
  const { t, gh } = useGitHubServer({ organization: "elsinore", team_id: 42 });

  it("signs in an active member of the team in the organization, asking for read:org", async () => {
    gh.account = { ...hamlet, orgs: ["elsinore"], teams: { 42: "active" } };
    const browser = browserFor(t);
    await signIn(t, browser);
    expect(gh.lastScope).toBe("user:email read:org");
    expect(await signedInAs(t, browser)).toBe("hamlet@zulip.com");
  });

  it("refuses someone outside the organization", async () => {
    gh.account = { ...hamlet, orgs: ["wittenberg"], teams: { 42: "active" } };
    const browser = browserFor(t);
    const end = await signIn(t, browser);
    expect(end.status).toBe(403);
    expect(end.text).toContain("not a member of the GitHub organization elsinore");
    expect(await signedInAs(t, browser)).toBeNull();
  });

  it("refuses someone not in the team, or whose membership is still pending", async () => {
    const cases: GitHubAccount["teams"][] = [{}, { 42: "pending" }, { 7: "active" }];
    for (const teams of cases) {
      gh.account = { ...hamlet, orgs: ["elsinore"], teams };
      const browser = browserFor(t);
      const end = await signIn(t, browser);
      expect(end.status).toBe(403);
      expect(end.text).toContain("not an active member of the GitHub team");
      expect(await signedInAs(t, browser)).toBeNull();
    }
  });
});
