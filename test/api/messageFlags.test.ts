import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { seedChannels, seedUsers } from "../support/seed.js";
import { at } from "../support/at.js";

const t = useTestServer();

/** Seeded messages: 1-4 Verona, 5-7 Denmark, 8-9 Scotland, 10-11 Venice, 12 Rome, 13-14 core team, 15-17 hamlet↔othello. */
const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const SCOTLAND = seedChannels.scotland.id;
const VENICE = seedChannels.venice.id;
const CORE_TEAM = seedChannels.coreTeam.id;

/** What a client sees as unread: GET /messages with is:unread (plus an optional narrow). */
async function unreadIds(who: string, narrow: object[] = []): Promise<number[]> {
  const body = expectSuccess(
    await t.get(who, "/api/v1/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow: [{ operator: "is", operand: "unread" }, ...narrow] }),
  );
  return body.messages.map((m: any) => m.id);
}

async function flagsOf(who: string, messageId: number): Promise<string[]> {
  return expectSuccess(await t.get(who, `/api/v1/messages/${messageId}`)).message.flags;
}

async function send(who: string, to: string, topic: string, content = "hello", readBySender = true): Promise<number> {
  return sendChannelMessage(t, who, to, topic, content, { read_by_sender: readBySender });
}

describe("POST /api/v1/messages/flags", () => {
  it("stars and unstars a message, telling only the user", async () => {
    const hamlet = seedUsers.hamlet.id;
    const { result: res, events } = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages/flags", { messages: [15], op: "add", flag: "starred" }));
    expect(expectSuccess(res).messages).toEqual([15]);
    expect(events).toEqual([
      { event: { type: "update_message_flags", op: "add", operation: "add", flag: "starred", messages: [15], all: false }, users: [hamlet] },
    ]);
    expect(await flagsOf("hamlet", 15)).toEqual(["read", "starred"]);
    expect(await flagsOf("othello", 15)).not.toContain("starred");

    const removed = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages/flags", { messages: [15], op: "remove", flag: "starred" }));
    expectSuccess(removed.result);
    expect(at(removed.events, 0).event).toMatchObject({ op: "remove", flag: "starred", messages: [15] });
    expect(await flagsOf("hamlet", 15)).toEqual(["read"]);
  });

  it("reports no change for ids that already have the flag", async () => {
    const { result, events } = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages/flags", { messages: [2, 5], op: "add", flag: "read" }));
    expect(expectSuccess(result).messages).toEqual([2, 5]);
    expect(at(events, 0).event).toMatchObject({ messages: [], all: false });
  });

  it("stars public history the user never received with a historical row", async () => {
    const res = await t.post("hamlet", "/api/v1/messages/flags", { messages: [8], op: "add", flag: "starred" }, { multipart: true });
    expectSuccess(res);
    expect(await flagsOf("hamlet", 8)).toEqual(["read", "starred", "historical"]);
    const row = await t.ctx.db.kysely
      .selectFrom("user_messages")
      .select("flags")
      .where("user_id", "=", seedUsers.hamlet.id)
      .where("message_id", "=", 8)
      .executeTakeFirst();
    expect(row).toBeDefined();
    // Reading it changes nothing: historical messages are read.
    expect(await unreadIds("hamlet", [{ operator: "channel", operand: "Scotland" }])).toEqual([]);
  });

  it("rejects starring messages the user may not read, missing and forbidden alike", async () => {
    for (const [who, id] of [
      ["cordelia", 15],
      ["cordelia", 99999],
      ["othello", 13],
      ["polonius", 5],
    ] as const) {
      expectError(await t.post(who, "/api/v1/messages/flags", { messages: [id], op: "add", flag: "starred" }), 400, "Invalid message(s)");
    }
    const rows = await t.ctx.db.kysely
      .selectFrom("user_messages")
      .select("message_id")
      .where("user_id", "=", seedUsers.cordelia.id)
      .where("message_id", "=", 15)
      .execute();
    expect(rows).toEqual([]);
  });

  it("silently ignores ids whose flag would not change, even another user's direct messages", async () => {
    const { result, events } = await t.captureEvents(() => t.post("cordelia", "/api/v1/messages/flags", { messages: [15, 99999], op: "add", flag: "read" }));
    expect(expectSuccess(result).messages).toEqual([15, 99999]);
    expect(at(events, 0).event).toMatchObject({ flag: "read", messages: [] });
    expectSuccess(await t.post("cordelia", "/api/v1/messages/flags", { messages: [15], op: "remove", flag: "starred" }));
  });

  it("marks messages unread with the details clients need, and read again", async () => {
    const hamlet = seedUsers.hamlet.id;
    const { result, events } = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages/flags", { messages: [2, 15], op: "remove", flag: "read" }));
    expect(expectSuccess(result)).toMatchObject({ messages: [2, 15], ignored_because_not_subscribed_channels: [] });
    expect(events).toEqual([
      {
        event: {
          type: "update_message_flags",
          op: "remove",
          operation: "remove",
          flag: "read",
          messages: [2, 15],
          all: false,
          message_details: {
            "2": { type: "stream", stream_id: VERONA, topic: "test", unmuted_stream_msg: true },
            "15": { type: "private", user_ids: [seedUsers.othello.id] },
          },
        },
        users: [hamlet],
      },
    ]);
    expect(await unreadIds("hamlet")).toEqual(expect.arrayContaining([2, 15]));

    expectSuccess(await t.post("hamlet", "/api/v1/messages/flags", { messages: [2, 15], op: "add", flag: "read" }));
    const unread = await unreadIds("hamlet");
    expect(unread).not.toContain(2);
    expect(unread).not.toContain(15);
  });

  it("does not mark messages of unsubscribed channels unread", async () => {
    const { result, events } = await t.captureEvents(() => t.post("cordelia", "/api/v1/messages/flags", { messages: [5, 8, 1], op: "remove", flag: "read" }));
    expect(expectSuccess(result)).toEqual(expect.objectContaining({ messages: [5, 8, 1], ignored_because_not_subscribed_channels: [DENMARK, SCOTLAND] }));
    expect(at(events, 0).event).toMatchObject({ messages: [], message_details: {} });
    expect(await unreadIds("cordelia", [{ operator: "channel", operand: "Denmark" }])).toEqual([]);
  });

  it("flags wildcard and direct mentions in the details of messages marked unread", async () => {
    const id = await send("othello", "Verona", "mentions", "hi @**King Hamlet** and @**all**");
    expectSuccess(await t.post("hamlet", "/api/v1/messages/flags", { messages: [id], op: "add", flag: "read" }));
    const { events } = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages/flags", { messages: [id], op: "remove", flag: "read" }));
    expect(at(events, 0).event.message_details).toEqual({
      [id]: { type: "stream", stream_id: VERONA, topic: "mentions", unmuted_stream_msg: true, mentioned: true },
    });
  });

  it("does not count wildcard mentions in muted topics", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "Quiet", visibility_policy: 1 }));
    const id = await send("othello", "Verona", "quiet", "hi @**all**");
    expectSuccess(await t.post("hamlet", "/api/v1/messages/flags", { messages: [id], op: "add", flag: "read" }));
    const { events } = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages/flags", { messages: [id], op: "remove", flag: "read" }));
    expect(at(events, 0).event.message_details).toEqual({ [id]: { type: "stream", stream_id: VERONA, topic: "quiet", unmuted_stream_msg: false } });
  });

  it("validates the flag, then the operation, in Zulip's order", async () => {
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "add", flag: "bogus" }), 400, "Invalid flag: 'bogus'");
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "toggle", flag: "bogus" }), 400, "Invalid flag: 'bogus'");
    expectError(
      await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "add", flag: "wildcard_mentioned" }),
      400,
      "Invalid flag: 'wildcard_mentioned'",
    );
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "add", flag: "is_private" }), 400, "Invalid flag: 'is_private'");
    for (const flag of ["mentioned", "historical", "has_alert_word", "stream_wildcard_mentioned"]) {
      expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "add", flag }), 400, `Flag not editable: '${flag}'`);
    }
    expectError(
      await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "toggle", flag: "read" }),
      400,
      "Invalid message flag operation: 'toggle'",
    );
  });

  it("validates the message list", async () => {
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { op: "add", flag: "read" }), 400, "Missing 'messages' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: "1,2", op: "add", flag: "read" }), 400, "messages is not valid JSON");
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: { a: 1 }, op: "add", flag: "read" }), 400, "messages is not a list");
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: ["a"], op: "add", flag: "read" }), 400, "messages[0] is not an integer");
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], flag: "read" }), 400, "Missing 'op' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post("hamlet", "/api/v1/messages/flags", { messages: [1], op: "add" }), 400, "Missing 'flag' argument", "REQUEST_VARIABLE_MISSING");
  });

  it("requires authentication", async () => {
    expectError(
      await t.post(null, "/api/v1/messages/flags", { messages: [1], op: "add", flag: "read" }),
      401,
      "Not logged in: API authentication or user session required",
      "UNAUTHORIZED",
    );
  });
});

