import { beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/http/routes.js";
import { seedChannels } from "../support/seed.js";
import { channelId, makeChannel, sendChannelMessage, sendDirectMessage } from "../support/factories.js";
import { type ApiResponse, expectError, expectSuccess, type Params, useTestServer } from "../support/testApp.js";

/**
 * Visitors without an account (Zulip's spectators): with enable_spectator_access on, a request
 * without credentials reads the web-public channels (seeded Rome, and one made here) through
 * POST /register, GET /messages and GET /messages/{id}, and nothing else: not the public Verona,
 * not the private channel, not direct messages; every other route answers 401.
 */
const t = useTestServer();
const NOT_LOGGED_IN = "Not logged in: API authentication or user session required";

let webPublic: number;
let privateChannel: number;
const sent = { webPublic: 0, rome: 0, verona: 0, private: 0, dm: 0 };

const narrowOf = (...terms: Array<[string, string | number, boolean?]>) =>
  terms.map(([operator, operand, negated]) => ({ operator, operand, negated: negated ?? false }));
const fetchAsVisitor = (narrow: object, extra: Params = {}) =>
  t.get(null, "/api/v1/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow, ...extra });
const ids = (res: ApiResponse): number[] => expectSuccess(res).messages.map((m: { id: number }) => m.id);
const expectRefused = (res: ApiResponse) => {
  expectError(res, 401, NOT_LOGGED_IN, "UNAUTHORIZED");
  expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
};
const setSpectatorAccess = async (on: boolean) => expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: on }));

beforeAll(async () => {
  await setSpectatorAccess(true);
  webPublic = await makeChannel(t, { name: "town square", by: "desdemona", subscribers: ["desdemona", "hamlet"], extra: { is_web_public: true } });
  privateChannel = await makeChannel(t, { name: "back office", by: "iago", invite_only: true, subscribers: ["iago", "hamlet"] });
  sent.webPublic = await sendChannelMessage(t, "hamlet", webPublic, "news", "open to everyone");
  sent.rome = await sendChannelMessage(t, "othello", "Rome", "forum", "also web-public");
  sent.verona = await sendChannelMessage(t, "hamlet", "Verona", "members", "members only");
  sent.private = await sendChannelMessage(t, "hamlet", privateChannel, "secret", "subscribers only");
  sent.dm = await sendDirectMessage(t, "hamlet", ["iago"], "just us");
});

