import { beforeAll, describe, expect, it } from "vitest";
import { seedIds } from "../support/seed.js";
import { subscribe } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();
const NEWEST = 10000000000000000;
const ids = (body: any): number[] => body.messages.map((m: any) => m.id);

/** Seeded messages: 1-4 Verona, 5-7 Denmark, 8-9 Scotland, 10-11 Venice, 12 Rome, 13-14 core team, 15-17 hamlet↔othello. */
const HAMLET_IDS = [1, 2, 3, 4, 5, 6, 7, 13, 14, 15, 16, 17];

describe("GET /api/v1/messages", () => {
  it("returns the user's own history around the newest anchor", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 100, num_after: 0 }));
    expect(ids(body)).toEqual(HAMLET_IDS);
    expect(body).toMatchObject({ anchor: NEWEST, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false });
    const first = body.messages[0];
    expect(first).toMatchObject({
      id: 1,
      type: "stream",
      display_recipient: "Verona",
      stream_id: 1,
      subject: "test",
      sender_id: 11,
      sender_email: "iago@zulip.com",
      sender_full_name: "Iago",
      sender_realm_str: "zulip",
      content: "<p>Welcome to Verona! This is the test topic.</p>",
      content_type: "text/html",
      client: "populate_db",
      flags: [],
      reactions: [],
      submessages: [],
      topic_links: [],
      is_me_message: false,
    });
    expect(body.messages.find((m: any) => m.id === 2).flags).toEqual(["read"]);
  });

  it("pages around an anchor", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "5", num_before: 1, num_after: 1 }));
    expect(ids(body)).toEqual([4, 5, 6]);
    expect(body).toMatchObject({ anchor: 5, found_anchor: true, found_oldest: false, found_newest: false });
    const excluded = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "5", num_before: 2, num_after: 0, include_anchor: false }));
    expect(ids(excluded)).toEqual([3, 4]);
    expect(excluded.found_anchor).toBe(false);
    const oldest = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "oldest", num_before: 0, num_after: 2 }));
    expect(ids(oldest)).toEqual([1, 2]);
    expect(oldest).toMatchObject({ anchor: 0, found_oldest: true, found_newest: false });
  });

  it("finds the first unread message", async () => {
    const body = expectSuccess(await t.get("othello", "/api/v1/messages", { anchor: "first_unread", num_before: 0, num_after: 1 }));
    expect(body.anchor).toBe(1);
    expect(ids(body)).toEqual([1, 2]);
    const legacy = expectSuccess(await t.get("othello", "/api/v1/messages", { use_first_unread_anchor: true, num_before: 0, num_after: 1 }));
    expect(legacy.anchor).toBe(1);
  });

  it("returns raw Markdown when apply_markdown is false", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "1", num_before: 0, num_after: 0, apply_markdown: false }));
    expect(body.messages[0]).toMatchObject({ content: "Welcome to Verona! This is the test topic.", content_type: "text/x-markdown" });
  });

  it("fetches listed message ids the user may read", async () => {
    const body = expectSuccess(await t.get("othello", "/api/v1/messages", { message_ids: "[1, 8, 13, 15, 999]" }));
    expect(ids(body)).toEqual([1, 8, 15]);
    expect(body.anchor).toBeUndefined();
  });

  it("shows public history of unsubscribed public channels as read and historical", async () => {
    const body = expectSuccess(
      await t.get("hamlet", "/api/v1/messages", {
        anchor: "newest",
        num_before: 10,
        num_after: 0,
        narrow: JSON.stringify([{ operator: "channel", operand: "Scotland" }]),
      }),
    );
    expect(ids(body)).toEqual([8, 9]);
    expect(body.messages[0].flags).toEqual(["read", "historical"]);
  });

  it("shows the empty topic under its display name unless the client supports it", async () => {
    const sent = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "", content: "no topic" }));
    const legacy = expectSuccess(await t.get("hamlet", `/api/v1/messages/${sent.id}`));
    expect(legacy.message.subject).toBe("general chat");
    const modern = expectSuccess(await t.get("hamlet", `/api/v1/messages/${sent.id}`, { allow_empty_topic_name: true }));
    expect(modern.message.subject).toBe("");
  });
});

