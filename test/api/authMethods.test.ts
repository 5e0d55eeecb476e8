import { describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

// Which sign-in methods the server offers and the organization has on: PATCH /realm
// authentication_methods (owners), realm_authentication_methods at /register and its event,
// and GET /server_settings' authentication_methods and external_authentication_methods.

const t = useTestServer({
  auth: authSettingsSchema.parse({
    oidc: [
      { name: "corp", issuer: "https://sso.example.com/realms/corp", client_id: "parley", client_secret: "s" },
      {
        name: "partner",
        display_name: "Partner SSO",
        display_icon: "https://partner.example.com/icon.png",
        issuer: "https://partner.example.com",
        client_id: "p",
        client_secret: "s",
      },
    ],
  }),
});

async function registerRealm(who = "hamlet") {
  return expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: ["realm"] }));
}

const OIDC_ENTRIES = [
  {
    name: "oidc:oidc",
    display_name: "OIDC",
    display_icon: null,
    login_url: "/accounts/login/social/oidc",
    signup_url: "/accounts/register/social/oidc",
  },
  {
    name: "oidc:partner",
    display_name: "Partner SSO",
    display_icon: "https://partner.example.com/icon.png",
    login_url: "/accounts/login/social/oidc/partner",
    signup_url: "/accounts/register/social/oidc/partner",
  },
];

describe("sign-in methods of the organization", () => {
  it("lists every method the server offers at /register, all on by default", async () => {
    const state = await registerRealm();
    expect(state.realm_authentication_methods).toEqual({
      Email: { enabled: true, available: true },
      "OpenID Connect": { enabled: true, available: true },
    });
    expect(state.realm_password_auth_enabled).toBe(true);
    expect(state.realm_email_auth_enabled).toBe(true);
  });

  it("shows a button per provider on the login page, beside the password form", async () => {
    const page = await (await fetch(`${t.baseUrl}/login/`)).text();
    expect(page).toContain('name="password"');
    expect(page).toContain('<a class="external-login" href="/accounts/login/social/oidc"><span>Log in with OIDC</span></a>');
    expect(page).toContain(
      '<a class="external-login" href="/accounts/login/social/oidc/partner"><img src="https://partner.example.com/icon.png" alt="" width="20" height="20"><span>Log in with Partner SSO</span></a>',
    );
    expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: DEV_PASSWORD }));
  });

  it("describes them in GET /server_settings as Zulip 10.2 does", async () => {
    const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
    expect(body.authentication_methods).toMatchObject({ password: true, email: true, "openid connect": true, github: false, saml: false, ldap: false });
    expect(body.external_authentication_methods).toEqual(OIDC_ENTRIES);
    expect(body.email_auth_enabled).toBe(true);
  });

  it("lets only owners change them", async () => {
    expectError(
      await t.patch("iago", "/api/v1/realm", { authentication_methods: { Email: true } }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await t.patch("hamlet", "/api/v1/realm", { authentication_methods: { Email: true } }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
  });

  it("refuses methods the server does not offer and turning every one off", async () => {
    expectError(
      await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { GitHub: true } }),
      400,
      "Invalid authentication method: GitHub. Valid methods are: ['Email', 'OpenID Connect']",
    );
    expectError(
      await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { Email: false, "OpenID Connect": false } }),
      400,
      "At least one authentication method must be enabled.",
    );
    expect((await registerRealm()).realm_authentication_methods.Email.enabled).toBe(true);
  });

  it("turns a method off: the answer, the event, /register, server_settings", async () => {
    const { result, events } = await t.captureEvents(() =>
      t.patch("desdemona", "/api/v1/realm", { authentication_methods: { Email: false, "OpenID Connect": true } }),
    );
    try {
      expect(expectSuccess(result).authentication_methods).toEqual({ Email: false, "OpenID Connect": true });
      const realmEvents = events.filter((e) => e.event.type === "realm").map((e) => e.event);
      expect(realmEvents).toEqual([
        {
          type: "realm",
          op: "update_dict",
          property: "default",
          data: { authentication_methods: { Email: { enabled: false, available: true }, "OpenID Connect": { enabled: true, available: true } } },
        },
      ]);
      const state = await registerRealm();
      expect(state.realm_authentication_methods.Email).toEqual({ enabled: false, available: true });
      expect(state.realm_password_auth_enabled).toBe(false);
      expect(state.realm_email_auth_enabled).toBe(false);
      const settings = expectSuccess(await t.get(null, "/api/v1/server_settings"));
      expect(settings.authentication_methods).toMatchObject({ password: false, email: false, "openid connect": true });
      expect(settings.email_auth_enabled).toBe(false);
      // The password form is gone and passwords no longer sign in; the providers' buttons stay.
      expectError(
        await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: DEV_PASSWORD }),
        401,
        "Password authentication is disabled in this organization.",
        "PASSWORD_AUTH_DISABLED",
      );
      const page = await (await fetch(`${t.baseUrl}/login/?next=/%23inbox`)).text();
      expect(page).not.toContain('name="password"');
      expect(page).not.toContain("Forgot your password?");
      expect(page).toContain('href="/accounts/login/social/oidc?next=%2F%23inbox"');

      // Sending the same dict again changes nothing.
      const again = await t.captureEvents(() => t.patch("desdemona", "/api/v1/realm", { authentication_methods: { Email: false, "OpenID Connect": true } }));
      expect("authentication_methods" in expectSuccess(again.result)).toBe(false);
      expect(again.events.filter((e) => e.event.type === "realm")).toEqual([]);
    } finally {
      expectSuccess(await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { Email: true, "OpenID Connect": true } }));
    }
  });

  it("drops the external entries of a method the organization turned off", async () => {
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { Email: true, "OpenID Connect": false } }));
    try {
      const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
      expect(body.authentication_methods["openid connect"]).toBe(false);
      expect(body.external_authentication_methods).toEqual([]);
      const login = await (await fetch(`${t.baseUrl}/login/`)).text();
      expect(login).not.toContain("/accounts/login/social/oidc");
      expect(login).toContain('name="password"');
    } finally {
      expectSuccess(await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { "OpenID Connect": true } }));
    }
  });
});