describe("GET /messages for visitors", () => {
  it("reads the web-public channels only, every message read", async () => {
    const res = await fetchAsVisitor(narrowOf(["channels", "web-public"]));
    const got = ids(res);
    expect(got).toContain(sent.webPublic);
    expect(got).toContain(sent.rome);
    for (const hidden of [sent.verona, sent.private, sent.dm]) expect(got).not.toContain(hidden);
    const body = expectSuccess(res);
    expect(body.messages.every((m: { flags: string[] }) => JSON.stringify(m.flags) === '["read"]')).toBe(true);
    expect(body.messages.every((m: { stream_id: number }) => [webPublic, seedChannels.rome.id].includes(m.stream_id))).toBe(true);
    expect(body).toMatchObject({ found_newest: true, history_limited: false });
  });

  it("accepts Zulip's web app narrow, with in:home and a channel and topic", async () => {
    expect(ids(await fetchAsVisitor(narrowOf(["channels", "web-public"], ["in", "home"], ["channel", webPublic], ["topic", "news"])))).toEqual([
      sent.webPublic,
    ]);
    expect(
      ids(
        await fetchAsVisitor([
          ["streams", "web-public"],
          ["stream", "Rome"],
          ["sender", "othello@zulip.com"],
        ]),
      ),
    ).toContain(sent.rome);
  });

  it("accepts a narrow of one web-public channel, by id or name, with or without topic", async () => {
    expect(ids(await fetchAsVisitor(narrowOf(["channel", webPublic])))).toContain(sent.webPublic);
    expect(ids(await fetchAsVisitor(narrowOf(["channel", "TOWN SQUARE"], ["topic", "news"])))).toEqual([sent.webPublic]);
    expect(ids(await fetchAsVisitor(narrowOf(["channel", webPublic], ["topic", "other"])))).toEqual([]);
  });

  it("answers the first_unread anchor with the newest messages", async () => {
    const body = expectSuccess(
      await t.get(null, "/api/v1/messages", {
        anchor: "first_unread",
        num_before: 5,
        num_after: 5,
        narrow: narrowOf(["channel", webPublic], ["topic", "news"]),
      }),
    );
    expect(body.messages.map((m: { id: number }) => m.id)).toEqual([sent.webPublic]);
    expect(body.anchor).toBe(10000000000000000);
  });

  it("refuses narrows that are not web-public queries, or use operators visitors may not", async () => {
    const refused: object[] = [
      [],
      narrowOf(["channels", "web-public", true]),
      narrowOf(["channel", "Verona"]),
      narrowOf(["channel", privateChannel]),
      narrowOf(["channel", webPublic, true]),
      narrowOf(["channels", "public"]),
      narrowOf(["channels", "web-public"], ["is", "starred"]),
      narrowOf(["channels", "web-public"], ["is", "dm"]),
      narrowOf(["channels", "web-public"], ["dm", "iago@zulip.com"]),
      narrowOf(["channels", "web-public"], ["dm-including", "iago@zulip.com"]),
      narrowOf(["channels", "web-public"], ["in", "all"]),
    ];
    for (const narrow of refused) expectRefused(await fetchAsVisitor(narrow));
    expectRefused(await t.get(null, "/api/v1/messages", { anchor: "newest", num_before: 10, num_after: 0 }));
  });

  it("names no channel visitors may not read", async () => {
    for (const channel of ["Verona", privateChannel, "no such channel"]) {
      const desc = `unknown web-public channel ${channel}`;
      const res = await fetchAsVisitor(narrowOf(["channels", "web-public"], ["channel", channel]));
      expect(expectError(res, 400, `Invalid narrow operator: ${desc}`, "BAD_NARROW").desc).toBe(desc);
    }
  });

  it("finds nothing outside the web-public channels, whatever the other terms", async () => {
    for (const id of [sent.verona, sent.private, sent.dm]) {
      expect(ids(await fetchAsVisitor(narrowOf(["channels", "web-public"], ["id", id])))).toEqual([]);
      // Zulip: `with` a message the reader may not read is dropped from the narrow.
      expect(ids(await fetchAsVisitor(narrowOf(["channels", "web-public"], ["with", id])))).not.toContain(id);
      expect(ids(await fetchAsVisitor(narrowOf(["channels", "web-public"]), { anchor: String(id), num_before: 0, num_after: 0 }))).toEqual([]);
    }
    expect(ids(await fetchAsVisitor(narrowOf(["channels", "web-public"], ["search", "subscribers"])))).toEqual([]);
    expect(ids(await fetchAsVisitor(narrowOf(["channels", "web-public"], ["search", "everyone"])))).toEqual([sent.webPublic]);
    const byIds = await t.get(null, "/api/v1/messages", {
      message_ids: [sent.webPublic, sent.verona, sent.private, sent.dm],
      narrow: narrowOf(["channels", "web-public"]),
    });
    expect(ids(byIds)).toEqual([sent.webPublic]);
  });

  it("shows senders with their API emails and avatars, no client_gravatar", async () => {
    const body = expectSuccess(await fetchAsVisitor(narrowOf(["channel", webPublic], ["topic", "news"]), { client_gravatar: true }));
    const [message] = body.messages;
    const hamlet = await t.user("hamlet");
    expect(message).toMatchObject({ sender_id: hamlet.id, sender_email: hamlet.email, sender_full_name: hamlet.full_name });
    expect(message.avatar_url).not.toBeNull();
  });

  it("serves the /json surface without a session too, with its own 401", async () => {
    const ok = await t.app.inject({
      method: "GET",
      url: "/json/messages",
      query: { anchor: "newest", num_before: "10", num_after: "0", narrow: JSON.stringify(narrowOf(["channel", webPublic], ["topic", "news"])) },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().messages.map((m: { id: number }) => m.id)).toEqual([sent.webPublic]);
    const refused = await t.app.inject({ method: "GET", url: "/json/messages", query: { anchor: "newest", num_before: "10", num_after: "0", narrow: "[]" } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers["www-authenticate"]).toBe('Session realm="zulip"');
    // A session cookie that names no session is no credential (Django: an anonymous request).
    const stale = await t.app.inject({
      method: "GET",
      url: "/json/messages",
      cookies: { sessionid: "no-such-session" },
      query: { anchor: "newest", num_before: "10", num_after: "0", narrow: JSON.stringify(narrowOf(["channel", webPublic], ["topic", "news"])) },
    });
    expect(stale.statusCode).toBe(200);
  });

  it("still reads as the user when credentials are sent", async () => {
    expect(
      ids(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: narrowOf(["channel", "Verona"]) })),
    ).toContain(sent.verona);
    expectError(
      await t.get(
        null,
        "/api/v1/messages",
        { anchor: "newest", num_before: 1, num_after: 0 },
        { headers: { Authorization: `Basic ${Buffer.from(`nobody@zulip.com:${"x".repeat(32)}`).toString("base64")}` } },
      ),
      401,
      "Invalid API key",
      "UNAUTHORIZED",
    );
  });
});