describe("unread state through sending", () => {
  it("counts a new message unread for its recipients and read for a human sender", async () => {
    const id = await send("othello", "Denmark", "fresh");
    expect(await unreadIds("hamlet")).toContain(id);
    expect(await unreadIds("othello")).not.toContain(id);
    expect(await unreadIds("cordelia")).not.toContain(id);
    const apiSent = await send("othello", "Denmark", "fresh", "from a script", false);
    expect(await unreadIds("othello")).toContain(apiSent);
  });
});

describe("POST /api/v1/messages/flags/narrow", () => {
  it("marks a channel's range read and reports the range", async () => {
    const id = await send("hamlet", "Verona", "range");
    const before = await unreadIds("othello", [{ operator: "channel", operand: "Verona" }]);
    expect(before.length).toBeGreaterThan(0);
    const { result, events } = await t.captureEvents(() =>
      t.post("othello", "/api/v1/messages/flags/narrow", {
        anchor: "oldest",
        num_before: 0,
        num_after: 1000,
        narrow: [{ operator: "channel", operand: "Verona" }],
        op: "add",
        flag: "read",
      }),
    );
    const body = expectSuccess(result);
    expect(body).toMatchObject({ updated_count: before.length, first_processed_id: 1, last_processed_id: id, found_oldest: true, found_newest: true });
    expect(body.processed_count).toBeGreaterThanOrEqual(before.length);
    expect(body.ignored_because_not_subscribed_channels).toBeUndefined();
    expect(at(events, 0).event).toMatchObject({ type: "update_message_flags", op: "add", flag: "read", messages: before });
    expect(await unreadIds("othello", [{ operator: "channel", operand: "Verona" }])).toEqual([]);
  });

  it("anchors at the first unread message and stops at num_after", async () => {
    const first = await send("hamlet", "Scotland", "narrowed");
    const second = await send("hamlet", "Scotland", "narrowed");
    const body = expectSuccess(
      await t.post("shiva", "/api/v1/messages/flags/narrow", {
        anchor: "first_unread",
        num_before: 0,
        num_after: 0,
        narrow: [{ operator: "topic", operand: "narrowed" }],
        op: "add",
        flag: "read",
      }),
    );
    expect(body).toMatchObject({ processed_count: 1, updated_count: 1, first_processed_id: first, last_processed_id: first, found_newest: false });
    expect(await unreadIds("shiva", [{ operator: "topic", operand: "narrowed" }])).toEqual([second]);
  });

  it("answers an empty range with null ids", async () => {
    const body = expectSuccess(
      await t.post("hamlet", "/api/v1/messages/flags/narrow", {
        anchor: "newest",
        num_before: 5,
        num_after: 0,
        narrow: [{ operator: "topic", operand: "no such topic" }],
        op: "add",
        flag: "starred",
      }),
    );
    expect(body).toEqual(
      expect.objectContaining({
        processed_count: 0,
        updated_count: 0,
        first_processed_id: null,
        last_processed_id: null,
        found_oldest: true,
        found_newest: true,
      }),
    );
  });

  it("marks a range unread, skipping unsubscribed channels", async () => {
    const body = expectSuccess(
      await t.post("cordelia", "/api/v1/messages/flags/narrow", {
        anchor: "oldest",
        num_before: 0,
        num_after: 2,
        narrow: [{ operator: "channel", operand: "Denmark" }],
        op: "remove",
        flag: "read",
      }),
    );
    expect(body).toMatchObject({
      processed_count: 2,
      updated_count: 0,
      first_processed_id: 5,
      last_processed_id: 6,
      ignored_because_not_subscribed_channels: [DENMARK],
    });
    const own = expectSuccess(
      await t.post("cordelia", "/api/v1/messages/flags/narrow", { anchor: "4", num_before: 0, num_after: 0, narrow: [], op: "remove", flag: "read" }),
    );
    expect(own).toMatchObject({ processed_count: 1, updated_count: 1, ignored_because_not_subscribed_channels: [] });
    expect(await unreadIds("cordelia")).toContain(4);
  });

  it("validates its parameters", async () => {
    const base = { anchor: "newest", num_before: 1, num_after: 0, narrow: [], op: "add", flag: "read" };
    const post = (params: object) => t.post("hamlet", "/api/v1/messages/flags/narrow", { ...base, ...params });
    expectError(await post({ anchor: "bogus" }), 400, "Invalid anchor");
    expectError(await post({ anchor: "5", num_before: 1, num_after: 1, include_anchor: false }), 400, "The anchor can only be excluded at an end of the range");
    expectError(await post({ num_before: -1 }), 400, "num_before is too small");
    expectError(await post({ num_after: "x" }), 400, "num_after is not valid JSON");
    expectError(await post({ flag: "mentioned" }), 400, "Flag not editable: 'mentioned'");
    expectError(await post({ op: "flip" }), 400, "Invalid message flag operation: 'flip'");
    expectError(await post({ narrow: [{ operator: "bogus", operand: "x" }] }), 400, "Invalid narrow operator: unknown operator bogus", "BAD_NARROW");
    const { narrow: _narrow, ...withoutNarrow } = base;
    expectError(await t.post("hamlet", "/api/v1/messages/flags/narrow", withoutNarrow), 400, "Missing 'narrow' argument", "REQUEST_VARIABLE_MISSING");
    expectSuccess(await post({ narrow: null }));
  });
});

