import { describe, expect, it } from "vitest";
import { transaction } from "../../src/appContext.js";
import { doCreateUser } from "../../src/actions/createUser.js";
import { DEV_CHANNELS, DEV_USERS, SYSTEM_BOTS } from "../../src/dev/seed.js";
import { realmStore } from "../../src/store/realms.js";
import { seedIds, seedSubscribers, seedUsers } from "../support/seed.js";
import { expectError, expectSuccess, type TestServer, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";
import { at } from "../support/at.js";

const q = (t: TestServer) => t.ctx.db.kysely;

async function realmId(t: TestServer, stringId: string): Promise<number> {
  return (await realmStore.getByStringId(q(t), stringId))!.id;
}

describe("POST /api/v1/dev_fetch_api_key in development mode", () => {
  const t = useTestServer({ dev: true });

  it("returns each development user's working API key, with Zulip's ids, emails, names and roles", async () => {
    for (const user of DEV_USERS) {
      const body = expectSuccess(await t.post(null, "/api/v1/dev_fetch_api_key", { username: user.email }));
      expect(body).toMatchObject({ email: user.email, user_id: user.id });
      const auth = basicAuth(body.email, body.api_key);
      const me = expectSuccess(await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: auth } }));
      expect(me).toMatchObject({ user_id: user.id, email: user.email, full_name: user.full_name, role: user.role });
    }
  });

  it("rejects an unknown user", async () => {
    expectError(
      await t.post(null, "/api/v1/dev_fetch_api_key", { username: "nobody@zulip.com" }),
      401,
      "Your username or password is incorrect",
      "AUTHENTICATION_FAILED",
    );
  });

  it("accepts any password up to the maximum length, as Zulip's development settings do", async () => {
    // Zulip's API example for POST /users.
    expectSuccess(await t.post("iago", "/api/v1/users", { email: "newbie@zulip.com", password: "temp", full_name: "New User" }));
    expectSuccess(await t.patch("cordelia", "/api/v1/settings", { old_password: "parleydev", new_password: "x" }));
    expectError(await t.patch("cordelia", "/api/v1/settings", { old_password: "x", new_password: "x".repeat(101) }), 400, "New password is too weak!");
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm"] }));
    expect(state).toMatchObject({ development_environment: true, password_min_length: 0, password_max_length: 100, password_min_guesses: 0 });
  });
});

describe("POST /api/v1/dev_fetch_api_key outside development mode", () => {
  const t = useTestServer();

  it("is refused", async () => {
    expectError(await t.post(null, "/api/v1/dev_fetch_api_key", { username: "hamlet@zulip.com" }), 400, "DevAuthBackend not enabled.");
  });

  it("keeps the production password rules", async () => {
    expectError(
      await t.post("iago", "/api/v1/users", { email: "newbie@zulip.com", password: "temp", full_name: "New User" }),
      400,
      "The password is too weak.",
    );
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm"] }));
    expect(state).toMatchObject({ development_environment: false, password_min_length: 6, password_max_length: 100, password_min_guesses: 10000 });
  });
});

