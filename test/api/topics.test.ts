import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, type Params, useTestServer } from "../support/testApp.js";
import { seedChannels, seedUsers } from "../support/seed.js";
import { at } from "../support/at.js";

const t = useTestServer();

const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const SCOTLAND = seedChannels.scotland.id;
const ROME = seedChannels.rome.id;
const CORE_TEAM = seedChannels.coreTeam.id;

const userId = async (name: string) => (await t.user(name)).id;

async function send(who: string, to: string, topic: string, content = "hello"): Promise<number> {
  return sendChannelMessage(t, who, to, topic, content, { read_by_sender: true });
}

async function topics(who: string, streamId: number, params: Params = {}) {
  return expectSuccess(await t.get(who, `/api/v1/users/me/${streamId}/topics`, params)).topics;
}

async function policyRows(who: string) {
  return t.ctx.db.kysely
    .selectFrom("user_topics")
    .select(["stream_id", "topic_name", "visibility_policy"])
    .where("user_id", "=", await userId(who))
    .orderBy("id")
    .execute();
}

describe("GET /api/v1/users/me/{stream_id}/topics", () => {
  it("lists the channel's topics, newest first", async () => {
    expect(await topics("hamlet", VERONA)).toEqual([
      { name: "greetings", max_id: 4 },
      { name: "test", max_id: 3 },
    ]);
  });

  it("merges spellings that differ in case under the most recent one", async () => {
    const id = await send("hamlet", "Denmark", "CASTLE");
    expect((await topics("hamlet", DENMARK))[0]).toEqual({ name: "CASTLE", max_id: id });
    expect((await topics("hamlet", DENMARK)).filter((t: any) => t.name.toLowerCase() === "castle")).toHaveLength(1);
  });

  it("shows the empty topic under its display name unless the client supports it", async () => {
    const id = await send("othello", "Scotland", "");
    expect((await topics("othello", SCOTLAND))[0]).toEqual({ name: "general chat", max_id: id });
    expect((await topics("othello", SCOTLAND, { allow_empty_topic_name: true }))[0]).toEqual({ name: "", max_id: id });
  });

  it("includes public history for users who are not subscribed", async () => {
    expect(await topics("cordelia", DENMARK)).toEqual(expect.arrayContaining([expect.objectContaining({ name: "CASTLE" })]));
    expect(await topics("polonius", ROME)).toEqual([{ name: "roads", max_id: 12 }]);
  });

  it("lists only received messages' topics in a channel with protected history", async () => {
    expect(await topics("hamlet", CORE_TEAM)).toEqual([{ name: "private channels", max_id: 14 }]);
    const othello = seedUsers.othello.id;
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "core team" }], principals: [othello] }));
    expect(await topics("othello", CORE_TEAM)).toEqual([]);
    const id = await send("desdemona", "core team", "later");
    expect(await topics("othello", CORE_TEAM)).toEqual([{ name: "later", max_id: id }]);
  });

  it("refuses channels the user cannot read with the same error as missing ones", async () => {
    expectError(await t.get("hamlet", "/api/v1/users/me/999/topics"), 400, "Invalid channel ID");
    expectError(await t.get("cordelia", `/api/v1/users/me/${CORE_TEAM}/topics`), 400, "Invalid channel ID");
    expectError(await t.get("iago", `/api/v1/users/me/${CORE_TEAM + 100}/topics`), 400, "Invalid channel ID");
    expectError(await t.get("polonius", `/api/v1/users/me/${DENMARK}/topics`), 400, "Invalid channel ID");
    expectError(await t.get("hamlet", "/api/v1/users/me/abc/topics"), 400, "stream_id is not an integer");
    expectError(await t.get("hamlet", `/api/v1/users/me/${VERONA}/topics`, { allow_empty_topic_name: "yes" }), 400, "allow_empty_topic_name is not valid JSON");
    expectError(await t.get(null, `/api/v1/users/me/${VERONA}/topics`), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("POST /api/v1/user_topics", () => {
  it("sets, changes and clears a topic's visibility policy with events to the user", async () => {
    const hamlet = seedUsers.hamlet.id;
    const muted = await t.captureEvents(() => t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "test", visibility_policy: 1 }));
    expectSuccess(muted.result);
    expect(muted.events.map((e) => e.users)).toEqual([[hamlet], [hamlet]]);
    const [legacy, current] = muted.events.map((e) => e.event);
    expect(legacy).toEqual({ type: "muted_topics", muted_topics: [["Verona", "test", expect.any(Number)]] });
    expect(current).toEqual({ type: "user_topic", stream_id: VERONA, topic_name: "test", last_updated: expect.any(Number), visibility_policy: 1 });
    expect(await policyRows("hamlet")).toEqual([{ stream_id: VERONA, topic_name: "test", visibility_policy: 1 }]);

    const again = await t.captureEvents(() => t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "TEST", visibility_policy: 1 }));
    expectSuccess(again.result);
    expect(again.events).toEqual([]);

    const followed = await t.captureEvents(() => t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "test", visibility_policy: 3 }));
    expectSuccess(followed.result);
    expect(followed.events.map((e) => e.event)).toEqual([
      { type: "muted_topics", muted_topics: [] },
      expect.objectContaining({ type: "user_topic", visibility_policy: 3 }),
    ]);
    expect(await policyRows("hamlet")).toEqual([{ stream_id: VERONA, topic_name: "test", visibility_policy: 3 }]);

    const cleared = await t.captureEvents(() => t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "test", visibility_policy: 0 }));
    expectSuccess(cleared.result);
    expect(at(cleared.events, 1).event).toMatchObject({ type: "user_topic", topic_name: "test", visibility_policy: 0 });
    expect(await policyRows("hamlet")).toEqual([]);

    const nothing = await t.captureEvents(() => t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "test", visibility_policy: 0 }));
    expectSuccess(nothing.result);
    expect(nothing.events).toEqual([]);
  });

  it("reads the empty topic's display name as the empty topic", async () => {
    const { events } = await t.captureEvents(() =>
      t.post("othello", "/api/v1/user_topics", { stream_id: DENMARK, topic: "general chat", visibility_policy: 2 }),
    );
    expect(at(events, 1).event).toMatchObject({ topic_name: "", visibility_policy: 2 });
    expect((await policyRows("othello")).filter((r) => r.stream_id === DENMARK)).toEqual([{ stream_id: DENMARK, topic_name: "", visibility_policy: 2 }]);
  });

  it("needs access to the channel to set a policy, but not to clear one", async () => {
    expectError(await t.post("cordelia", "/api/v1/user_topics", { stream_id: CORE_TEAM, topic: "x", visibility_policy: 1 }), 400, "Invalid channel ID");
    expectError(await t.post("polonius", "/api/v1/user_topics", { stream_id: DENMARK, topic: "x", visibility_policy: 3 }), 400, "Invalid channel ID");
    expectError(await t.post("hamlet", "/api/v1/user_topics", { stream_id: 999, topic: "x", visibility_policy: 1 }), 400, "Invalid channel ID");
    expectError(await t.post("hamlet", "/api/v1/user_topics", { stream_id: 999, topic: "x", visibility_policy: 0 }), 400, "Invalid channel ID");
    expectSuccess(await t.post("cordelia", "/api/v1/user_topics", { stream_id: CORE_TEAM, topic: "x", visibility_policy: 0 }));
    expect(await policyRows("cordelia")).toEqual([]);
  });

  it("validates its parameters", async () => {
    const post = (params: object) => t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "x", visibility_policy: 1, ...params });
    expectError(await post({ visibility_policy: 4 }), 400, "Invalid visibility_policy");
    expectError(await post({ visibility_policy: "muted" }), 400, "visibility_policy is not valid JSON");
    expectError(await post({ stream_id: "Verona" }), 400, "stream_id is not valid JSON");
    expectError(await post({ topic: "x".repeat(61) }), 400, "topic is too long (limit: 60 characters)");
    expectError(
      await t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, visibility_policy: 1 }),
      400,
      "Missing 'topic' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await t.post(null, "/api/v1/user_topics", { stream_id: VERONA, topic: "x", visibility_policy: 1 }),
      401,
      "Not logged in: API authentication or user session required",
      "UNAUTHORIZED",
    );
  });
});