describe("POST /api/v1/mark_all_as_read", () => {
  it("marks every unread message read and sends one all:true event", async () => {
    expect((await unreadIds("prospero")).length).toBeGreaterThan(0);
    const prospero = seedUsers.prospero.id;
    const { result, events } = await t.captureEvents(() => t.post("prospero", "/api/v1/mark_all_as_read"));
    expect(expectSuccess(result).complete).toBe(true);
    expect(events).toEqual([
      { event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true }, users: [prospero] },
    ]);
    expect(await unreadIds("prospero")).toEqual([]);
  });
});

describe("POST /api/v1/mark_stream_as_read", () => {
  it("marks the channel's unread messages read", async () => {
    const desdemona = seedUsers.desdemona.id;
    const unread = await unreadIds("desdemona", [{ operator: "channel", operand: "Venice" }]);
    expect(unread).toEqual([11]);
    const { result, events } = await t.captureEvents(() => t.post("desdemona", "/api/v1/mark_stream_as_read", { stream_id: VENICE }));
    expectSuccess(result);
    expect(events).toEqual([
      { event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [11], all: false }, users: [desdemona] },
    ]);
    expect(await unreadIds("desdemona", [{ operator: "channel", operand: "Venice" }])).toEqual([]);
    const again = await t.captureEvents(() => t.post("desdemona", "/api/v1/mark_stream_as_read", { stream_id: VENICE }));
    expect(again.events).toEqual([]);
  });

  it("refuses channels the user cannot read", async () => {
    expectError(await t.post("desdemona", "/api/v1/mark_stream_as_read", { stream_id: 999 }), 400, "Invalid channel ID");
    expectError(await t.post("cordelia", "/api/v1/mark_stream_as_read", { stream_id: CORE_TEAM }), 400, "Invalid channel ID");
    expectError(await t.post("polonius", "/api/v1/mark_stream_as_read", { stream_id: DENMARK }), 400, "Invalid channel ID");
    expectError(await t.post("desdemona", "/api/v1/mark_stream_as_read", { stream_id: "abc" }), 400, "stream_id is not valid JSON");
    expectError(await t.post("desdemona", "/api/v1/mark_stream_as_read", {}), 400, "Missing 'stream_id' argument", "REQUEST_VARIABLE_MISSING");
  });
});

