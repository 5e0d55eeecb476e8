import { describe, expect, it } from "vitest";
import { channelId } from "../support/factories.js";
import { seedIds, seedSubscribers } from "../support/seed.js";
import { expectError, expectSuccess, type Params, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();
const SUBS = "/api/v1/users/me/subscriptions";

async function subscriberIds(streamId: number): Promise<number[]> {
  return expectSuccess(await t.get("iago", `/api/v1/streams/${streamId}/members`)).subscribers;
}

describe("GET /users/me/subscriptions", () => {
  it("lists the user's channels by name with subscription settings", async () => {
    const body = expectSuccess(await t.get("hamlet", SUBS));
    expect(body.subscriptions.map((s: any) => s.name)).toEqual(["Denmark", "Verona", "core team"]);
    const verona = body.subscriptions.find((s: any) => s.name === "Verona");
    expect(verona).toMatchObject({ stream_id: 1, is_muted: false, in_home_view: true, pin_to_top: false, desktop_notifications: null, invite_only: false });
    expect(verona.subscribers).toBeUndefined();
    expect(verona.first_message_id).toBeTypeOf("number");
    expect(verona.stream_weekly_traffic).toBeNull(); // younger than a week
    expect(verona.is_recently_active).toBe(true);
  });

  it("counts a channel's weekly traffic from every message sent, concurrent sends included", async () => {
    // A channel four weeks old: its traffic is the last 28 days' messages / 4 (Zulip's average).
    await t.ctx.db.kysely
      .updateTable("streams")
      .set({ date_created: Math.floor(Date.now() / 1000) - 40 * 86400 })
      .where("name", "=", "Denmark")
      .execute();
    const traffic = async () => expectSuccess(await t.get("hamlet", SUBS)).subscriptions.find((s: any) => s.name === "Denmark").stream_weekly_traffic;
    const denmarkMessages = async () =>
      expectSuccess(
        await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow: JSON.stringify([["channel", "Denmark"]]) }),
      ).messages.length;
    expect(await traffic()).toBe(Math.max(1, Math.floor((await denmarkMessages()) / 4)));
    // 40 more messages, ten at a time: their counts land on several rows of the day, all summed.
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "traffic", content: `message ${round}.${i}` }).then(expectSuccess),
        ),
      );
    }
    expect(await denmarkMessages()).toBeGreaterThanOrEqual(40);
    expect(await traffic()).toBe(Math.floor((await denmarkMessages()) / 4));
  });

  it("includes subscribers on request", async () => {
    const body = expectSuccess(await t.get("hamlet", SUBS, { include_subscribers: true }));
    expect(body.subscriptions.find((s: any) => s.name === "core team").subscribers).toEqual(seedSubscribers.coreTeam);
  });

  it("requires authentication", async () => {
    expectError(await t.get(null, SUBS), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("POST /users/me/subscriptions", () => {
  it("subscribes oneself to an existing public channel, with events", async () => {
    const { result: res, events } = await t.captureEvents(() => t.post("cordelia", SUBS, { subscriptions: [{ name: "Denmark" }] }));
    expect(expectSuccess(res)).toMatchObject({ subscribed: { "8": ["Denmark"] }, already_subscribed: {} });
    const add = events.find((e) => e.event.type === "subscription" && e.event.op === "add")!;
    expect(add.users).toEqual([8]);
    expect((add.event.subscriptions as any[])[0]).toMatchObject({
      name: "Denmark",
      stream_id: 2,
      subscribers: expect.arrayContaining(seedIds("cordelia", "hamlet")),
    });
    const peer = events.find((e) => e.event.op === "peer_add")!;
    expect(peer.event).toEqual({ type: "subscription", op: "peer_add", stream_ids: [2], user_ids: [8] });
    expect(peer.users).not.toContain(8);
    expect(peer.users).not.toContain(13); // the guest cannot see Denmark
    expect(await subscriberIds(2)).toContain(8);
  });

  it("reports channels already subscribed", async () => {
    const body = expectSuccess(await t.post("hamlet", SUBS, { subscriptions: [{ name: "verona" }] }));
    expect(body).toMatchObject({ subscribed: {}, already_subscribed: { "10": ["Verona"] } });
  });

  it("creates a channel with Zulip's defaults and announces it", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("othello", SUBS, { subscriptions: [{ name: " new channel ", description: "line one\nline <two>" }] }),
    );
    expect(expectSuccess(res).subscribed).toEqual({ "12": ["new channel"] });
    const created = events.find((e) => e.event.type === "stream" && e.event.op === "create")!;
    const stream = (created.event.streams as any[])[0];
    expect(stream).toMatchObject({
      name: "new channel",
      description: "line one line <two>",
      rendered_description: "<p>line one line &lt;two&gt;</p>",
      creator_id: 12,
      invite_only: false,
      history_public_to_subscribers: true,
      stream_weekly_traffic: null,
      first_message_id: null,
      is_recently_active: true,
      can_administer_channel_group: { direct_members: [12], direct_subgroups: [] },
      stream_post_policy: 1,
    });
    expect(created.users).toContain(6);
    expect(created.users).not.toContain(13);
  });

  it("creates a private channel seen only by its subscribers and administrators", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("hamlet", SUBS, { subscriptions: [{ name: "secret plans" }], invite_only: true, principals: seedIds("hamlet", "othello") }),
    );
    expect(expectSuccess(res).subscribed).toEqual({ "10": ["secret plans"], "12": ["secret plans"] });
    for (const { event, users } of events) {
      expect(users).not.toContain(6); // aaron sees nothing of it
      if (event.type === "stream") expect(users.every((u) => seedIds("desdemona", "hamlet", "iago", "othello").includes(u))).toBe(true);
    }
    const id = await channelId(t, "secret plans", "hamlet");
    expectError(await t.get("aaron", `/api/v1/streams/${id}`), 400, "Invalid channel ID");
    expect(expectSuccess(await t.get("iago", `/api/v1/streams/${id}`)).stream).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
  });

  it("refuses private channels the user cannot access, or lists them when not fatal", async () => {
    expectError(await t.post("aaron", SUBS, { subscriptions: [{ name: "core team" }] }), 400, "Unable to access channel (core team).");
    const body = expectSuccess(await t.post("aaron", SUBS, { subscriptions: [{ name: "core team" }], authorization_errors_fatal: false }));
    expect(body).toEqual({ result: "success", msg: "", subscribed: {}, already_subscribed: {}, unauthorized: ["core team"] });
    // An administrator sees the channel but may not read it.
    expectError(await t.post("shiva", SUBS, { subscriptions: [{ name: "core team" }] }), 400, "Unable to access channel (core team).");
  });

  it("lets guests do nothing", async () => {
    expectError(await t.post("polonius", SUBS, { subscriptions: [{ name: "Denmark" }] }), 400, "Not allowed for guest users");
  });

  it("subscribes other users by email or id and needs only content access", async () => {
    const body = expectSuccess(await t.post("hamlet", SUBS, { subscriptions: [{ name: "Scotland" }], principals: ["cordelia@zulip.com"] }));
    expect(body.subscribed).toEqual({ "8": ["Scotland"] });
    expectError(await t.post("hamlet", SUBS, { subscriptions: [{ name: "Scotland" }], principals: [9999] }), 400, "No such user");
    expectError(await t.post("hamlet", SUBS, { subscriptions: [{ name: "Scotland" }], principals: ["nobody@zulip.com"] }), 400, "No such user");
  });

  it("rejects bad parameters without creating anything", async () => {
    const before = await t.ctx.db.kysely.selectFrom("streams").select("id").execute();
    const cases: Array<[Params, string]> = [
      [{ subscriptions: [{ name: "" }] }, "Channel name can't be empty."],
      [{ subscriptions: [{ name: "x".repeat(61) }] }, "Channel name too long (limit: 60 characters)."],
      [{ subscriptions: [{ name: "bad\u0000name" }] }, "Invalid character in channel name, at position 4."],
      [{ subscriptions: [{ name: "ok", description: "d".repeat(1025) }] }, 'subscriptions[0]["description"] is too long (limit: 1024 characters)'],
      [{ subscriptions: [{ name: "ok", color: "red" }] }, "add.color is not a valid hex color code"],
      [{ subscriptions: "Denmark" }, "subscriptions is not valid JSON"],
      [{ subscriptions: [{ name: "ok" }], message_retention_days: 5 }, "Must be an organization owner"],
      [{ subscriptions: [{ name: "ok" }], message_retention_days: "soon" }, "Bad value for 'message_retention_days': soon"],
      [{ subscriptions: [{ name: "ok" }], is_default_stream: true }, "Insufficient permission"],
      [{ subscriptions: [{ name: "ok" }], is_web_public: true }, "Web-public channels are not enabled."],
      [{ subscriptions: [{ name: "ok" }], can_send_message_group: 99999 }, "Invalid user group"],
      [{ subscriptions: [{ name: "ok" }], principals: [6, 9999] }, "No such user"],
    ];
    for (const [params, msg] of cases) {
      const res = await t.post("hamlet", SUBS, params);
      expect(res.body.msg, JSON.stringify(params)).toBe(msg);
      expect(res.status).toBe(400);
    }
    expectError(await t.post("hamlet", SUBS, {}), 400, "Missing 'subscriptions' argument", "REQUEST_VARIABLE_MISSING");
    const after = await t.ctx.db.kysely.selectFrom("streams").select("id").execute();
    expect(after.length).toBe(before.length);
  });

  it("lets an owner set retention and an administrator make a default channel", async () => {
    expectSuccess(await t.post("desdemona", SUBS, { subscriptions: [{ name: "kept" }], message_retention_days: "unlimited" }));
    expectSuccess(await t.post("iago", SUBS, { subscriptions: [{ name: "everyone's" }], is_default_stream: true }));
    const body = expectSuccess(await t.get("iago", "/api/v1/streams", { include_default: true }));
    expect(body.streams.find((s: any) => s.name === "kept").message_retention_days).toBe(-1);
    expect(body.streams.find((s: any) => s.name === "everyone's").is_default).toBe(true);
  });

  it("accepts anonymous group settings", async () => {
    const res = await t.post("iago", SUBS, {
      subscriptions: [{ name: "announcements" }],
      can_send_message_group: { direct_members: [11], direct_subgroups: [] },
      can_remove_subscribers_group: { direct_members: [], direct_subgroups: [] },
    });
    expectSuccess(res);
    const stream = expectSuccess(await t.get("iago", `/api/v1/streams/${await channelId(t, "announcements")}`)).stream;
    expect(stream.can_send_message_group).toEqual({ direct_members: [11], direct_subgroups: [] });
    expect(typeof stream.can_remove_subscribers_group).toBe("number");
    expectError(
      await t.post("iago", SUBS, { subscriptions: [{ name: "x1" }], can_subscribe_group: await systemGroup("role:everyone") }),
      400,
      "'can_subscribe_group' setting cannot be set to 'role:everyone' group.",
    );
  });
});

