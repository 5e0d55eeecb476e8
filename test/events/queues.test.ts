import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer({ eventHeartbeatSeconds: 1 });

async function register(who: string, params: Record<string, unknown> = {}) {
  const encoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return expectSuccess(await t.post(who, "/api/v1/register", encoded));
}

async function poll(who: string, queueId: string, lastEventId: number, extra: Record<string, string> = {}) {
  return expectSuccess(await t.get(who, "/api/v1/events", { queue_id: queueId, last_event_id: String(lastEventId), ...extra }));
}

async function sendToDenmark(who: string, content: string, extra: Record<string, string> = {}) {
  return expectSuccess(await t.post(who, "/api/v1/messages", { type: "stream", to: "Denmark", topic: "events", content, ...extra })).id as number;
}

describe("POST /register + GET /events", () => {
  it("opens a queue whose long-poll returns the next message event with Zulip's fields", async () => {
    const reg = await register("hamlet", { event_types: ["message"], apply_markdown: true });
    expect(reg.last_event_id).toBe(-1);
    expect(typeof reg.queue_id).toBe("string");
    expect(reg).toMatchObject({ zulip_version: "10.2", zulip_feature_level: 372, zulip_merge_base: "10.2" });
    const pending = poll("hamlet", reg.queue_id, -1);
    const id = await sendToDenmark("othello", "**hello** there");
    const { events, queue_id } = await pending;
    expect(queue_id).toBe(reg.queue_id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: 0, type: "message", flags: [], message: { id, content: "<p><strong>hello</strong> there</p>", subject: "events" } });
    expect(events[0]).not.toHaveProperty("raw_content");
    expect(events[0]).not.toHaveProperty("sender_uses_gravatar");
  });

  it("gives the Markdown source when apply_markdown is false, and acknowledges with last_event_id", async () => {
    const reg = await register("hamlet", { event_types: ["message"] });
    await sendToDenmark("othello", "*one*");
    await sendToDenmark("othello", "*two*");
    const first = await poll("hamlet", reg.queue_id, -1, { dont_block: "true" });
    expect(first.events.map((e: any) => [e.id, e.message.content, e.message.content_type])).toEqual([
      [0, "*one*", "text/x-markdown"],
      [1, "*two*", "text/x-markdown"],
    ]);
    const second = await poll("hamlet", reg.queue_id, 0, { dont_block: "true" });
    expect(second.events.map((e: any) => e.id)).toEqual([1]);
    const third = await poll("hamlet", reg.queue_id, 1, { dont_block: "true" });
    expect(third.events).toEqual([]);
    expectError(
      await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1" }),
      400,
      "An event newer than -1 has already been pruned!",
    );
  });

  it("gives each queue the form of the event its registration asked for, also when many queues share one", async () => {
    // Queues registered alike share one rewritten event; these four differ in what they asked for.
    const plain = await register("hamlet", { event_types: ["message"], apply_markdown: false });
    const html = await register("hamlet", { event_types: ["message"], apply_markdown: true });
    const html2 = await register("hamlet", { event_types: ["message"], apply_markdown: true });
    const modern = await register("hamlet", { event_types: ["message"], apply_markdown: true, client_capabilities: { empty_topic_name: true } });
    const otherUser = await register("iago", { event_types: ["message"], apply_markdown: true });
    const id = await sendChannelMessage(t, "othello", "Denmark", "", "*shared*");
    const first = async (who: string, queueId: string) => (await poll(who, queueId, -1, { dont_block: "true" })).events[0];
    const [a, b, c, d, e] = [
      await first("hamlet", plain.queue_id),
      await first("hamlet", html.queue_id),
      await first("hamlet", html2.queue_id),
      await first("hamlet", modern.queue_id),
      await first("iago", otherUser.queue_id),
    ];
    expect(a.message).toMatchObject({ id, content: "*shared*", content_type: "text/x-markdown" });
    expect(b.message).toMatchObject({ id, content: "<p><em>shared</em></p>", content_type: "text/html" });
    expect(c).toEqual(b);
    expect(b.message.subject).not.toBe("");
    expect(d.message).toMatchObject({ id, subject: "" });
    expect(e.message).toEqual(b.message);
    expect([a, b, c, d, e].map((x) => x.id)).toEqual([0, 0, 0, 0, 0]);
  });

  it("filters by event_types and never delivers other users' private events", async () => {
    const reg = await register("cordelia", { event_types: ["message"] });
    await sendToDenmark("othello", "cordelia is not subscribed to Denmark");
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/status", { status_text: "busy" }));
    const { events } = await poll("cordelia", reg.queue_id, -1, { dont_block: "true" });
    expect(events).toEqual([]);
  });

  it("carries local_id back to the sending queue only", async () => {
    const mine = await register("hamlet", { event_types: ["message"] });
    const other = await register("hamlet", { event_types: ["message"] });
    const id = await sendToDenmark("hamlet", "echo", { queue_id: mine.queue_id, local_id: "12.01" });
    const a = await poll("hamlet", mine.queue_id, -1, { dont_block: "true" });
    expect(a.events[0]).toMatchObject({ message: { id }, local_message_id: "12.01" });
    expect(a.events[0]).not.toHaveProperty("sender_queue_id");
    const b = await poll("hamlet", other.queue_id, -1, { dont_block: "true" });
    expect(b.events[0].message.id).toBe(id);
    expect(b.events[0]).not.toHaveProperty("local_message_id");
  });

  it("answers an idle long-poll with a heartbeat", async () => {
    const reg = await register("hamlet", { event_types: ["message"] });
    const { events } = await poll("hamlet", reg.queue_id, -1);
    expect(events).toEqual([{ type: "heartbeat", id: 0 }]);
  });

  it("delivers only matching messages to a narrowed queue", async () => {
    const reg = await register("hamlet", { event_types: ["message"], narrow: [["stream", "Verona"]] });
    await sendToDenmark("othello", "not in Verona");
    const id = await sendChannelMessage(t, "othello", "Verona", "x", "in Verona");
    const { events } = await poll("hamlet", reg.queue_id, -1, { dont_block: "true" });
    expect(events.map((e: any) => e.message.id)).toEqual([id]);
  });

  it("gives all_public_streams queues every public channel's messages, never a private one's", async () => {
    const reg = await register("cordelia", { event_types: ["message"], all_public_streams: true });
    const plain = await register("cordelia", { event_types: ["message"] });
    const id = await sendToDenmark("othello", "cordelia is not subscribed, but mirrors public channels");
    expectSuccess(await t.post("iago", "/api/v1/messages", { type: "stream", to: "core team", topic: "secret", content: "private" }));
    const { events } = await poll("cordelia", reg.queue_id, -1, { dont_block: "true" });
    expect(events).toEqual([expect.objectContaining({ type: "message", flags: [], message: expect.objectContaining({ id, display_recipient: "Denmark" }) })]);
    expect(events[0]).not.toHaveProperty("all_public_streams");
    expect((await poll("cordelia", plain.queue_id, -1, { dont_block: "true" })).events).toEqual([]);
    expectError(await t.post("polonius", "/api/v1/register", { all_public_streams: "true" }), 400, "User not authorized for this query");
  });

  it("splits bulk deletions for clients without bulk_message_deletion", async () => {
    const bulk = await register("hamlet", { event_types: ["delete_message"], client_capabilities: { bulk_message_deletion: true } });
    const single = await register("hamlet", { event_types: ["delete_message"] });
    const id = await sendToDenmark("hamlet", "to delete");
    expectSuccess(await t.delete("hamlet", `/api/v1/messages/${id}`));
    expect((await poll("hamlet", bulk.queue_id, -1, { dont_block: "true" })).events).toEqual([
      { type: "delete_message", id: 0, message_ids: [id], message_type: "stream", stream_id: 2, topic: "events" },
    ]);
    expect((await poll("hamlet", single.queue_id, -1, { dont_block: "true" })).events).toEqual([
      { type: "delete_message", id: 0, message_id: id, message_type: "stream", stream_id: 2, topic: "events" },
    ]);
  });

  it("rejects unknown, deleted and other users' queues with Zulip's errors", async () => {
    const bad = await t.get("hamlet", "/api/v1/events", { queue_id: "nope", last_event_id: "-1" });
    expectError(bad, 400, "Bad event queue ID: nope", "BAD_EVENT_QUEUE_ID");
    expect(bad.body.queue_id).toBe("nope");
    const reg = await register("hamlet", { event_types: ["message"] });
    // Another user's queue answers exactly as an unknown one (SECURITY.md: missing and forbidden look the same).
    expectError(
      await t.get("othello", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1" }),
      400,
      `Bad event queue ID: ${reg.queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
    expectError(await t.delete("othello", "/api/v1/events", { queue_id: reg.queue_id }), 400, `Bad event queue ID: ${reg.queue_id}`, "BAD_EVENT_QUEUE_ID");
    expect((await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, dont_block: "true" })).status).toBe(200);
    expectSuccess(await t.delete("hamlet", "/api/v1/events", { queue_id: reg.queue_id }));
    expectError(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id }), 400, `Bad event queue ID: ${reg.queue_id}`, "BAD_EVENT_QUEUE_ID");
    expectError(await t.delete("hamlet", "/api/v1/events", { queue_id: reg.queue_id }), 400, `Bad event queue ID: ${reg.queue_id}`, "BAD_EVENT_QUEUE_ID");
    expectError(await t.get("hamlet", "/api/v1/events", {}), 400, "Missing 'queue_id' argument", "REQUEST_VARIABLE_MISSING");
    const live = await register("hamlet", { event_types: ["message"] });
    expectError(await t.get("hamlet", "/api/v1/events", { queue_id: live.queue_id, last_event_id: "abc" }), 400, "last_event_id is not valid JSON");
    expectError(await t.get("hamlet", "/api/v1/events", { queue_id: live.queue_id, dont_block: "maybe" }), 400, "dont_block is not valid JSON");
  });

  it("drops queues that nobody polled within the timeout", async () => {
    const reg = await register("hamlet", { event_types: ["message"] });
    const queues = t.ctx.eventQueues;
    expect(queues.get(reg.queue_id)).toBeDefined();
    queues.collectGarbage(Date.now() + t.config.eventQueueTimeoutSeconds * 1000 + 1000);
    expectError(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id }), 400, `Bad event queue ID: ${reg.queue_id}`, "BAD_EVENT_QUEUE_ID");
  });
});