describe("POST /api/v1/mark_topic_as_read", () => {
  it("marks one topic read, matching its name case-insensitively", async () => {
    const zoe = seedUsers.ZOE.id;
    expect(
      await unreadIds("ZOE", [
        { operator: "channel", operand: "Denmark" },
        { operator: "topic", operand: "Castle" },
      ]),
    ).toEqual([5, 6, 7]);
    const { result, events } = await t.captureEvents(() => t.post("ZOE", "/api/v1/mark_topic_as_read", { stream_id: DENMARK, topic_name: "castle" }));
    expectSuccess(result);
    expect(events).toEqual([
      { event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [5, 6, 7], all: false }, users: [zoe] },
    ]);
    expect(
      await unreadIds("ZOE", [
        { operator: "channel", operand: "Denmark" },
        { operator: "topic", operand: "Castle" },
      ]),
    ).toEqual([]);
  });

  it("takes the empty topic's display name for the empty topic", async () => {
    const id = await send("hamlet", "Scotland", "");
    const other = await send("hamlet", "Scotland", "elsewhere");
    expect(await unreadIds("ZOE")).toEqual(expect.arrayContaining([id, other]));
    expectSuccess(await t.post("ZOE", "/api/v1/mark_topic_as_read", { stream_id: SCOTLAND, topic_name: "general chat" }));
    const unread = await unreadIds("ZOE");
    expect(unread).not.toContain(id);
    expect(unread).toContain(other);
  });

  it("refuses unknown topics and inaccessible channels", async () => {
    expectError(await t.post("ZOE", "/api/v1/mark_topic_as_read", { stream_id: DENMARK, topic_name: "nope" }), 400, "No such topic 'nope'");
    expectError(await t.post("cordelia", "/api/v1/mark_topic_as_read", { stream_id: CORE_TEAM, topic_name: "private channels" }), 400, "Invalid channel ID");
    expectError(await t.post("ZOE", "/api/v1/mark_topic_as_read", { stream_id: DENMARK }), 400, "Missing 'topic_name' argument", "REQUEST_VARIABLE_MISSING");
  });
});