describe("the development organization's content", () => {
  const t = useTestServer();

  it("has the system bots (ids 1-5) in zulipinternal and the users (ids 6-15) in zulip", async () => {
    const internal = await q(t)
      .selectFrom("users")
      .select(["id", "email", "full_name", "is_bot"])
      .where("realm_id", "=", await realmId(t, "zulipinternal"))
      .orderBy("id")
      .execute();
    expect(internal).toEqual(SYSTEM_BOTS.map((b) => ({ id: b.id, email: b.email, full_name: b.full_name, is_bot: 1 })));
    const users = await q(t)
      .selectFrom("users")
      .select(["id", "email", "full_name", "role"])
      .where("realm_id", "=", await realmId(t, "zulip"))
      .orderBy("id")
      .execute();
    expect(users).toEqual(DEV_USERS.map((u) => ({ id: u.id, email: u.email, full_name: u.full_name, role: u.role })));
  });

  it("has Zulip's channels with their ids, recipients and settings; Verona is the default channel", async () => {
    const streams = await q(t)
      .selectFrom("streams")
      .innerJoin("recipients", "recipients.id", "streams.recipient_id")
      .select([
        "streams.id",
        "streams.name",
        "streams.description",
        "streams.invite_only",
        "streams.is_web_public",
        "streams.history_public_to_subscribers",
        "recipients.type",
        "recipients.type_id",
      ])
      .orderBy("streams.id")
      .execute();
    expect(streams.map((s) => [s.id, s.name])).toEqual(DEV_CHANNELS.map((c) => [c.id, c.name]));
    expect(streams[0]).toMatchObject({ id: 1, name: "Verona", description: "A city in Italy", invite_only: 0, history_public_to_subscribers: 1 });
    for (const s of streams) expect({ type: s.type, type_id: s.type_id }).toEqual({ type: 2, type_id: s.id });
    expect(streams.find((s) => s.name === "Rome")).toMatchObject({ is_web_public: 1, invite_only: 0 });
    expect(streams.find((s) => s.name === "core team")).toMatchObject({ id: 6, invite_only: 1, history_public_to_subscribers: 0 });
    const defaults = await q(t).selectFrom("default_streams").select("stream_id").execute();
    expect(defaults.map((d) => d.stream_id)).toEqual([1]);
  });

  it("subscribes users as Zulip's test suite does", async () => {
    const subscriptions = async (name: string) =>
      (
        await q(t)
          .selectFrom("subscriptions")
          .innerJoin("streams", "streams.recipient_id", "subscriptions.recipient_id")
          .select("streams.name")
          .where("subscriptions.user_id", "=", (await t.user(name)).id)
          .orderBy("streams.id")
          .execute()
      ).map((r) => r.name);
    expect(await subscriptions("hamlet")).toEqual(["Verona", "Denmark", "core team"]);
    expect(await subscriptions("iago")).toEqual(["Verona", "Denmark", "Scotland", "core team"]);
    expect(await subscriptions("cordelia")).toEqual(["Verona"]);
    expect(await subscriptions("ZOE")).toEqual(["Verona", "Denmark", "Scotland", "Venice", "Rome"]);
  });

  it("has channel messages delivered to the subscribers, read by their sender", async () => {
    const castle = await q(t)
      .selectFrom("messages")
      .selectAll()
      .where("recipient_id", "=", (await q(t).selectFrom("streams").select("recipient_id").where("id", "=", 2).executeTakeFirstOrThrow()).recipient_id!)
      .where("subject", "=", "Castle")
      .orderBy("id")
      .execute();
    expect(castle.length).toBeGreaterThanOrEqual(2);
    const first = at(castle, 0);
    expect(first).toMatchObject({
      sender_id: 10,
      content: "Something is rotten in the state of Denmark.",
      rendered_content: "<p>Something is rotten in the state of Denmark.</p>",
      is_channel_message: 1,
    });
    const rows = await q(t).selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", first.id).orderBy("user_id").execute();
    // Denmark's subscribers: desdemona 9, hamlet 10, iago 11, othello 12, prospero 14, shiva 15, ZOE 7.
    expect(rows).toEqual(seedSubscribers.denmark.map((id) => ({ user_id: id, flags: id === seedUsers.hamlet.id ? 1 : 0 })));
    const denmark = await q(t).selectFrom("streams").select("first_message_id").where("id", "=", 2).executeTakeFirstOrThrow();
    expect(denmark.first_message_id).toBe(first.id);
    const verona = await q(t)
      .selectFrom("messages")
      .select("subject")
      .where("recipient_id", "=", (await q(t).selectFrom("streams").select("recipient_id").where("id", "=", 1).executeTakeFirstOrThrow()).recipient_id!)
      .execute();
    expect(verona.map((m) => m.subject)).toContain("test");
  });

  it("has direct messages between hamlet and othello", async () => {
    const dms = await q(t).selectFrom("messages").selectAll().where("is_channel_message", "=", 0).orderBy("id").execute();
    expect(dms.length).toBeGreaterThanOrEqual(2);
    const othello = await t.user("othello");
    const fromHamlet = dms.find((m) => m.sender_id === 10)!;
    expect(fromHamlet).toMatchObject({ recipient_id: othello.recipient_id, subject: "" });
    const rows = await q(t).selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", fromHamlet.id).orderBy("user_id").execute();
    // is_private (2048) for both; read (1) for the sender.
    expect(rows).toEqual([
      { user_id: 10, flags: 2049 },
      { user_id: 12, flags: 2048 },
    ]);
  });

  it("has the hamletcharacters group with cordelia and hamlet, and Zulip's default group settings", async () => {
    const group = await q(t).selectFrom("user_groups").selectAll().where("name", "=", "hamletcharacters").executeTakeFirstOrThrow();
    expect(group).toMatchObject({ description: "Characters of Hamlet", named: 1, is_system_group: 0, deactivated: 0 });
    const members = await q(t).selectFrom("user_group_members").select("user_id").where("group_id", "=", group.id).orderBy("user_id").execute();
    expect(members.map((m) => m.user_id)).toEqual(seedIds("cordelia", "hamlet"));
    const names = new Map(
      (await q(t).selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", group.realm_id).execute()).map((g) => [g.id, g.name]),
    );
    expect({
      can_add_members_group: names.get(group.can_add_members_group_id!),
      can_join_group: names.get(group.can_join_group_id!),
      can_leave_group: names.get(group.can_leave_group_id!),
      can_manage_group: names.get(group.can_manage_group_id!),
      can_mention_group: names.get(group.can_mention_group_id!),
      can_remove_members_group: names.get(group.can_remove_members_group_id!),
    }).toEqual({
      can_add_members_group: "role:nobody",
      can_join_group: "role:nobody",
      can_leave_group: "role:everyone",
      can_manage_group: "role:nobody",
      can_mention_group: "role:everyone",
      can_remove_members_group: "role:nobody",
    });
  });

  it("has the development custom profile fields with values for hamlet and iago", async () => {
    const fields = await q(t).selectFrom("custom_profile_fields").select(["id", "name", "field_type", "field_data", "order"]).orderBy("order").execute();
    expect(fields.map((f) => [f.name, f.field_type])).toEqual([
      ["Phone number", 1],
      ["Biography", 2],
      ["Favorite food", 1],
      ["Favorite editor", 3],
      ["Birthday", 4],
      ["Favorite website", 5],
      ["Mentor", 6],
      ["GitHub username", 7],
      ["Pronouns", 8],
    ]);
    expect(JSON.parse(at(fields, 3).field_data)).toEqual({ "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } });
    expect(JSON.parse(at(fields, 7).field_data)).toEqual({ subtype: "github" });
    const values = await q(t)
      .selectFrom("custom_profile_field_values")
      .select(["user_id", "field_id", "value", "rendered_value"])
      .where("user_id", "=", 10)
      .execute();
    const byName = (name: string) => values.find((v) => v.field_id === fields.find((f) => f.name === name)!.id);
    expect(byName("Favorite food")).toMatchObject({ value: "Dark chocolate", rendered_value: "<p>Dark chocolate</p>" });
    expect(byName("Mentor")).toMatchObject({ value: "[11]", rendered_value: null });
    expect(byName("Favorite editor")?.value).toBe("0");
    const iagoValues = await q(t).selectFrom("custom_profile_field_values").select("value").where("user_id", "=", 11).execute();
    expect(iagoValues.map((v) => v.value)).toContain("Betrayer of Othello.");
  });

  it("continues ids after the seeded ones: a new user gets id 16 and the default channel", async () => {
    const realm = (await realmStore.getByStringId(q(t), "zulip"))!;
    const user = await transaction(t.ctx, (tx) => doCreateUser(tx, realm, { email: "newbie@zulip.com", full_name: "Newbie", password_hash: null }));
    expect(user.id).toBe(16);
    const subscribed = await q(t)
      .selectFrom("subscriptions")
      .innerJoin("streams", "streams.recipient_id", "subscriptions.recipient_id")
      .select("streams.name")
      .where("subscriptions.user_id", "=", 16)
      .execute();
    expect(subscribed.map((s) => s.name)).toEqual(["Verona"]);
  });
});