async function systemGroup(name: string): Promise<number> {
  const row = await t.ctx.db.kysely.selectFrom("user_groups").select("id").where("name", "=", name).where("realm_id", "=", 2).executeTakeFirstOrThrow();
  return Number(row.id);
}

describe("DELETE /users/me/subscriptions", () => {
  it("unsubscribes oneself and tells peers", async () => {
    const { result: res, events } = await t.captureEvents(() => t.delete("prospero", SUBS, { subscriptions: ["Venice", "Rome"] }));
    expect(expectSuccess(res)).toMatchObject({ removed: ["Venice"], not_removed: ["Rome"] });
    expect(events.find((e) => e.event.op === "remove")).toMatchObject({ event: { subscriptions: [{ name: "Venice", stream_id: 4 }] }, users: [14] });
    expect(events.find((e) => e.event.op === "peer_remove")!.event).toEqual({ type: "subscription", op: "peer_remove", stream_ids: [4], user_ids: [14] });
    expect(await subscriberIds(4)).not.toContain(14);
  });

  it("needs permission to remove others", async () => {
    expectError(await t.delete("hamlet", SUBS, { subscriptions: ["Verona"], principals: [6] }), 400, "Insufficient permission");
    expect(expectSuccess(await t.delete("iago", SUBS, { subscriptions: ["Verona"], principals: [6] })).removed).toEqual(["Verona"]);
  });

  it("sends a stream delete to a user who loses sight of a private channel", async () => {
    const { result: res, events } = await t.captureEvents(() => t.delete("hamlet", SUBS, { subscriptions: ["core team"] }));
    expectSuccess(res);
    expect(events.find((e) => e.event.type === "stream" && e.event.op === "delete")).toMatchObject({ users: [10], event: { stream_ids: [6] } });
    expect(events.find((e) => e.event.op === "peer_remove")!.users).not.toContain(6);
  });

  it("rejects unknown channels", async () => {
    expectError(await t.delete("hamlet", SUBS, { subscriptions: ["nowhere", "Verona"] }), 400, "Channel(s) (nowhere) do not exist");
  });
});

