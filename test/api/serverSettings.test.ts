import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

const AUTH_METHODS = ["password", "dev", "email", "ldap", "remoteuser", "github", "azuread", "gitlab", "apple", "google", "saml", "openid connect"];

describe("GET /server_settings", () => {
  it("answers without authentication with every field Zulip's clients read, with its type", async () => {
    const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
    const realm = await t.ctx.db.kysely.selectFrom("realms").selectAll().where("string_id", "=", "zulip").executeTakeFirstOrThrow();
    expect(body).toEqual({
      result: "success",
      msg: "",
      authentication_methods: Object.fromEntries(AUTH_METHODS.map((m) => [m, m === "password" || m === "email"])),
      external_authentication_methods: [],
      zulip_version: "10.2",
      zulip_merge_base: "10.2",
      zulip_feature_level: 372,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_url: "http://localhost:9991",
      realm_uri: "http://localhost:9991",
      realm_name: "Zulip Dev",
      realm_icon: `https://secure.gravatar.com/avatar/${crypto.createHash("md5").update(String(realm.id)).digest("hex")}?d=identicon`,
      realm_description: "<p>The Zulip development environment default organization. It's great for testing!</p>",
      realm_web_public_access_enabled: false,
    });
  });

  it("describes the first organization that is not the system-bot realm", async () => {
    const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
    expect(body.realm_name).not.toBe("System use only");
  });

  it("ignores credentials it does not need", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/server_settings"));
    expect(body.realm_name).toBe("Zulip Dev");
  });

  it("escapes the organization description as HTML", async () => {
    await t.ctx.db.kysely.updateTable("realms").set({ description: "<b>Bold</b> & co" }).where("string_id", "=", "zulip").execute();
    try {
      const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
      expect(body.realm_description).toBe("<p>&lt;b&gt;Bold&lt;/b&gt; &amp; co</p>");
    } finally {
      await t.ctx.db.kysely
        .updateTable("realms")
        .set({ description: "The Zulip development environment default organization. It's great for testing!" })
        .where("string_id", "=", "zulip")
        .execute();
    }
  });

  it("points realm_icon at an uploaded icon", async () => {
    await t.ctx.db.kysely.updateTable("realms").set({ icon_source: "U", icon_version: 3 }).where("string_id", "=", "zulip").execute();
    try {
      const body = expectSuccess(await t.get(null, "/api/v1/server_settings"));
      expect(body.realm_icon).toMatch(/^\/user_avatars\/\d+\/realm\/icon\.png\?version=3$/);
    } finally {
      await t.ctx.db.kysely.updateTable("realms").set({ icon_source: "G", icon_version: 1 }).where("string_id", "=", "zulip").execute();
    }
  });

  it("flags Zulip's incompatible test client", async () => {
    const res = await t.get(null, "/api/v1/server_settings", {}, { headers: { "User-Agent": "ZulipInvalid/1.0" } });
    expect(expectSuccess(res).is_incompatible).toBe(true);
  });

  it("answers HEAD with the status and headers, without a body", async () => {
    const res = await t.request("HEAD", null, "/api/v1/server_settings");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toBeNull();
  });
});

describe("GET /server_settings in development mode", () => {
  const dev = useTestServer({ dev: true });

  it("offers the development login", async () => {
    const body = expectSuccess(await dev.get(null, "/api/v1/server_settings"));
    expect(body.authentication_methods.dev).toBe(true);
  });
});
