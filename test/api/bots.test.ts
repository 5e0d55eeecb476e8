import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

async function createBot(who: string, params: Record<string, unknown>) {
  return t.post(who, "/api/v1/bots", params as never);
}

async function realmBots(who: string) {
  return expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: ["realm_bot"] })).realm_bots as any[];
}

function botAuth(email: string, apiKey: string) {
  return { Authorization: "Basic " + Buffer.from(`${email}:${apiKey}`).toString("base64") };
}

describe("POST /bots and GET /bots", () => {
  it("creates a generic bot that authenticates with its own API key", async () => {
    const { result, events } = await t.captureEvents(() => createBot("hamlet", { full_name: "Hamlet's Helper", short_name: "helper" }));
    const body = expectSuccess(result);
    expect(body).toMatchObject({
      user_id: expect.any(Number),
      api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    });
    const hamlet = await t.user("hamlet");
    const email = `helper-bot@${new URL(t.config.externalUrl).hostname}`;
    const me = expectSuccess(await t.request("GET", null, "/api/v1/users/me", {}, { headers: botAuth(email, body.api_key) }));
    expect(me).toMatchObject({ user_id: body.user_id, is_bot: true, email, full_name: "Hamlet's Helper" });

    const listed = expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots;
    expect(listed).toEqual([
      {
        username: email,
        full_name: "Hamlet's Helper",
        api_key: body.api_key,
        avatar_url: expect.any(String),
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      },
    ]);
    expect(expectSuccess(await t.get("othello", "/api/v1/bots")).bots).toEqual([]);

    const bot = (await realmBots("hamlet")).find((b) => b.user_id === body.user_id);
    expect(bot).toMatchObject({ email, bot_type: 1, is_active: true, owner_id: hamlet.id, services: [] });
    expect((await realmBots("iago")).some((b) => b.user_id === body.user_id)).toBe(true);
    expect((await realmBots("othello")).some((b) => b.user_id === body.user_id)).toBe(false);
    const person = expectSuccess(await t.get("othello", `/api/v1/users/${body.user_id}`)).user;
    expect(person).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: hamlet.id });

    const botEvent = events.find((e) => e.event.type === "realm_bot");
    expect(botEvent?.event).toMatchObject({ op: "add", bot: { user_id: body.user_id, owner_id: hamlet.id } });
    expect(botEvent?.users).toContain(hamlet.id);
    expect(botEvent?.users).not.toContain((await t.user("othello")).id);
  });

  it("creates an outgoing webhook bot with its service", async () => {
    const body = expectSuccess(
      await createBot("hamlet", {
        full_name: "Hook",
        short_name: "hook",
        bot_type: 3,
        payload_url: JSON.stringify("http://127.0.0.1:9/hook"),
        interface_type: 2,
        default_sending_stream: "Verona",
      }),
    );
    expect(body.default_sending_stream).toBe("Verona");
    const bot = (await realmBots("hamlet")).find((b) => b.user_id === body.user_id);
    expect(bot.services).toEqual([{ base_url: "http://127.0.0.1:9/hook", token: expect.any(String), interface: 2 }]);
  });

  it("refuses bad input and missing permission, creating nothing", async () => {
    const before = (await realmBots("iago")).length;
    expectError(await createBot("hamlet", { full_name: "No Short", short_name: "  " }), 400, "Bad name or username");
    expectError(await createBot("hamlet", { full_name: "Again", short_name: "helper" }), 400, "Username already in use");
    expectError(await createBot("hamlet", { full_name: "King Hamlet", short_name: "kinghamlet" }), 400, "Name is already in use!");
    expectError(await createBot("hamlet", { full_name: "Typeless", short_name: "typeless", bot_type: 9 }), 400, "Invalid bot type");
    expectError(
      await createBot("hamlet", { full_name: "Iface", short_name: "iface", bot_type: 3, payload_url: JSON.stringify("http://x.example/"), interface_type: 5 }),
      400,
      "Invalid interface type",
    );
    expectError(
      await createBot("hamlet", { full_name: "Bad Url", short_name: "badurl", bot_type: 3, payload_url: JSON.stringify("ftp://x") }),
      400,
      "payload_url is not a URL",
    );
    expectError(await createBot("polonius", { full_name: "Guest Bot", short_name: "guestbot" }), 400, "Not allowed for guest users");
    expectError(
      await createBot("hamlet", { full_name: "Bad Channel", short_name: "badchannel", default_sending_stream: "nowhere" }),
      400,
      "Invalid channel name 'nowhere'",
    );
    // Only administrators may create bots; members keep incoming-webhook bots (can_create_write_only_bots_group).
    expectSuccess(await t.patch("iago", "/api/v1/realm", { can_create_bots_group: { new: await t.systemGroupId("role:administrators") } }));
    expectError(await createBot("hamlet", { full_name: "Generic Two", short_name: "generic2" }), 400, "Insufficient permission");
    expect((await realmBots("iago")).length).toBe(before);
    expectSuccess(await createBot("hamlet", { full_name: "Incoming", short_name: "incoming", bot_type: 2 }));
    expectSuccess(await t.patch("iago", "/api/v1/realm", { can_create_bots_group: { new: await t.systemGroupId("role:members") } }));
  });

  it("creates one bot when several requests race for one username; the others are told it is in use", async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => createBot("hamlet", { full_name: `Racing Bot ${n}`, short_name: "racer" })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) expectError(r, 400, "Username already in use");
    expect(await t.ctx.db.kysely.selectFrom("users").select("id").where("email", "like", "racer-bot@%").execute()).toHaveLength(1);
  });
});