describe("POST /users/me/subscriptions/properties", () => {
  const URL = "/api/v1/users/me/subscriptions/properties";

  it("mutes with two events and sets colour and pin", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("othello", URL, {
        subscription_data: [
          { stream_id: 1, property: "in_home_view", value: false },
          { stream_id: 1, property: "color", value: "#aabbcc" },
          { stream_id: 1, property: "pin_to_top", value: true },
        ],
      }),
    );
    expectSuccess(res);
    expect(events.map((e) => [e.event.property, e.event.value])).toEqual([
      ["in_home_view", false],
      ["is_muted", true],
      ["color", "#aabbcc"],
      ["pin_to_top", true],
    ]);
    const verona = expectSuccess(await t.get("othello", SUBS)).subscriptions.find((s: any) => s.stream_id === 1);
    expect(verona).toMatchObject({ is_muted: true, in_home_view: false, color: "#aabbcc", pin_to_top: true });
  });

  it("rejects bad changes and writes none of them", async () => {
    const cases: Array<[object, string]> = [
      [[{ stream_id: 1, property: "colour", value: "#aabbcc" }], "Unknown subscription property: colour"],
      [[{ stream_id: 1, property: "is_muted", value: "yes" }], "is_muted is not a boolean"],
      [[{ stream_id: 1, property: "color", value: "blue" }], "color is not a valid hex color code"],
      [[{ stream_id: 5, property: "is_muted", value: true }], "Not subscribed to channel ID 5"],
      [[{ stream_id: 6, property: "is_muted", value: true }], "Invalid channel ID"],
      [
        [
          { stream_id: 1, property: "pin_to_top", value: false },
          { stream_id: 999, property: "is_muted", value: true },
        ],
        "Invalid channel ID",
      ],
    ];
    for (const [data, msg] of cases) expectError(await t.post("othello", URL, { subscription_data: data }), 400, msg);
    const verona = expectSuccess(await t.get("othello", SUBS)).subscriptions.find((s: any) => s.stream_id === 1);
    expect(verona.pin_to_top).toBe(true);
  });
});