describe("GET /messages/{id} for visitors", () => {
  it("reads a message of a web-public channel", async () => {
    const body = expectSuccess(await t.get(null, `/api/v1/messages/${sent.webPublic}`));
    expect(body.raw_content).toBe("open to everyone");
    expect(body.message).toMatchObject({ id: sent.webPublic, stream_id: webPublic, flags: ["read"] });
  });

  it("answers 401 for any other message, missing ones alike", async () => {
    for (const id of [sent.verona, sent.private, sent.dm, 999999]) expectRefused(await t.get(null, `/api/v1/messages/${id}`));
  });
});

describe("GET /users/me/{stream_id}/topics for visitors", () => {
  it("lists a web-public channel's topics, newest first", async () => {
    await sendChannelMessage(t, "desdemona", webPublic, "market day", "stalls at nine");
    const body = expectSuccess(await t.get(null, `/api/v1/users/me/${webPublic}/topics`));
    expect(body.topics.map((topic: { name: string }) => topic.name).slice(0, 2)).toEqual(["market day", "news"]);
  });

  it("answers Zulip's Invalid channel ID for any other channel, missing ones alike", async () => {
    const verona = await channelId(t, "Verona");
    for (const id of [verona, privateChannel, 999999]) expectError(await t.get(null, `/api/v1/users/me/${id}/topics`), 400, "Invalid channel ID");
  });
});

