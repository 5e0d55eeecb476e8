import { beforeAll, describe, expect, it } from "vitest";
import { VISITOR_QUEUES_PER_ADDRESS } from "../../src/events/visitorQueues.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Visitors' event queues (src/events/visitorQueues.ts): a visitor's POST /register opens a queue
 * that GET /events polls without credentials, and that gets only what a visitor may read of the
 * web-public channels, decided when each event is delivered.
 */
const t = useTestServer();
const NOT_LOGGED_IN = "Not logged in: API authentication or user session required";

let webPublic: number;
let webPublic2: number;
let publicChannel: number;
let privateChannel: number;

const setSpectatorAccess = async (on: boolean) => expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: on }));

/** A visitor's queue: its id, and a function giving the events after the last ones it gave. */
async function visitorQueue(params: Record<string, unknown> = {}) {
  const body = expectSuccess(await t.post(null, "/api/v1/register", { client_capabilities: JSON.stringify({ bulk_message_deletion: true }), ...params }));
  expect(typeof body.queue_id).toBe("string");
  const queueId: string = body.queue_id;
  let last: number = body.last_event_id;
  const next = async (): Promise<any[]> => {
    const events = expectSuccess(await t.get(null, "/api/v1/events", { queue_id: queueId, last_event_id: last, dont_block: true })).events;
    for (const event of events) last = Math.max(last, event.id);
    return events.filter((e: { type: string }) => e.type !== "heartbeat");
  };
  return { queueId, next };
}

beforeAll(async () => {
  await setSpectatorAccess(true);
  webPublic = await makeChannel(t, { name: "live square", by: "desdemona", subscribers: ["desdemona", "hamlet"], extra: { is_web_public: true } });
  webPublic2 = await makeChannel(t, { name: "live plaza", by: "desdemona", subscribers: ["desdemona", "hamlet"], extra: { is_web_public: true } });
  publicChannel = await makeChannel(t, { name: "members hall", by: "desdemona", subscribers: ["desdemona", "hamlet"] });
  privateChannel = await makeChannel(t, { name: "war room", by: "iago", invite_only: true, subscribers: ["iago", "hamlet"] });
});

