import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { type ApiResponse, expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";
import { at } from "../support/at.js";

const t = useTestServer();

async function createBot(who: string, params: Record<string, unknown>) {
  return t.post(who, "/api/v1/bots", params as never);
}

async function realmBots(who: string) {
  return expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: ["realm_bot"] })).realm_bots as any[];
}

function botAuth(email: string, apiKey: string) {
  return { Authorization: basicAuth(email, apiKey) };
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
        user_id: body.user_id,
        services: [],
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
    // GET /bots names it by id too (PATCH /bots/{bot_id} needs it) and shows the same service.
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots.find((b: any) => b.username.startsWith("hook-bot@"));
    expect(listed).toMatchObject({ user_id: body.user_id, full_name: "Hook", default_sending_stream: "Verona", services: bot.services });
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

/** A 300×200 PNG, `left` on the left half and `right` on the right (cropping to a square keeps both). */
const picture = (left: string, right: string) =>
  sharp({ create: { width: 300, height: 200, channels: 3, background: left } })
    .composite([{ input: { create: { width: 150, height: 200, channels: 3, background: right } }, left: 150, top: 0 }])
    .png()
    .toBuffer();

/** `method` `path` as `who` with a real multipart body: text fields and files. */
async function multipart(who: string, method: "POST" | "PATCH", path: string, fields: Record<string, string>, files: Buffer[]): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  files.forEach((data, i) => form.append(`file-${i}`, new Blob([new Uint8Array(data)], { type: "image/png" }), `avatar-${i}.png`));
  const res = await fetch(t.baseUrl + path, { method, headers: { Authorization: await t.authHeader(who) }, body: form });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** The avatar at `url` as `who` sees it: size and the colours at the left and right edges. */
async function avatarAt(who: string, url: string) {
  const res = await fetch(new URL(url, t.baseUrl), { headers: { Authorization: await t.authHeader(who) } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/png");
  const image = sharp(Buffer.from(await res.arrayBuffer()));
  const { width, height } = await image.metadata();
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number) => [...data.subarray((Math.floor(info.height / 2) * info.width + x) * info.channels).subarray(0, 3)];
  return { width, height, left: pixel(2), right: pixel(info.width - 3) };
}

describe("bot avatars", () => {
  it("POST /bots with an image creates the bot with that avatar, resized as user avatars are", async () => {
    const { result, events } = await t.captureEvents(async () =>
      multipart("hamlet", "POST", "/api/v1/bots", { full_name: "Painter", short_name: "painter" }, [await picture("#ff0000", "#0000ff")]),
    );
    const body = expectSuccess(result);
    const hamlet = await t.user("hamlet");
    expect(body.avatar_url).toBe(`/user_avatars/${hamlet.realm_id}/${body.user_id}.png?version=1`);
    expect(await avatarAt("othello", body.avatar_url)).toEqual({ width: 100, height: 100, left: [255, 0, 0], right: [0, 0, 255] });
    const medium = `/user_avatars/${hamlet.realm_id}/${body.user_id}-medium.png?version=1`;
    expect(await avatarAt("othello", medium)).toMatchObject({ width: 500, height: 500 });

    // Everyone learns of the bot with that avatar; GET /bots, realm_bots and GET /users show it.
    expect(events.find((e) => e.event.type === "realm_bot")?.event).toMatchObject({ op: "add", bot: { user_id: body.user_id, avatar_url: body.avatar_url } });
    expect(events.find((e) => e.event.type === "realm_user")?.event).toMatchObject({
      op: "add",
      person: { user_id: body.user_id, avatar_url: body.avatar_url, avatar_version: 1 },
    });
    expect(expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots.find((b: any) => b.user_id === body.user_id).avatar_url).toBe(body.avatar_url);
    expect((await realmBots("hamlet")).find((b) => b.user_id === body.user_id).avatar_url).toBe(body.avatar_url);
    expect(expectSuccess(await t.get("othello", `/api/v1/users/${body.user_id}`, { client_gravatar: false })).user.avatar_url).toBe(body.avatar_url);
  });

  it("PATCH /bots/{bot_id} with an image changes the avatar for its owner or an administrator, with Zulip's events", async () => {
    const { user_id: botId, avatar_url: before } = expectSuccess(await createBot("hamlet", { full_name: "Chameleon", short_name: "chameleon" }));
    expect(before).toContain("gravatar.com");
    const hamlet = await t.user("hamlet");
    const { result, events } = await t.captureEvents(async () =>
      multipart("hamlet", "PATCH", `/api/v1/bots/${botId}`, { full_name: "Chameleon Green" }, [await picture("#00ff00", "#00ff00")]),
    );
    const body = expectSuccess(result);
    const url = `/user_avatars/${hamlet.realm_id}/${botId}.png?version=2`;
    expect(body).toMatchObject({ full_name: "Chameleon Green", avatar_url: url, bot_owner: "hamlet@zulip.com" });
    expect(await avatarAt("othello", url)).toEqual({ width: 100, height: 100, left: [0, 255, 0], right: [0, 255, 0] });
    const avatarEvents = events.filter((e) => JSON.stringify(e.event).includes("avatar_url"));
    expect(avatarEvents.map((e) => e.event)).toEqual([
      {
        type: "realm_user",
        op: "update",
        person: {
          user_id: botId,
          avatar_source: "U",
          avatar_url: url,
          avatar_url_medium: `/user_avatars/${hamlet.realm_id}/${botId}-medium.png?version=2`,
          avatar_version: 2,
        },
      },
      { type: "realm_bot", op: "update", bot: { user_id: botId, avatar_url: url } },
    ]);
    expect(at(avatarEvents, 0).users).toContain((await t.user("othello")).id);
    expect(at(avatarEvents, 1).users).toContain(hamlet.id);
    expect(at(avatarEvents, 1).users).not.toContain((await t.user("othello")).id);
    expect((await realmBots("hamlet")).find((b) => b.user_id === botId)).toMatchObject({ full_name: "Chameleon Green", avatar_url: url });

    // Somebody else's bot: refused, nothing changed; an administrator may.
    expectError(await multipart("othello", "PATCH", `/api/v1/bots/${botId}`, {}, [await picture("#000000", "#000000")]), 400, "Insufficient permission");
    expectError(await multipart("polonius", "PATCH", `/api/v1/bots/${botId}`, {}, [await picture("#000000", "#000000")]), 400, "Not allowed for guest users");
    expect(await avatarAt("hamlet", url)).toMatchObject({ left: [0, 255, 0] });
    const byAdmin = expectSuccess(await multipart("iago", "PATCH", `/api/v1/bots/${botId}`, {}, [await picture("#ffffff", "#ffffff")]));
    expect(byAdmin.avatar_url).toBe(`/user_avatars/${hamlet.realm_id}/${botId}.png?version=3`);
    expect(await avatarAt("hamlet", byAdmin.avatar_url)).toMatchObject({ left: [255, 255, 255] });
  });

  it("refuses two files and anything but an image, creating and changing nothing", async () => {
    const before = (await realmBots("iago")).length;
    const two = [await picture("#ff0000", "#ff0000"), await picture("#0000ff", "#0000ff")];
    expectError(
      await multipart("hamlet", "POST", "/api/v1/bots", { full_name: "Twins", short_name: "twins" }, two),
      400,
      "You may only upload one file at a time",
    );
    const text = Buffer.from("not an image at all");
    expectError(
      await multipart("hamlet", "POST", "/api/v1/bots", { full_name: "Scribble", short_name: "scribble" }, [text]),
      400,
      "Could not decode image; did you upload an image file?",
    );
    // An error about the rest of the request comes first, as in Zulip.
    expectError(await multipart("hamlet", "POST", "/api/v1/bots", { full_name: "Scribble", short_name: "  " }, [text]), 400, "Bad name or username");
    expect((await realmBots("iago")).length).toBe(before);

    const { user_id: botId } = expectSuccess(await createBot("hamlet", { full_name: "Plain", short_name: "plain" }));
    expectError(await multipart("hamlet", "PATCH", `/api/v1/bots/${botId}`, { full_name: "Plain Two" }, two), 400, "You may only upload one file at a time");
    expectError(
      await multipart("hamlet", "PATCH", `/api/v1/bots/${botId}`, { full_name: "Plain Two" }, [text]),
      400,
      "Could not decode image; did you upload an image file?",
    );
    expect((await realmBots("hamlet")).find((b) => b.user_id === botId)).toMatchObject({
      full_name: "Plain",
      avatar_url: expect.stringContaining("gravatar.com"),
    });
  });
});