describe("GET /users/{user_id}/subscriptions/{stream_id}", () => {
  it("answers is_subscribed for channels the caller can see", async () => {
    expect(expectSuccess(await t.get("aaron", "/api/v1/users/10/subscriptions/2")).is_subscribed).toBe(true);
    expect(expectSuccess(await t.get("aaron", "/api/v1/users/6/subscriptions/2")).is_subscribed).toBe(false);
    expectError(await t.get("aaron", "/api/v1/users/10/subscriptions/6"), 400, "Invalid channel ID");
    expectError(await t.get("aaron", "/api/v1/users/9999/subscriptions/2"), 400, "No such user");
  });
});

describe("PATCH /users/me/subscriptions", () => {
  const names = async (who: string) => expectSuccess(await t.get(who, SUBS)).subscriptions.map((s: { name: string }) => s.name);

  it("subscribes and unsubscribes in one request, answering with both results", async () => {
    const before = await names("cordelia");
    expect(before).toContain("Verona");
    const res = expectSuccess(
      await t.patch("cordelia", SUBS, { add: JSON.stringify([{ name: "patch-new-channel", color: "#76ce90" }]), delete: JSON.stringify(["Verona"]) }),
    );
    expect(Object.values(res.subscribed)).toEqual([["patch-new-channel"]]);
    expect(res.already_subscribed).toEqual({});
    expect(res.removed).toEqual(["Verona"]);
    expect(res.not_removed).toEqual([]);
    const after = await names("cordelia");
    expect(after).toContain("patch-new-channel");
    expect(after).not.toContain("Verona");
  });

  it("changes nothing when a part is refused, and needs something to do", async () => {
    const before = await names("cordelia");
    expectError(
      await t.patch("cordelia", SUBS, { add: JSON.stringify([{ name: "patch-never-created" }]), delete: JSON.stringify(["no-such-channel-here"]) }),
      400,
      "Channel(s) (no-such-channel-here) do not exist",
    );
    expect(await names("cordelia")).toEqual(before);
    expectError(await t.get("iago", "/api/v1/get_stream_id", { stream: "patch-never-created" }), 400, "Invalid channel name 'patch-never-created'");
    expectError(await t.patch("cordelia", SUBS, {}), 400, 'Nothing to do. Specify at least one of "add" or "delete".');
    expect((await t.patch("cordelia", SUBS, { add: JSON.stringify([{ name: "x", bogus: 1 }]) })).status).toBe(400);
  });
});

describe("channels created by name at the same moment", () => {
  it("are one channel, and every request subscribes to it", async () => {
    const name = "Racing Channel";
    const who = ["hamlet", "othello", "iago", "cordelia", "prospero"];
    const results = await Promise.all(who.map((w) => t.post(w, "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]) })));
    for (const r of results) expectSuccess(r);
    const channels = await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", name).execute();
    expect(channels).toHaveLength(1);
    const { subscribers } = expectSuccess(await t.get("iago", `/api/v1/streams/${at(channels, 0).id}/members`));
    expect(subscribers).toHaveLength(who.length);
  });
});