describe("POST /register for visitors", () => {
  it("gives the state Zulip gives spectators, with a visitor's queue (none for event_types [], as Zulip)", async () => {
    const body = expectSuccess(await t.post(null, "/api/v1/register", {}));
    expect(typeof body.queue_id).toBe("string");
    expect(body.last_event_id).toBe(-1);
    const none = expectSuccess(await t.post(null, "/api/v1/register", { event_types: JSON.stringify([]) }));
    expect(none.queue_id).toBeNull();
    expect(none).not.toHaveProperty("last_event_id");
    expect(body).not.toHaveProperty("streams");
    expect(body).toMatchObject({
      user_id: 0,
      full_name: "Anonymous User",
      email: "username@example.com",
      is_admin: false,
      is_owner: false,
      is_moderator: false,
      is_guest: true,
      can_create_streams: false,
      can_invite_others_to_realm: false,
      realm_allow_message_editing: false,
      realm_presence_disabled: true,
      presences: {},
      max_message_id: -1,
      unread_msgs: { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false },
      recent_private_conversations: [],
      starred_messages: [],
      alert_words: [],
      drafts: [],
      scheduled_messages: [],
      saved_snippets: [],
      muted_users: [],
      user_topics: [],
      custom_profile_fields: [],
      realm_bots: [],
      realm_default_streams: [],
      user_status: {},
      unsubscribed: [],
      never_subscribed: [],
    });
    expect(body.user_settings).toMatchObject({ web_home_view: "recent_topics", default_language: "en" });
    const channels = body.subscriptions.map((s: { stream_id: number }) => s.stream_id).sort((a: number, b: number) => a - b);
    expect(channels).toEqual([seedChannels.rome.id, webPublic].sort((a, b) => a - b));
    expect(body.subscriptions[0]).toMatchObject({ is_muted: false, in_home_view: true, desktop_notifications: true, is_web_public: true });
    expect(body.subscriptions[0]).not.toHaveProperty("subscribers");
  });

  it("lists users without real addresses or time zones", async () => {
    const body = expectSuccess(await t.post(null, "/api/v1/register", { fetch_event_types: ["realm_user"] }));
    const hamlet = await t.user("hamlet");
    const listed = body.realm_users.find((u: { user_id: number }) => u.user_id === hamlet.id);
    expect(listed).toMatchObject({ email: hamlet.email, delivery_email: null, full_name: hamlet.full_name });
    expect(listed).not.toHaveProperty("timezone");
    expect(listed).not.toHaveProperty("profile_data");
    expect(listed.date_joined).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const u of [...body.realm_users, ...body.realm_non_active_users]) expect(u.delivery_email).toBeNull();
  });

  it("refuses client_gravatar and include_subscribers", async () => {
    expectError(await t.post(null, "/api/v1/register", { client_gravatar: true }), 400, "Invalid 'client_gravatar' parameter for anonymous request");
    expectError(await t.post(null, "/api/v1/register", { include_subscribers: true }), 400, "Invalid 'include_subscribers' parameter for anonymous request");
    expectSuccess(await t.post(null, "/api/v1/register", { client_gravatar: false }));
  });

  it("takes the visitor's language from Zulip's language cookie", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/json/register",
      cookies: { django_language: "de" },
      payload: { fetch_event_types: '["user_settings"]' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().user_settings.default_language).toBe("de");
    const odd = await t.app.inject({
      method: "POST",
      url: "/json/register",
      cookies: { django_language: "<b>x</b>" },
      payload: { fetch_event_types: '["user_settings"]' },
    });
    expect(odd.json().user_settings.default_language).toBe("en");
  });

  it("still registers a queue for a user", async () => {
    const body = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["message"] }));
    expect(typeof body.queue_id).toBe("string");
  });
});

describe("the other routes", () => {
  const visitorRoutes = ROUTES.filter((r) => r.endpoint.auth === "visitor").map((r) => `${r.method} ${r.path}`);

  it("lets visitors call only GET /messages, GET /messages/{id}, a channel's topics, POST /register and their queue's GET/DELETE /events", () => {
    expect(visitorRoutes.sort()).toEqual([
      "DELETE /events",
      "GET /events",
      "GET /messages",
      "GET /messages/:message_id",
      "GET /users/me/:stream_id/topics",
      "POST /register",
    ]);
  });

  it("answer 401 to a visitor on every route that needs a user, whatever the method", async () => {
    const routes = ROUTES.filter((r) => r.endpoint.auth === "user");
    expect(routes.filter((r) => r.method === "GET").length).toBeGreaterThan(30);
    for (const route of routes) {
      const path = route.path.replace(/:[a-z_]+/g, "1");
      const res = await t.request(route.method, null, `/api/v1${path}`, {}, { skipOpenApi: true });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
      expect(res.body, `${route.method} ${route.path}`).toMatchObject({ result: "error", msg: NOT_LOGGED_IN, code: "UNAUTHORIZED" });
    }
  });
});

describe("turning spectator access off", () => {
  it("turns visitors away, and back in when on again", async () => {
    await setSpectatorAccess(false);
    try {
      expectRefused(await fetchAsVisitor(narrowOf(["channels", "web-public"])));
      expectRefused(await t.get(null, `/api/v1/messages/${sent.webPublic}`));
      expectRefused(await t.post(null, "/api/v1/register", {}));
    } finally {
      await setSpectatorAccess(true);
    }
    expect(ids(await fetchAsVisitor(narrowOf(["channel", webPublic], ["topic", "news"])))).toEqual([sent.webPublic]);
  });

  it("turns visitors away when no channel is web-public", async () => {
    const db = t.ctx.db.kysely;
    const webPublicIds = [webPublic, seedChannels.rome.id];
    await db.updateTable("streams").set({ is_web_public: 0 }).where("id", "in", webPublicIds).execute();
    try {
      expectRefused(await t.post(null, "/api/v1/register", {}));
    } finally {
      await db.updateTable("streams").set({ is_web_public: 1 }).where("id", "in", webPublicIds).execute();
    }
  });
});
