import { describe, expect, it } from "vitest";
import { makeChannel } from "../support/factories.js";
import { seedIds, seedSubscribers } from "../support/seed.js";
import { expectError, expectSuccess, type Params, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();
const names = (body: any) => body.streams.map((s: any) => s.name);

async function streamRow(id: number) {
  return t.ctx.db.kysely.selectFrom("streams").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

describe("GET /streams", () => {
  it("lists public and subscribed channels by default", async () => {
    expect(names(expectSuccess(await t.get("aaron", "/api/v1/streams")))).toEqual(["Denmark", "Rome", "Scotland", "Venice", "Verona"]);
    expect(names(expectSuccess(await t.get("hamlet", "/api/v1/streams")))).toEqual(["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team"]);
  });

  it("shows guests only their subscriptions, plus web-public channels on request", async () => {
    expect(names(expectSuccess(await t.get("polonius", "/api/v1/streams")))).toEqual(["Verona"]);
    expect(names(expectSuccess(await t.get("polonius", "/api/v1/streams", { include_web_public: true })))).toEqual(["Rome", "Verona"]);
    expect(names(expectSuccess(await t.get("polonius", "/api/v1/streams", { include_can_access_content: true })))).toEqual(["Rome", "Verona"]);
  });

  it("include_all gives administrators metadata of every channel", async () => {
    expect(names(expectSuccess(await t.get("shiva", "/api/v1/streams", { include_all: true })))).not.toContain("core team");
    expect(names(expectSuccess(await t.get("desdemona", "/api/v1/streams", { include_all: true, include_public: false })))).toContain("core team");
    expect(names(expectSuccess(await t.get("iago", "/api/v1/streams", { include_all_active: true })))).toContain("core team");
    expectError(await t.get("hamlet", "/api/v1/streams", { include_all_active: true }), 400, "User not authorized for this query");
  });

  it("marks default channels and derives the legacy fields", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/streams", { include_default: true }));
    const verona = body.streams.find((s: any) => s.name === "Verona");
    expect(verona).toMatchObject({ is_default: true, stream_post_policy: 1, is_announcement_only: false, can_remove_subscribers_group: expect.any(Number) });
    expect(body.streams.find((s: any) => s.name === "Denmark").is_default).toBe(false);
    expect(expectSuccess(await t.get("hamlet", "/api/v1/streams")).streams[0].is_default).toBeUndefined();
  });

  it("rejects non-boolean flags", async () => {
    expectError(await t.get("hamlet", "/api/v1/streams", { include_public: "maybe" }), 400, "include_public is not valid JSON");
  });
});

describe("GET /streams/{id}, /get_stream_id, /streams/{id}/members", () => {
  it("returns a channel the user may see", async () => {
    expect(expectSuccess(await t.get("hamlet", "/api/v1/streams/6")).stream).toMatchObject({ name: "core team", invite_only: true, stream_id: 6 });
    expectError(await t.get("aaron", "/api/v1/streams/6"), 400, "Invalid channel ID");
    expectError(await t.get("aaron", "/api/v1/streams/9999"), 400, "Invalid channel ID");
    expectError(await t.get("aaron", "/api/v1/streams/abc"), 400, "stream_id is not an integer");
    expect(expectSuccess(await t.get("iago", "/api/v1/streams/6")).stream.name).toBe("core team");
  });

  it("looks up ids by name, content access required", async () => {
    expect(expectSuccess(await t.get("aaron", "/api/v1/get_stream_id", { stream: "denmark" })).stream_id).toBe(2);
    expectError(await t.get("aaron", "/api/v1/get_stream_id", { stream: "core team" }), 400, "Invalid channel name 'core team'");
    expectError(await t.get("shiva", "/api/v1/get_stream_id", { stream: "core team" }), 400, "Invalid channel name 'core team'");
    expectError(await t.get("aaron", "/api/v1/get_stream_id", {}), 400, "Missing 'stream' argument", "REQUEST_VARIABLE_MISSING");
  });

  it("lists subscribers for whoever sees the channel", async () => {
    expect(expectSuccess(await t.get("iago", "/api/v1/streams/6/members")).subscribers).toEqual(seedSubscribers.coreTeam);
    expectError(await t.get("polonius", "/api/v1/streams/2/members"), 400, "Invalid channel ID");
  });
});

describe("PATCH /streams/{id}", () => {
  it("renames and describes, telling everyone who sees the channel", async () => {
    const id = await makeChannel(t, { by: "hamlet", name: "pub1" });
    const { result: res, events } = await t.captureEvents(() => t.patch("iago", `/api/v1/streams/${id}`, { new_name: "pub one", description: "about **it**" }));
    expectSuccess(res);
    // The Notification Bot's notices (test/api/channelNotices.test.ts) come as message events.
    expect(events.filter((e) => e.event.type === "stream").map((e) => e.event)).toEqual([
      {
        type: "stream",
        op: "update",
        stream_id: id,
        name: "pub1",
        property: "description",
        value: "about **it**",
        rendered_description: "<p>about <strong>it</strong></p>",
      },
      { type: "stream", op: "update", stream_id: id, name: "pub1", property: "name", value: "pub one" },
    ]);
    expect(at(events, 0).users).not.toContain(13);
    expect((await streamRow(id)).name).toBe("pub one");
  });

  it("renders descriptions with the Markdown processor wherever they are served", async () => {
    const description = "About *this*, see #**Denmark** and @**King Hamlet**";
    const rendered =
      '<p>About <em>this</em>, see <a class="stream" data-stream-id="2" href="/#narrow/channel/2-Denmark">#Denmark</a> and ' +
      '<span class="user-mention" data-user-id="10">@King Hamlet</span></p>';
    const created = await makeChannel(t, { by: "hamlet", name: "rendered one", extra: { description } });
    const { events } = await t.captureEvents(async () =>
      expectSuccess(await t.patch("iago", `/api/v1/streams/${created}`, { description: `${description}!` })),
    );
    expect(events.find((e) => e.event.type === "stream")!.event.rendered_description).toBe(rendered.replace("</span></p>", "</span>!</p>"));
    expectSuccess(await t.patch("iago", `/api/v1/streams/${created}`, { description }));
    expect(expectSuccess(await t.get("hamlet", `/api/v1/streams/${created}`)).stream.rendered_description).toBe(rendered);
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/streams")).streams.find((s: any) => s.stream_id === created);
    expect(listed.rendered_description).toBe(rendered);
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["subscription", "stream"] }));
    expect(state.subscriptions.find((s: any) => s.stream_id === created).rendered_description).toBe(rendered);
    expect(state.streams.find((s: any) => s.stream_id === created).rendered_description).toBe(rendered);
  });

  it("lets the creator administer through the anonymous group, but not others", async () => {
    const id = await makeChannel(t, { by: "othello", name: "mine" });
    expectSuccess(await t.patch("othello", `/api/v1/streams/${id}`, { description: "by othello" }));
    expectError(await t.patch("aaron", `/api/v1/streams/${id}`, { description: "x" }), 400, "You do not have permission to administer this channel.");
    expectError(await t.patch("aaron", "/api/v1/streams/6", { description: "x" }), 400, "Invalid channel ID");
    expectError(await t.patch("polonius", `/api/v1/streams/${id}`, { description: "x" }), 400, "Invalid channel ID");
  });

  it("validates before writing", async () => {
    const id = await makeChannel(t, { by: "iago", name: "checked" });
    const url = `/api/v1/streams/${id}`;
    const cases: Array<[Params, string]> = [
      [{ new_name: "checked" }, "Channel already has that name."],
      [{ new_name: "Denmark" }, "Channel 'Denmark' already exists"],
      [{ new_name: "" }, "Channel name can't be empty."],
      [{ description: "d".repeat(1025) }, "description is too long (limit: 1024 characters)"],
      [{ is_private: false, history_public_to_subscribers: false }, "Invalid parameters"],
      [{ is_private: true, is_web_public: true }, "Invalid parameters"],
      [{ is_private: true, is_default_stream: true }, "A default channel cannot be private."],
      [{ message_retention_days: 10 }, "Must be an organization owner"],
      [{ is_archived: false }, "Channel is not currently deactivated"],
      [{ can_send_message_group: { new: 99999 } }, "Invalid user group"],
      [{ can_send_message_group: { new: 1, old: 99999 } }, "Invalid user group"],
      [{ can_send_message_group: JSON.stringify({ old: 1 }) }, 'Invalid can_send_message_group["new"]'],
      [{ description: "ok", new_name: "Verona" }, "Channel 'Verona' already exists"],
    ];
    for (const [params, msg] of cases) {
      const res = await t.patch("iago", url, params);
      expect(res.body.msg, JSON.stringify(params)).toBe(msg);
    }
    expect(await streamRow(id)).toMatchObject({ name: "checked", description: "", invite_only: 0 });
  });

  it("changes privacy: content access required, and a channel made public is announced", async () => {
    const id = await makeChannel(t, { by: "hamlet", name: "hidden", invite_only: true });
    expectError(await t.patch("iago", `/api/v1/streams/${id}`, { is_private: false }), 400, "Channel content access is required.");
    const { result: res, events } = await t.captureEvents(() => t.patch("hamlet", `/api/v1/streams/${id}`, { is_private: false }));
    expectSuccess(res);
    const create = events.find((e) => e.event.op === "create")!;
    expect(create.users).toContain(6);
    expect(create.users).not.toContain(10);
    expect(events.find((e) => e.event.op === "peer_add")).toMatchObject({ event: { stream_ids: [id], user_ids: [10] } });
    const update = events.find((e) => e.event.op === "update")!;
    expect(update.event).toMatchObject({ property: "invite_only", value: false, history_public_to_subscribers: true, is_web_public: false });
    expect(update.users).not.toContain(6);
  });

  it("updates group settings with old/new and the legacy post policy", async () => {
    const id = await makeChannel(t, { by: "iago", name: "moderated" });
    const admins = Number(
      (
        await t.ctx.db.kysely
          .selectFrom("user_groups")
          .select("id")
          .where("name", "=", "role:administrators")
          .where("realm_id", "=", 2)
          .executeTakeFirstOrThrow()
      ).id,
    );
    const everyone = Number(
      (await t.ctx.db.kysely.selectFrom("user_groups").select("id").where("name", "=", "role:everyone").where("realm_id", "=", 2).executeTakeFirstOrThrow()).id,
    );
    expectError(
      await t.patch("iago", `/api/v1/streams/${id}`, { can_send_message_group: { new: admins, old: admins } }),
      400,
      "'old' value does not match the expected value.",
    );
    const { result: res, events } = await t.captureEvents(() =>
      t.patch("iago", `/api/v1/streams/${id}`, { can_send_message_group: { new: admins, old: everyone } }),
    );
    expectSuccess(res);
    expect(events.map((e) => [e.event.property, e.event.value])).toEqual([
      ["can_send_message_group", admins],
      ["stream_post_policy", 2],
      ["is_announcement_only", true],
    ]);
    expect(expectSuccess(await t.get("iago", `/api/v1/streams/${id}`)).stream).toMatchObject({ stream_post_policy: 2, is_announcement_only: true });
  });

  it("lets only administrators change default channels and owners retention", async () => {
    const id = await makeChannel(t, { by: "hamlet", name: "maybe default" });
    // The creator administers the channel, but default channels are for organization administrators.
    expectError(
      await t.patch("hamlet", `/api/v1/streams/${id}`, { is_default_stream: true }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    const { events } = await t.captureEvents(async () => expectSuccess(await t.patch("iago", `/api/v1/streams/${id}`, { is_default_stream: true })));
    expect(at(events, 0).event.type).toBe("default_streams");
    // Channel IDs since feature level 330, as POST /register's realm_default_streams.
    const { realm_default_streams: defaults } = expectSuccess(
      await t.post("iago", "/api/v1/register", { fetch_event_types: JSON.stringify(["default_streams"]) }),
    );
    expect(at(events, 0).event.default_streams).toEqual(defaults);
    expect(defaults).toContain(id);
    expect(at(events, 0).users).not.toContain(13);
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${id}`, { message_retention_days: 30 }));
    expect((await streamRow(id)).message_retention_days).toBe(30);
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${id}`, { message_retention_days: "realm_default" }));
    expect((await streamRow(id)).message_retention_days).toBeNull();
  });
});