describe("PATCH, DELETE and key regeneration", () => {
  it("lets the owner and administrators change a bot, nobody else", async () => {
    const { user_id: botId } = expectSuccess(await createBot("hamlet", { full_name: "Changer", short_name: "changer" }));
    expectError(await t.patch("othello", `/api/v1/bots/${botId}`, { full_name: "Stolen" }), 400, "Insufficient permission");
    expectError(await t.patch("hamlet", `/api/v1/bots/${(await t.user("othello")).id}`, { full_name: "Not a bot" }), 400, "No such bot");
    expectError(await t.patch("hamlet", "/api/v1/bots/999999", { full_name: "Missing" }), 400, "No such bot");
    expectError(await t.patch("hamlet", `/api/v1/bots/${botId}`, { role: 200 }), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.patch("hamlet", `/api/v1/bots/${botId}`, { bot_owner_id: 999999 }), 400, "Failed to change owner, no such user");

    const res = expectSuccess(
      await t.patch("hamlet", `/api/v1/bots/${botId}`, { full_name: "Changer Two", default_sending_stream: "Denmark", default_all_public_streams: true }),
    );
    expect(res).toMatchObject({ full_name: "Changer Two", default_sending_stream: "Denmark", default_all_public_streams: true, bot_owner: "hamlet@zulip.com" });
    expect((await realmBots("hamlet")).find((b) => b.user_id === botId)).toMatchObject({
      full_name: "Changer Two",
      default_sending_stream: "Denmark",
      default_all_public_streams: true,
    });

    const othello = await t.user("othello");
    const { events } = await t.captureEvents(() => t.patch("iago", `/api/v1/bots/${botId}`, { bot_owner_id: othello.id }));
    expect((await realmBots("othello")).find((b) => b.user_id === botId)).toMatchObject({ owner_id: othello.id });
    expect((await realmBots("hamlet")).some((b) => b.user_id === botId)).toBe(false);
    const hamlet = await t.user("hamlet");
    expect(events.find((e) => e.event.type === "realm_bot" && e.event.op === "delete")?.users).toEqual([hamlet.id]);
    expectError(await t.patch("hamlet", `/api/v1/bots/${botId}`, { full_name: "Gone" }), 400, "Insufficient permission");
  });

  it("regenerates the API key: the old one stops working", async () => {
    const { user_id: botId, api_key: oldKey } = expectSuccess(await createBot("hamlet", { full_name: "Keyed", short_name: "keyed" }));
    const email = `keyed-bot@${new URL(t.config.externalUrl).hostname}`;
    const { api_key: newKey } = expectSuccess(await t.post("hamlet", `/api/v1/bots/${botId}/api_key/regenerate`));
    expect(newKey).not.toBe(oldKey);
    expect((await t.request("GET", null, "/api/v1/users/me", {}, { headers: botAuth(email, oldKey) })).status).toBe(401);
    expectSuccess(await t.request("GET", null, "/api/v1/users/me", {}, { headers: botAuth(email, newKey) }));
    expect((await realmBots("hamlet")).find((b) => b.user_id === botId).api_key).toBe(newKey);
    expectError(await t.post("othello", `/api/v1/bots/${botId}/api_key/regenerate`), 400, "Insufficient permission");
  });

  it("deactivates and reactivates a bot", async () => {
    const { user_id: botId, api_key: key } = expectSuccess(await createBot("hamlet", { full_name: "Sleeper", short_name: "sleeper" }));
    const email = `sleeper-bot@${new URL(t.config.externalUrl).hostname}`;
    expectError(await t.delete("othello", `/api/v1/bots/${botId}`), 400, "Insufficient permission");
    expectSuccess(await t.delete("hamlet", `/api/v1/bots/${botId}`));
    expect((await t.request("GET", null, "/api/v1/users/me", {}, { headers: botAuth(email, key) })).status).toBe(401);
    expect(expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots.some((b: any) => b.username === email)).toBe(false);
    expect((await realmBots("hamlet")).find((b) => b.user_id === botId)).toMatchObject({ is_active: false });
    expectError(await t.delete("hamlet", `/api/v1/bots/${botId}`), 400, "Bot is already deactivated");
    expectSuccess(await t.post("iago", `/api/v1/users/${botId}/reactivate`));
    expectSuccess(await t.request("GET", null, "/api/v1/users/me", {}, { headers: botAuth(email, key) }));
  });
});