describe("GET /api/v1/messages: nothing leaks", () => {
  beforeAll(async () => {
    // Cordelia joins "core team" (protected history) after its messages were sent.
    await subscribe(t, "iago", ["core team"], ["cordelia"]);
  });

  it("hides messages of a protected-history channel sent before the user joined", async () => {
    const body = expectSuccess(
      await t.get("cordelia", "/api/v1/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify([["stream", "core team"]]) }),
    );
    expect(ids(body)).toEqual([]);
    expectError(await t.get("cordelia", "/api/v1/messages/13"), 400, "Invalid message(s)");
    // A member who received them sees them.
    const hamlet = expectSuccess(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify([["stream", "core team"]]) }),
    );
    expect(ids(hamlet)).toEqual([13, 14]);
  });

  it("hides a private channel from a non-member, even by name", async () => {
    const res = await t.get("othello", "/api/v1/messages", {
      anchor: "newest",
      num_before: 10,
      num_after: 0,
      narrow: JSON.stringify([{ operator: "channel", operand: "core team" }]),
    });
    expectError(res, 400, "Invalid narrow operator: unknown channel core team", "BAD_NARROW");
    expectError(await t.get("othello", "/api/v1/messages/13"), 400, "Invalid message(s)");
    expect(ids(expectSuccess(await t.get("othello", "/api/v1/messages", { message_ids: "[13, 14]" })))).toEqual([]);
  });

  it("never shows other users' direct messages", async () => {
    expectError(await t.get("cordelia", "/api/v1/messages/15"), 400, "Invalid message(s)");
    expectError(await t.get("iago", "/api/v1/messages/15"), 400, "Invalid message(s)");
    const body = expectSuccess(
      await t.get("cordelia", "/api/v1/messages", {
        anchor: "newest",
        num_before: 50,
        num_after: 0,
        narrow: JSON.stringify([{ operator: "dm", operand: seedIds("hamlet", "othello") }]),
      }),
    );
    expect(ids(body)).toEqual([]);
    const all = expectSuccess(await t.get("iago", "/api/v1/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: "[]" }));
    expect(ids(all).some((id) => id >= 15 && id <= 17)).toBe(false);
  });

  it("keeps guests out of unsubscribed public channels", async () => {
    expectError(await t.get("polonius", "/api/v1/messages/5"), 400, "Invalid message(s)");
    const res = await t.get("polonius", "/api/v1/messages", {
      anchor: "newest",
      num_before: 10,
      num_after: 0,
      narrow: JSON.stringify([["stream", "Denmark"]]),
    });
    expectError(res, 400, "Invalid narrow operator: unknown channel Denmark", "BAD_NARROW");
    const publicChannels = expectSuccess(
      await t.get("polonius", "/api/v1/messages", {
        anchor: "newest",
        num_before: 50,
        num_after: 0,
        narrow: JSON.stringify([{ operator: "channels", operand: "public" }]),
      }),
    );
    expect(ids(publicChannels).every((id) => id <= 4)).toBe(true);
  });

  it("requires authentication", async () => {
    expectError(
      await t.get(null, "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0 }),
      401,
      "Not logged in: API authentication or user session required",
      "UNAUTHORIZED",
    );
  });
});

describe("GET /api/v1/messages: bad parameters", () => {
  const cases: Array<[string, Record<string, unknown>, string, string?]> = [
    ["missing num_before", { anchor: "newest", num_after: 0 }, "Missing 'num_before' argument", "REQUEST_VARIABLE_MISSING"],
    ["missing num_after", { anchor: "newest", num_before: 0 }, "Missing 'num_after' argument", "REQUEST_VARIABLE_MISSING"],
    ["missing anchor", { num_before: 1, num_after: 0 }, "Missing 'anchor' argument."],
    ["bad anchor", { anchor: "middle", num_before: 1, num_after: 0 }, "Invalid anchor"],
    ["negative num_before", { anchor: "newest", num_before: -1, num_after: 0 }, "num_before is too small"],
    ["too many", { anchor: "newest", num_before: 3000, num_after: 3000 }, "Too many messages requested (maximum 5000)."],
    [
      "excluded anchor inside the range",
      { anchor: "5", num_before: 1, num_after: 1, include_anchor: false },
      "The anchor can only be excluded at an end of the range",
    ],
    [
      "message_ids with an anchor",
      { message_ids: "[1]", anchor: "newest" },
      "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
    ],
    ["narrow that is not JSON", { anchor: "newest", num_before: 1, num_after: 0, narrow: "{" }, "narrow is not valid JSON"],
    [
      "unknown operator",
      { anchor: "newest", num_before: 1, num_after: 0, narrow: '[["color", "blue"]]' },
      "Invalid narrow operator: unknown operator color",
      "BAD_NARROW",
    ],
  ];
  for (const [name, params, msg, code] of cases) {
    it(`rejects ${name}`, async () => {
      expectError(await t.get("hamlet", "/api/v1/messages", params as Record<string, string>), 400, msg, code ?? "BAD_REQUEST");
    });
  }
});

describe("GET /api/v1/messages/{message_id}", () => {
  it("returns the message and its raw content", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/messages/5", { apply_markdown: false }));
    expect(body.raw_content).toBe("Something is rotten in the state of Denmark.");
    expect(body.message).toMatchObject({ id: 5, content: "Something is rotten in the state of Denmark.", flags: ["read"] });
  });

  it("rejects a missing message and a malformed id", async () => {
    expectError(await t.get("hamlet", "/api/v1/messages/99999"), 400, "Invalid message(s)");
    expectError(await t.get("hamlet", "/api/v1/messages/abc"), 400, "message_id is not an integer");
  });
});

describe("GET /api/v1/messages/matches_narrow", () => {
  it("tells which received messages match, with search highlighting", async () => {
    const body = expectSuccess(
      await t.get("hamlet", "/api/v1/messages/matches_narrow", { msg_ids: "[5, 6, 8]", narrow: JSON.stringify([{ operator: "search", operand: "rotten" }]) }),
    );
    expect(body.messages).toEqual({
      5: { match_content: '<p>Something is <span class="highlight">rotten</span> in the state of Denmark.</p>', match_subject: "Castle" },
    });
    const plain = expectSuccess(
      await t.get("hamlet", "/api/v1/messages/matches_narrow", { msg_ids: "[5, 6, 8]", narrow: JSON.stringify([["stream", "Denmark"]]) }),
    );
    expect(Object.keys(plain.messages)).toEqual(["5", "6"]);
    expect(plain.messages[6]).toEqual({ match_content: "<p>Who keeps watch on the platform tonight?</p>", match_subject: "Castle" });
  });
});

describe("GET /api/v1/messages: query budget", () => {
  it("costs the same number of queries for 10 and 100 messages", async () => {
    for (let i = 0; i < 100; i++) {
      const to = i % 2 === 0 ? { type: "stream", to: "Denmark", topic: `load ${i % 5}` } : { type: "direct", to: seedIds("hamlet", "othello") };
      expectSuccess(await t.post(i % 3 === 0 ? "othello" : "iago", "/api/v1/messages", { ...to, content: `message ${i}` }));
    }
    const count = (n: number) =>
      t.countQueries(async () => {
        const body = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: n, num_after: 0 }));
        expect(body.messages).toHaveLength(n);
      });
    expect(await count(10)).toBe(await count(100));
  });
});
