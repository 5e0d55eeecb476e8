import { describe, expect, it } from "vitest";
import { queuedEvents, registerQueue, sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

const register = (who: string, capabilities: Record<string, boolean> = { stream_typing_notifications: true }) =>
  registerQueue(t, who, { event_types: ["typing"], client_capabilities: capabilities });

describe("POST /typing", () => {
  it("tells a direct message's participants, with every participant listed", async () => {
    const [hamlet, othello, cordelia] = [await t.user("hamlet"), await t.user("othello"), await t.user("cordelia")];
    const queues = { othello: await register("othello"), cordelia: await register("cordelia"), iago: await register("iago") };
    const pending = t.get("othello", "/api/v1/events", { queue_id: queues.othello.queue_id, last_event_id: -1 });
    expectSuccess(await t.post("hamlet", "/api/v1/typing", { op: "start", to: JSON.stringify([othello.id, cordelia.id]) }));
    const { events } = expectSuccess(await pending);
    const person = (u: { id: number; email: string }) => ({ user_id: u.id, email: u.email });
    expect(events).toEqual([
      { id: 0, type: "typing", op: "start", message_type: "direct", sender: person(hamlet), recipients: [person(othello), person(cordelia), person(hamlet)] },
    ]);
    expect(await queuedEvents(t, "cordelia", queues.cordelia.queue_id)).toHaveLength(1);
    expect(await queuedEvents(t, "iago", queues.iago.queue_id)).toEqual([]);
  });

  it("tells a channel's subscribers with the capability, and nobody who turned typing off", async () => {
    const denmark = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "Denmark" })).stream_id;
    const othello = await register("othello");
    const old = await register("othello", {});
    const cordelia = await register("cordelia");
    const iago = await register("iago");
    expectSuccess(await t.patch("iago", "/api/v1/settings", { receives_typing_notifications: false }));
    expectSuccess(await t.post("hamlet", "/api/v1/typing", { type: "channel", op: "stop", stream_id: denmark, topic: "plans" }));
    expect(await queuedEvents(t, "othello", othello.queue_id)).toEqual([
      expect.objectContaining({ type: "typing", op: "stop", message_type: "stream", stream_id: denmark, topic: "plans" }),
    ]);
    expect(await queuedEvents(t, "othello", old.queue_id)).toEqual([]);
    expect(await queuedEvents(t, "cordelia", cordelia.queue_id)).toEqual([]);
    expect(await queuedEvents(t, "iago", iago.queue_id)).toEqual([]);
    expectSuccess(await t.patch("iago", "/api/v1/settings", { receives_typing_notifications: true }));
  });

  it("rejects bad requests with Zulip's errors and tells nobody", async () => {
    const othello = await register("othello");
    const core = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "core team" })).stream_id;
    expectError(await t.post("hamlet", "/api/v1/typing", { to: "[12]" }), 400, "Missing 'op' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "begin", to: "[12]" }), 400, "Invalid op");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "start", type: "private", to: "[12]" }), 400, "Invalid type");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "start" }), 400, "Missing 'to' argument");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "start", to: "[]" }), 400, "Empty 'to' list");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "start", to: "[99999]" }), 400, "Invalid user ID 99999");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "start", type: "stream", topic: "x" }), 400, "Missing stream_id");
    expectError(await t.post("hamlet", "/api/v1/typing", { op: "start", type: "stream", stream_id: 2 }), 400, "Missing topic");
    expectError(await t.post("cordelia", "/api/v1/typing", { op: "start", type: "stream", stream_id: core, topic: "x" }), 400, "Invalid channel ID");
    expect(await queuedEvents(t, "othello", othello.queue_id)).toEqual([]);
    expectError(
      await t.post(null, "/api/v1/typing", { op: "start", to: "[12]" }),
      401,
      "Not logged in: API authentication or user session required",
      "UNAUTHORIZED",
    );
  });
});

describe("POST /messages/{message_id}/typing", () => {
  const editRegister = async (who: string) => expectSuccess(await t.post(who, "/api/v1/register", { event_types: ["typing_edit_message"] }));

  it("tells a channel message's subscribers that its content is being edited", async () => {
    const denmark = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "Denmark" })).stream_id;
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "edits", "draft");
    const [othello, cordelia] = [await editRegister("othello"), await editRegister("cordelia")];
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/typing`, { op: "start" }));
    expect(await queuedEvents(t, "othello", othello.queue_id)).toEqual([
      {
        id: 0,
        type: "typing_edit_message",
        op: "start",
        sender_id: (await t.user("hamlet")).id,
        message_id: id,
        recipient: { type: "channel", channel_id: denmark, topic: "edits" },
      },
    ]);
    expect(await queuedEvents(t, "cordelia", cordelia.queue_id)).toEqual([]); // not subscribed to Denmark
  });

  it("tells a direct message's participants, and refuses messages the user cannot read", async () => {
    const [hamlet, othello] = [await t.user("hamlet"), await t.user("othello")];
    const id = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "private", to: JSON.stringify([othello.id]), content: "psst" })).id;
    const queue = await editRegister("othello");
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/typing`, { op: "stop" }));
    expect(await queuedEvents(t, "othello", queue.queue_id)).toEqual([
      expect.objectContaining({
        type: "typing_edit_message",
        op: "stop",
        message_id: id,
        recipient: { type: "direct", user_ids: [hamlet.id, othello.id].sort((a, b) => a - b) },
      }),
    ]);
    expectError(await t.post("iago", `/api/v1/messages/${id}/typing`, { op: "start" }), 400, "Invalid message(s)");
    expectError(await t.post("hamlet", `/api/v1/messages/${id}/typing`, { op: "typing" }), 400, "Invalid op");
  });
});