describe("PATCH /api/v1/users/me/subscriptions/muted_topics", () => {
  it("mutes and unmutes by channel name or id", async () => {
    const add = await t.captureEvents(() => t.patch("iago", "/api/v1/users/me/subscriptions/muted_topics", { stream: "Denmark", topic: "Castle", op: "add" }));
    expectSuccess(add.result);
    expect(at(add.events, 1).event).toMatchObject({ type: "user_topic", stream_id: DENMARK, topic_name: "Castle", visibility_policy: 1 });
    expectSuccess(await t.patch("iago", "/api/v1/users/me/subscriptions/muted_topics", { stream_id: DENMARK, topic: "Castle", op: "remove" }));
    expect(await policyRows("iago")).toEqual([]);
    expectSuccess(await t.patch("iago", "/api/v1/users/me/subscriptions/muted_topics", { stream_id: DENMARK, topic: "Castle", op: "remove" }));
  });

  it("gives Zulip's errors", async () => {
    const patch = (params: object) => t.patch("iago", "/api/v1/users/me/subscriptions/muted_topics", { topic: "t", op: "add", ...params });
    expectError(await patch({}), 400, "Missing 'stream_id' argument");
    expectError(await patch({ stream: "Denmark", stream_id: DENMARK }), 400, "Unsupported parameter combination: stream_id, stream");
    expectError(await patch({ stream: "Nowhere" }), 400, "Invalid channel name 'Nowhere'");
    expectError(await patch({ stream_id: 999 }), 400, "Invalid channel ID");
    expectError(await patch({ stream: "Nowhere", op: "remove" }), 400, "Topic is not muted");
    expectError(await patch({ stream: "Denmark", op: "toggle" }), 400, "Invalid op");
    expectError(
      await t.patch("cordelia", "/api/v1/users/me/subscriptions/muted_topics", { stream: "core team", topic: "t", op: "add" }),
      400,
      "Invalid channel name 'core team'",
    );
  });
});