describe("DELETE /streams/{id}", () => {
  it("archives, keeps subscribers, and can be undone", async () => {
    const id = await makeChannel(t, { by: "iago", name: "to archive", subscribers: ["iago", "aaron"] });
    expectError(await t.delete("aaron", `/api/v1/streams/${id}`), 400, "You do not have permission to administer this channel.");
    const { result: res, events } = await t.captureEvents(() => t.delete("iago", `/api/v1/streams/${id}`));
    expectSuccess(res);
    // Zulip 10: an update for archived_channels clients; the event queue turns it into a delete for others.
    expect(events[0]).toMatchObject({ event: { type: "stream", op: "update", stream_id: id, property: "is_archived", value: true } });
    expect(await streamRow(id)).toMatchObject({ is_archived: 1 });
    expectError(await t.delete("iago", `/api/v1/streams/${id}`), 400, "Channel is already deactivated");
    expectError(await t.get("aaron", `/api/v1/streams/${id}`), 400, "Invalid channel ID");
    expect(names(expectSuccess(await t.get("aaron", "/api/v1/streams", { exclude_archived: false })))).toContain("to archive");
    const subs = expectSuccess(await t.get("aaron", "/api/v1/users/me/subscriptions")).subscriptions;
    expect(subs.map((s: any) => s.name)).not.toContain("to archive");
    const subscribers = await t.ctx.db.kysely
      .selectFrom("subscriptions")
      .select("user_id")
      .where("active", "=", 1)
      .where("recipient_id", "=", (await streamRow(id)).recipient_id!)
      .execute();
    expect(subscribers.map((s) => Number(s.user_id)).sort()).toEqual(seedIds("iago", "aaron").sort());

    const { events: back } = await t.captureEvents(async () => expectSuccess(await t.patch("iago", `/api/v1/streams/${id}`, { is_archived: false })));
    const streamEvents = back.filter((e) => e.event.type === "stream");
    expect(streamEvents.map((e) => [e.event.op, e.event.property ?? null, e.event.unless_capability ?? null])).toEqual([
      ["update", "is_archived", null],
      ["create", null, "archived_channels"],
    ]);
    expect(expectSuccess(await t.get("aaron", `/api/v1/streams/${id}`)).stream.is_archived).toBe(false);
  });
});