describe("a visitor's event queue", () => {
  // That POST /register opens it (and event_types [] does not) is in spectators.test.ts.
  it("gets messages of web-public channels only, read, without their flags of any user", async () => {
    const { next } = await visitorQueue();
    const shown = await sendChannelMessage(t, "hamlet", webPublic, "news", "for everyone");
    await sendChannelMessage(t, "hamlet", publicChannel, "news", "members only");
    await sendChannelMessage(t, "hamlet", privateChannel, "news", "subscribers only");
    await sendDirectMessage(t, "hamlet", ["iago"], "just us");
    const events = await next();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "message", flags: ["read"], message: { id: shown, stream_id: webPublic, subject: "news" } });
    expect(events[0].message.content).toContain("for everyone");
    for (const key of ["all_public_streams", "spectators", "raw_content", "sender_uses_gravatar"]) expect(events[0]).not.toHaveProperty(key);
  });

  it("gets edits, reactions (without the reacting user's email) and deletions of those messages", async () => {
    const { next } = await visitorQueue();
    const id = await sendChannelMessage(t, "hamlet", webPublic, "edits", "first words");
    const hidden = await sendChannelMessage(t, "hamlet", publicChannel, "edits", "members words");
    await next();
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${id}`, { content: "second words" }));
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${hidden}`, { content: "members second words" }));
    expectSuccess(await t.post("othello", `/api/v1/messages/${id}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await t.post("othello", `/api/v1/messages/${hidden}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await t.delete("othello", `/api/v1/messages/${id}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await t.delete("iago", `/api/v1/messages/${hidden}`));
    expectSuccess(await t.delete("iago", `/api/v1/messages/${id}`));
    const events = await next();
    expect(events.map((e) => `${e.type}${e.op ? `:${e.op}` : ""}`)).toEqual(["update_message", "reaction:add", "reaction:remove", "delete_message"]);
    const [update, added, , deleted] = events;
    expect(update).toMatchObject({ message_id: id, message_ids: [id], flags: ["read"], stream_id: webPublic });
    expect(update.rendered_content).toContain("second words");
    expect(added).toMatchObject({ message_id: id, emoji_name: "smile", reaction_type: "unicode_emoji" });
    expect(added).not.toHaveProperty("user");
    expect(JSON.stringify(events)).not.toContain("@zulip.com");
    expect(deleted).toMatchObject({ message_type: "stream", stream_id: webPublic, message_ids: [id] });
  });

  it("sees a move out of the web-public channels as a deletion, a move between them as a move, a move in as nothing", async () => {
    const { next: nextEvent } = await visitorQueue();
    const id = await sendChannelMessage(t, "hamlet", webPublic, "moving", "on the move");
    await nextEvent();
    expectSuccess(await t.patch("iago", `/api/v1/messages/${id}`, { stream_id: webPublic2, propagate_mode: "change_one" }));
    // Notification Bot's notices of the moves are messages of their own.
    const next = async () => (await nextEvent()).filter((e) => e.type !== "message");
    expect(await next()).toMatchObject([{ type: "update_message", stream_id: webPublic, new_stream_id: webPublic2, message_ids: [id] }]);
    expectSuccess(await t.patch("iago", `/api/v1/messages/${id}`, { stream_id: publicChannel, topic: "hidden topic", propagate_mode: "change_one" }));
    expect(await next()).toEqual([
      expect.objectContaining({ type: "delete_message", message_type: "stream", stream_id: webPublic2, topic: "moving", message_ids: [id] }),
    ]);
    expectSuccess(await t.patch("iago", `/api/v1/messages/${id}`, { stream_id: webPublic, propagate_mode: "change_one" }));
    expect(await next()).toEqual([]);
  });

  it("gets a web-public channel's new name and description, and loses a channel that stops being web-public", async () => {
    const channel = await makeChannel(t, { name: "soon closed", by: "desdemona", subscribers: ["desdemona", "hamlet"], extra: { is_web_public: true } });
    const { next } = await visitorQueue();
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${channel}`, { description: "A **fine** place" }));
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${publicChannel}`, { description: "members stuff" }));
    const [described] = await next();
    expect(described).toMatchObject({ type: "stream", op: "update", stream_id: channel, property: "description", value: "A **fine** place" });
    expect(described.rendered_description).toContain("<strong>fine</strong>");
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${channel}`, { is_web_public: false }));
    expect(await next()).toEqual([{ type: "stream", op: "delete", streams: [{ stream_id: channel }], stream_ids: [channel], id: expect.any(Number) }]);
    // Decided at delivery: its messages, edits and renames no longer come.
    await sendChannelMessage(t, "hamlet", channel, "after", "not for visitors now");
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${channel}`, { new_name: "closed" }));
    expect(await next()).toEqual([]);
    // Web-public again: its new messages come again.
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${channel}`, { is_web_public: true }));
    const again = await sendChannelMessage(t, "hamlet", channel, "after", "for visitors again");
    expect((await next()).filter((e) => e.type === "message").map((e) => e.message.id)).toEqual([again]);
  });

  it("answers another queue's id, and a user's queue, as an unknown queue; a user cannot poll a visitor's queue", async () => {
    const { queueId } = await visitorQueue();
    const user = expectSuccess(await t.post("hamlet", "/api/v1/register", {}));
    expectError(
      await t.get(null, "/api/v1/events", { queue_id: user.queue_id, dont_block: true }),
      400,
      `Bad event queue ID: ${user.queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
    expectError(
      await t.get(null, "/api/v1/events", { queue_id: "no-such-queue", dont_block: true }),
      400,
      "Bad event queue ID: no-such-queue",
      "BAD_EVENT_QUEUE_ID",
    );
    expectError(await t.get("hamlet", "/api/v1/events", { queue_id: queueId, dont_block: true }), 400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
    expectError(await t.delete("hamlet", "/api/v1/events", { queue_id: queueId }), 400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
  });

  it("is deleted with DELETE /events without credentials", async () => {
    const { queueId } = await visitorQueue();
    expectSuccess(await t.delete(null, "/api/v1/events", { queue_id: queueId }));
    expectError(await t.get(null, "/api/v1/events", { queue_id: queueId, dont_block: true }), 400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
  });

  it(`keeps at most ${VISITOR_QUEUES_PER_ADDRESS} queues per address, dropping the oldest`, async () => {
    const queues = [];
    for (let i = 0; i <= VISITOR_QUEUES_PER_ADDRESS; i++) queues.push(await visitorQueue());
    const [oldest, second] = queues;
    expectError(
      await t.get(null, "/api/v1/events", { queue_id: oldest!.queueId, dont_block: true }),
      400,
      `Bad event queue ID: ${oldest!.queueId}`,
      "BAD_EVENT_QUEUE_ID",
    );
    expect(await second!.next()).toEqual([]);
    for (const q of queues.slice(1)) expectSuccess(await t.delete(null, "/api/v1/events", { queue_id: q.queueId }));
  });

  it("ends when spectator access is turned off (a waiting poll is answered; the next is refused)", async () => {
    const { queueId } = await visitorQueue();
    const waiting = t.get(null, "/api/v1/events", { queue_id: queueId, last_event_id: -1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await setSpectatorAccess(false);
    try {
      const answered = await waiting;
      expect(answered.status).toBe(200);
      expect(answered.body.events).toEqual([]);
      expectError(await t.get(null, "/api/v1/events", { queue_id: queueId, dont_block: true }), 401, NOT_LOGGED_IN, "UNAUTHORIZED");
    } finally {
      await setSpectatorAccess(true);
    }
    expectError(await t.get(null, "/api/v1/events", { queue_id: queueId, dont_block: true }), 400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
  });
});