describe("POST /api/v1/streams/{stream_id}/delete_topic", () => {
  it("deletes the topic's messages, tells who could see them, and clears preferences", async () => {
    const [iago, othello, shiva] = [seedUsers.iago.id, seedUsers.othello.id, seedUsers.shiva.id];
    expectSuccess(await t.post("othello", "/api/v1/user_topics", { stream_id: SCOTLAND, topic: "weather", visibility_policy: 3 }));
    expectSuccess(await t.post("hamlet", "/api/v1/messages/flags", { messages: [8], op: "add", flag: "starred" }));
    const hamlet = seedUsers.hamlet.id;
    const { result, events } = await t.captureEvents(() => t.post("iago", `/api/v1/streams/${SCOTLAND}/delete_topic`, { topic_name: "weather" }));
    expect(expectSuccess(result).complete).toBe(true);

    const deletion = events.find((e) => e.event.type === "delete_message")!;
    expect(deletion.event).toEqual({ type: "delete_message", message_ids: [8, 9], message_type: "stream", stream_id: SCOTLAND, topic: "weather" });
    expect(deletion.users).toEqual(expect.arrayContaining([iago, othello, shiva, hamlet]));
    expect(deletion.users).not.toContain(seedUsers.cordelia.id);
    const firstMessage = events.find((e) => e.event.type === "stream")!;
    expect(firstMessage.event).toMatchObject({ op: "update", stream_id: SCOTLAND, property: "first_message_id" });
    expect(firstMessage.event.value).toBeGreaterThan(9);
    const cleared = events.find((e) => e.event.type === "user_topic")!;
    expect(cleared).toEqual({ event: expect.objectContaining({ stream_id: SCOTLAND, topic_name: "weather", visibility_policy: 0 }), users: [othello] });

    expectError(await t.get("othello", "/api/v1/messages/8"), 400, "Invalid message(s)");
    expect((await topics("othello", SCOTLAND)).map((t: any) => t.name)).not.toContain("weather");
    expect(await policyRows("othello")).not.toContainEqual(expect.objectContaining({ topic_name: "weather" }));
    const rows = await t.ctx.db.kysely.selectFrom("user_messages").select("message_id").where("message_id", "in", [8, 9]).execute();
    expect(rows).toEqual([]);
  });

  it("deletes large topics batch by batch", async () => {
    for (let i = 0; i < 105; i++) await send("iago", "Verona", "bulk", `message ${i}`);
    const { result, events } = await t.captureEvents(() => t.post("desdemona", `/api/v1/streams/${VERONA}/delete_topic`, { topic_name: "BULK" }));
    expect(expectSuccess(result).complete).toBe(true);
    const deletions = events.filter((e) => e.event.type === "delete_message");
    expect(deletions.map((e) => (e.event.message_ids as number[]).length)).toEqual([100, 5]);
    expect((await topics("hamlet", VERONA)).map((t: any) => t.name)).not.toContain("bulk");
  });

  it("reads the empty topic's display name as the empty topic", async () => {
    const id = await send("hamlet", "Denmark", "");
    expectSuccess(await t.post("iago", `/api/v1/streams/${DENMARK}/delete_topic`, { topic_name: "general chat" }));
    expectError(await t.get("hamlet", `/api/v1/messages/${id}`), 400, "Invalid message(s)");
  });

  it("deletes in a channel with protected history only what the administrator received", async () => {
    const before = await send("desdemona", "core team", "secrets");
    const hamlet = seedUsers.hamlet.id;
    const shiva = seedUsers.shiva.id;
    expectSuccess(await t.post("desdemona", "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "core team" }], principals: [shiva] }));
    const after = await send("desdemona", "core team", "secrets");
    // Shiva is a moderator, not an administrator.
    expectError(
      await t.post("shiva", `/api/v1/streams/${CORE_TEAM}/delete_topic`, { topic_name: "secrets" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    const { events } = await t.captureEvents(() => t.post("iago", `/api/v1/streams/${CORE_TEAM}/delete_topic`, { topic_name: "secrets" }));
    const deletions = events.filter((e) => e.event.type === "delete_message");
    const forShiva = deletions.find((e) => e.users.includes(shiva))!;
    expect(forShiva.event.message_ids).toEqual([after]);
    const forHamlet = deletions.find((e) => e.users.includes(hamlet))!;
    expect(forHamlet.event.message_ids).toEqual([before, after]);
  });

  it("refuses non-administrators and channels the administrator cannot read", async () => {
    expectError(
      await t.post("hamlet", `/api/v1/streams/${VERONA}/delete_topic`, { topic_name: "test" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await t.post("polonius", `/api/v1/streams/${VERONA}/delete_topic`, { topic_name: "test" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "hamlet only" }], invite_only: true }));
    const streamId = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "hamlet only" })).stream_id;
    const id = await send("hamlet", "hamlet only", "mine");
    expectError(await t.post("iago", `/api/v1/streams/${streamId}/delete_topic`, { topic_name: "mine" }), 400, "Invalid channel ID");
    expectError(await t.post("iago", "/api/v1/streams/999/delete_topic", { topic_name: "mine" }), 400, "Invalid channel ID");
    expectError(await t.post("iago", `/api/v1/streams/${VERONA}/delete_topic`, {}), 400, "Missing 'topic_name' argument", "REQUEST_VARIABLE_MISSING");
    expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`));
  });
});