describe("a public channel nobody is subscribed to", () => {
  it("takes messages, and is renamed, described and archived with its notices", async () => {
    const id = await makeChannel(t, { by: "hamlet", name: "empty public" });
    expectSuccess(await t.delete("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: ["empty public"] }));
    // A message with no recipients is valid; all_public_streams queues still get it.
    const { result: sent, events } = await t.captureEvents(() =>
      t.post("hamlet", "/api/v1/messages", { type: "stream", to: id, topic: "alone", content: "anyone?" }),
    );
    const { id: messageId } = expectSuccess(sent);
    const messageEvents = events.filter((e) => e.event.type === "message");
    expect(messageEvents.map((e) => [e.users, e.event.flags, (e.event as any).message.id])).toEqual([[[], [], messageId]]);
    expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${messageId}`)).message.content).toBe("<p>anyone?</p>");
    expectSuccess(await t.patch("iago", `/api/v1/streams/${id}`, { new_name: "still empty" }));
    expectSuccess(await t.patch("iago", `/api/v1/streams/${id}`, { description: "nobody here" }));
    expectSuccess(await t.delete("iago", `/api/v1/streams/${id}`));
    expect(await streamRow(id)).toMatchObject({ name: "still empty", description: "nobody here", is_archived: 1 });
  });
});
