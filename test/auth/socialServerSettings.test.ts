import { describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

// How GitHub, GitLab and Google appear to clients: GET /server_settings as Zulip 10.2 lists them
// (GoogleAuthBackend, GitHubAuthBackend, GitLabAuthBackend dict_representation), and the icons
// their display_icon names. No provider is contacted.

const t = useTestServer({
  auth: authSettingsSchema.parse({
    github: { client_id: "gh", client_secret: "gh-secret", url: "http://127.0.0.1:9", api_url: "http://127.0.0.1:9/api" },
    gitlab: { client_id: "gl", client_secret: "gl-secret", url: "http://127.0.0.1:9/gitlab", display_name: "Acme GitLab" },
    google: { client_id: "go", client_secret: "go-secret", issuer: "http://127.0.0.1:9" },
  }),
});

describe("GitHub, GitLab and Google in GET /server_settings", () => {
  it("lists the three as Zulip does, in Zulip's order, and marks them available", async () => {
    const body = expectSuccess(await t.request("GET", null, "/api/v1/server_settings"));
    expect(body.authentication_methods).toMatchObject({ github: true, gitlab: true, google: true });
    const social = (body.external_authentication_methods as { name: string }[]).filter((m) => ["google", "github", "gitlab"].includes(m.name));
    expect(social).toEqual([
      {
        name: "google",
        display_name: "Google",
        display_icon: "/static/images/authentication_backends/googl_e-icon.png",
        login_url: "/accounts/login/social/google",
        signup_url: "/accounts/register/social/google",
      },
      {
        name: "github",
        display_name: "GitHub",
        display_icon: "/static/images/authentication_backends/github-icon.png",
        login_url: "/accounts/login/social/github",
        signup_url: "/accounts/register/social/github",
      },
      {
        name: "gitlab",
        display_name: "Acme GitLab",
        display_icon: "/static/images/authentication_backends/gitlab-icon.png",
        login_url: "/accounts/login/social/gitlab",
        signup_url: "/accounts/register/social/gitlab",
      },
    ]);
  });

  it("serves the icon each display_icon names, as a PNG", async () => {
    for (const file of ["googl_e-icon.png", "github-icon.png", "gitlab-icon.png"]) {
      const res = await fetch(`${t.baseUrl}/static/images/authentication_backends/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 8)
          .toString("hex"),
      ).toBe("89504e470d0a1a0a");
    }
  });

  it("sends the browser to the provider from login_url and signup_url", async () => {
    const login = await fetch(`${t.baseUrl}/accounts/login/social/github`, { redirect: "manual" });
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:9\/login\/oauth\/authorize\?/);
    const signup = await fetch(`${t.baseUrl}/accounts/register/social/gitlab`, { redirect: "manual" });
    expect(signup.headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:9\/gitlab\/oauth\/authorize\?/);
  });

  it("answers with a page, not a 500, when Google's issuer cannot be reached", async () => {
    const res = await fetch(`${t.baseUrl}/accounts/login/social/google`, { redirect: "manual" });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain("Google could not be reached");
  });
});
