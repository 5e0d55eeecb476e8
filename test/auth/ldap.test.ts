import net from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";
import { ADMIN_DN, ADMIN_PASSWORD, type LdapTestServer, PEOPLE_DN, slapdMissing, ssha, startLdapServer } from "./ldapServer.js";

/**
 * Password login checked by a real LDAP directory (slapd, test/auth/ldapServer.ts): POST
 * /fetch_api_key (Zulip's mobile login) and the web form, direct bind and search-then-bind,
 * accounts found, synced, created, refused and deactivated as the directory says.
 */
describe.skipIf(slapdMissing)("LDAP sign-in", () => {
  const t = useTestServer();
  let ldap: LdapTestServer;

  /** The server's LDAP settings: direct bind under ou=people unless `overrides` say otherwise. */
  function configure(overrides: Record<string, unknown> = {}) {
    t.ctx.config.auth = authSettingsSchema.parse({ ldap: { url: ldap.url, user_dn_template: `uid=%(user)s,${PEOPLE_DN}`, timeout_seconds: 3, ...overrides } });
  }
  const searchThenBind = {
    user_dn_template: undefined,
    user_search: { base: PEOPLE_DN, filter: "(uid=%(user)s)" },
    bind_dn: ADMIN_DN,
    bind_password: ADMIN_PASSWORD,
  };

  beforeAll(async () => {
    ldap = await startLdapServer();
    await ldap.add({ uid: "hamlet", cn: "King Hamlet", mail: "hamlet@zulip.com", password: ssha("elsinore") });
    await ldap.add({ uid: "cordelia", cn: "Cordelia, Lear's daughter", mail: "cordelia@zulip.com", password: "lear-daughter" });
    await ldap.add({ uid: "iago", cn: "Iago", mail: "iago@zulip.com", password: "honest-iago" });
    await ldap.add({ uid: "aaron", cn: "aaron", mail: "AARON@zulip.com", password: "aaron-pass" });
    await ldap.add({ uid: "newbie", cn: "New Person", mail: "newbie@zulip.com", password: "brand-new" });
  });
  afterAll(() => ldap?.stop());
  beforeEach(() => configure());

  const fetchApiKey = (username: string, password: string) => t.post(null, "/api/v1/fetch_api_key", { username, password });

  it("signs in with the LDAP username through POST /fetch_api_key (direct bind, hashed password)", async () => {
    const hamlet = await t.user("hamlet");
    const body = expectSuccess(await fetchApiKey("hamlet", "elsinore"));
    expect(body).toMatchObject({ api_key: hamlet.api_key, email: "hamlet@zulip.com", user_id: hamlet.id });
  });

  it("tells the apps at /server_settings that LDAP is on and a username need not be an email", async () => {
    const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
    expect(body.authentication_methods).toMatchObject({ password: true, ldap: true, email: true });
    expect(body.require_email_format_usernames).toBe(false);
    t.ctx.config.auth = authSettingsSchema.parse({});
    expect(expectSuccess(await t.get(null, "/api/v1/server_settings")).require_email_format_usernames).toBe(true);
  });

  it("signs in with the email address the directory has", async () => {
    const cordelia = await t.user("cordelia");
    expect(expectSuccess(await fetchApiKey("cordelia@zulip.com", "lear-daughter")).user_id).toBe(cordelia.id);
  });

  it("signs in through the web login form", async () => {
    const res = await postLoginForm(t.baseUrl, "iago", "honest-iago");
    expect(res.status).toBe(302);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("sessionid="))).toBe(true);
  });

  it("refuses a wrong password with the same answer as a wrong Parley password", async () => {
    expectError(await fetchApiKey("hamlet", "wrong"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    expectError(await fetchApiKey("hamlet@zulip.com", "wrong"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    expectError(await fetchApiKey("nobody-here", "elsinore"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    const res = await postLoginForm(t.baseUrl, "hamlet", "wrong");
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("Your username or password is incorrect");
  });

  it("signs in by search-then-bind as the service account", async () => {
    configure(searchThenBind);
    const hamlet = await t.user("hamlet");
    expect(expectSuccess(await fetchApiKey("hamlet", "elsinore")).user_id).toBe(hamlet.id);
    expectError(await fetchApiKey("hamlet", "elsinore-not"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
  });

  it("escapes the username in the search filter, so a wildcard does not find an entry", async () => {
    configure(searchThenBind);
    // Unescaped, (uid=ham*) would find hamlet alone and bind as him with his password.
    for (const username of ["ham*", "*", "hamlet)(uid=*", "hamlet\\2a"]) {
      expectError(await fetchApiKey(username, "elsinore"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    }
    // Direct bind: the value is escaped in the DN, so no other entry can be named.
    configure();
    expectError(await fetchApiKey(`hamlet,${PEOPLE_DN}`, "elsinore"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
  });

  it("copies a changed name and email address from the directory at sign-in, with events", async () => {
    const aaron = await t.user("aaron");
    expectSuccess(await fetchApiKey("aaron", "aaron-pass"));
    await ldap.modify("aaron", { cn: "Aaron the Moor", mail: "aaron.moor@zulip.com" });
    const { events } = await t.captureEvents(async () => expectSuccess(await fetchApiKey("aaron", "aaron-pass")));
    const row = await t.user(`aaron.moor@zulip.com`);
    expect(row.id).toBe(aaron.id);
    expect(row.full_name).toBe("Aaron the Moor");
    expect(row.delivery_email).toBe("aaron.moor@zulip.com");
    const updates = events
      .filter((e) => e.event.type === "realm_user" && e.event.op === "update")
      .map((e) => (e.event as unknown as { person: object }).person);
    expect(updates).toContainEqual({ user_id: aaron.id, full_name: "Aaron the Moor" });
    expect(updates).toContainEqual({ user_id: aaron.id, delivery_email: "aaron.moor@zulip.com" });
    // The new address signs in too (the directory has it).
    expect(expectSuccess(await fetchApiKey("aaron.moor@zulip.com", "aaron-pass")).user_id).toBe(aaron.id);
  });

  it("creates the account of a first sign-in only where the organization needs no invitation", async () => {
    const refused = await fetchApiKey("newbie", "brand-new");
    expectError(refused, 401, "There is no account for newbie@zulip.com in this organization, and joining it requires an invitation.", "AUTHENTICATION_FAILED");
    await expect(t.user("newbie")).rejects.toThrow();
    const body = await t.withRealmSettings({ invite_required: false }, async () => {
      const { result, events } = await t.captureEvents(() => fetchApiKey("newbie", "brand-new"));
      expect(events.some((e) => e.event.type === "realm_user" && e.event.op === "add")).toBe(true);
      return expectSuccess(result);
    });
    const row = await t.user("newbie");
    expect(body).toMatchObject({ user_id: row.id, api_key: row.api_key });
    expect(row).toMatchObject({ full_name: "New Person", delivery_email: "newbie@zulip.com", is_active: 1, password_hash: null });
  });

  it("refuses a deactivated account even with the right password", async () => {
    const iago = await t.user("iago");
    await t.ctx.db.kysely.updateTable("users").set({ is_active: 0 }).where("id", "=", iago.id).execute();
    t.ctx.db.authCache.apply({ all: true });
    try {
      expectError(await fetchApiKey("iago", "honest-iago"), 401, "Account is deactivated", "USER_DEACTIVATED");
    } finally {
      await t.ctx.db.kysely.updateTable("users").set({ is_active: 1 }).where("id", "=", iago.id).execute();
    }
  });

  it("deactivates the account the directory lacks at sign-in when deactivate_missing is on", async () => {
    const othello = await t.user("othello");
    configure({ deactivate_missing: false });
    expectError(await fetchApiKey("othello@zulip.com", "whatever"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    expect((await t.user("othello")).is_active).toBe(1);
    configure({ deactivate_missing: true });
    // Someone the directory has is kept when the password is wrong.
    expectError(await fetchApiKey("hamlet@zulip.com", "wrong"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    expect((await t.user("hamlet")).is_active).toBe(1);
    const { events } = await t.captureEvents(() => fetchApiKey("othello@zulip.com", "whatever"));
    expect((await t.user("othello")).is_active).toBe(0);
    expect(events.map((e) => e.event)).toContainEqual({ type: "realm_user", op: "update", person: { user_id: othello.id, is_active: false } });
  });

  it("says the directory cannot be reached, promptly, and still takes Parley's own passwords", async () => {
    configure({ url: "ldap://127.0.0.1:1", timeout_seconds: 2 });
    const started = Date.now();
    expectError(
      await fetchApiKey("hamlet", "elsinore"),
      401,
      "The directory that checks passwords (LDAP) cannot be reached. Please try again later.",
      "AUTHENTICATION_FAILED",
    );
    expect(Date.now() - started).toBeLessThan(5000);
    // A directory that takes the connection and never answers: the wait ends at timeout_seconds.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      configure({ url: `ldap://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, timeout_seconds: 1 });
      const waited = Date.now();
      expectError(
        await fetchApiKey("hamlet", "elsinore"),
        401,
        "The directory that checks passwords (LDAP) cannot be reached. Please try again later.",
        "AUTHENTICATION_FAILED",
      );
      expect(Date.now() - waited).toBeLessThan(4000);
    } finally {
      silent.close();
    }
    // The seeded Parley password (Email is on for the organization).
    expect(expectSuccess(await fetchApiKey("desdemona@zulip.com", DEV_PASSWORD)).email).toBe("desdemona@zulip.com");
  });
});
