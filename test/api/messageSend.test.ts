import { describe, expect, it } from "vitest";
import { seedIds, seedSubscribers } from "../support/seed.js";
import { archiveChannel, deactivateUser, makeChannel, makeUser, subscribe } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

async function lastMessage() {
  return t.ctx.db.kysely.selectFrom("messages").selectAll().orderBy("id", "desc").executeTakeFirstOrThrow();
}

async function messageCount(): Promise<number> {
  const row = await t.ctx.db.kysely
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function userMessages(messageId: number) {
  return t.ctx.db.kysely.selectFrom("user_messages").selectAll().where("message_id", "=", messageId).orderBy("user_id").execute();
}

describe("POST /api/v1/messages to a channel", () => {
  it("sends to a channel by name and gives every subscriber a row", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "Castle", content: "Hello Denmark" }),
    );
    const body = expectSuccess(res);
    const message = await lastMessage();
    expect(message).toMatchObject({
      id: body.id,
      subject: "Castle",
      content: "Hello Denmark",
      rendered_content: "<p>Hello Denmark</p>",
      is_channel_message: 1,
    });
    const rows = await userMessages(body.id);
    // Denmark: desdemona 9, hamlet 10, iago 11, othello 12, prospero 14, shiva 15, ZOE 7
    expect(rows.map((r) => r.user_id)).toEqual(seedSubscribers.denmark);
    // API client: not read by the sender by default (Zulip's default_read_by_sender).
    expect(rows.every((r) => r.flags === 0)).toBe(true);
    // One event for the recipients, one (with no users) for all_public_streams queues.
    const messageEvents = events.filter((e) => e.event.type === "message" && e.users.length > 0);
    expect(messageEvents).toHaveLength(1);
    expect(events.filter((e) => e.event.type === "message" && e.users.length === 0)).toHaveLength(1);
    expect(at(messageEvents, 0).users.sort((a, b) => a - b)).toEqual(seedSubscribers.denmark);
    expect(at(messageEvents, 0).event).toMatchObject({
      flags: [],
      message: { id: body.id, type: "stream", display_recipient: "Denmark", stream_id: 2, subject: "Castle", sender_id: 10, content: "<p>Hello Denmark</p>" },
    });
  });

  it("accepts a channel id, a JSON string name, the channel type and the subject alias", async () => {
    for (const params of [
      { type: "channel", to: "2", topic: "a", content: "x" },
      { type: "stream", to: JSON.stringify("Denmark"), subject: "b", content: "x" },
      { type: "stream", to: "[2]", topic: "c", content: "x" },
    ]) {
      const body = expectSuccess(await t.post("hamlet", "/api/v1/messages", params));
      expect((await lastMessage()).id).toBe(body.id);
    }
  });

  it("marks the message read for the sender when asked, and for Zulip's own apps", async () => {
    const a = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "r", content: "x", read_by_sender: true }));
    expect((await userMessages(a.id)).find((r) => r.user_id === 10)!.flags).toBe(1);
    const b = expectSuccess(
      await t.post(
        "hamlet",
        "/api/v1/messages",
        { type: "stream", to: "Denmark", topic: "r", content: "x" },
        { headers: { "User-Agent": "ZulipMobile/27.1" } },
      ),
    );
    expect((await userMessages(b.id)).find((r) => r.user_id === 10)!.flags).toBe(1);
  });

  it("sets mention and wildcard flags", async () => {
    const body = expectSuccess(
      await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "m", content: "hi @**Othello, the Moor of Venice** and @**all**" }),
    );
    const rows = await userMessages(body.id);
    expect(rows.find((r) => r.user_id === 12)!.flags).toBe(8 | 16);
    expect(rows.find((r) => r.user_id === 11)!.flags).toBe(16);
    const { message } = expectSuccess(await t.get("othello", `/api/v1/messages/${body.id}`));
    expect(message.flags).toEqual(["mentioned", "stream_wildcard_mentioned", "wildcard_mentioned"]);
    expect(message.content).toContain('<span class="user-mention" data-user-id="12">@Othello, the Moor of Venice</span>');
  });

  it("mentions the members of a mentioned group, through its subgroups, unless silent", async () => {
    const [othello, iago] = [(await t.user("othello")).id, (await t.user("iago")).id];
    const create = async (name: string, members: number[], subgroups: number[] = []) =>
      expectSuccess(await t.post("hamlet", "/api/v1/user_groups/create", { name, description: name, members, subgroups })).group_id;
    const inner = await create("mentioned inner", [othello]);
    await create("mentioned outer", [iago], [inner]);
    const body = expectSuccess(
      await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "groups", content: "hi @*mentioned outer*" }),
    );
    const rows = await userMessages(body.id);
    expect(rows.filter((r) => (r.flags & 8) !== 0).map((r) => r.user_id)).toEqual([iago, othello].sort((a, b) => a - b));
    const { message } = expectSuccess(await t.get("othello", `/api/v1/messages/${body.id}`));
    expect(message.flags).toContain("mentioned");
    const silent = expectSuccess(
      await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "groups", content: "hi @_*mentioned outer*" }),
    );
    expect((await userMessages(silent.id)).filter((r) => (r.flags & 8) !== 0)).toEqual([]);
  });

  it("truncates long content and topics as Zulip does", async () => {
    const body = expectSuccess(
      await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "t".repeat(70), content: "a".repeat(10_050) }),
    );
    const message = await lastMessage();
    expect(message.id).toBe(body.id);
    expect(message.subject).toBe("t".repeat(57) + "...");
    expect(message.content).toHaveLength(10_000);
    expect(message.content.endsWith("\n[message truncated]")).toBe(true);
  });

  it("treats (no topic) and the display name as the empty topic", async () => {
    for (const topic of ["(no topic)", "general chat", ""]) {
      expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic, content: "x" }));
      expect((await lastMessage()).subject).toBe("");
    }
  });

  it("is:me messages are flagged is_me_message", async () => {
    const body = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "me", content: "/me waves" }));
    const { message } = expectSuccess(await t.get("hamlet", `/api/v1/messages/${body.id}`));
    expect(message.is_me_message).toBe(true);
  });

  it("sets first_message_id of a channel that had none", async () => {
    const db = t.ctx.db.kysely;
    await db.updateTable("streams").set({ first_message_id: null }).where("id", "=", 3).execute();
    const body = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Scotland", topic: "f", content: "x" }));
    expect((await db.selectFrom("streams").select("first_message_id").where("id", "=", 3).executeTakeFirstOrThrow()).first_message_id).toBe(body.id);
  });

  it("follows a topic the sender starts and tells the sender", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("othello", "/api/v1/messages", { type: "stream", to: "Scotland", topic: "brand new topic", content: "x" }),
    );
    const body = expectSuccess(res);
    expect(body.automatic_new_visibility_policy).toBe(3);
    const topicEvents = events.filter((e) => e.event.type === "user_topic");
    expect(topicEvents).toEqual([{ event: expect.objectContaining({ stream_id: 3, topic_name: "brand new topic", visibility_policy: 3 }), users: [12] }]);
    // A second message to the same topic changes nothing.
    const again = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Scotland", topic: "brand new topic", content: "y" }));
    expect(again.automatic_new_visibility_policy).toBeUndefined();
    // Joining an existing topic (policy "on initiation") does not follow it.
    const other = expectSuccess(await t.post("shiva", "/api/v1/messages", { type: "stream", to: "Scotland", topic: "brand new topic", content: "z" }));
    expect(other.automatic_new_visibility_policy).toBeUndefined();
  });

  it("passes local_id back on the sender's event only", async () => {
    const { events } = await t.captureEvents(() =>
      t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "echo", content: "x", queue_id: "q1", local_id: "100.01" }),
    );
    const messageEvents = events.filter((e) => e.event.type === "message");
    const mine = messageEvents.find((e) => e.users.includes(10))!;
    expect(mine.users).toEqual([10]);
    expect(mine.event).toMatchObject({ local_message_id: "100.01", sender_queue_id: "q1" });
    expect(messageEvents.filter((e) => e !== mine).every((e) => !("local_message_id" in e.event))).toBe(true);
  });
});

describe("POST /api/v1/messages: who may post", () => {
  it("rejects an unknown channel by name with STREAM_DOES_NOT_EXIST", async () => {
    const res = await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Nowhere", topic: "a", content: "x" });
    expect(expectError(res, 400, "Channel 'Nowhere' does not exist", "STREAM_DOES_NOT_EXIST").stream).toBe("Nowhere");
  });

  it("rejects an unknown channel id with the id variant", async () => {
    const res = await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "999", topic: "a", content: "x" });
    expect(expectError(res, 400, "Channel with ID '999' does not exist", "STREAM_DOES_NOT_EXIST").stream_id).toBe(999);
  });

  it("hides a private channel from a non-subscriber", async () => {
    const before = await messageCount();
    const res = await t.post("othello", "/api/v1/messages", { type: "stream", to: "core team", topic: "a", content: "x" });
    expectError(res, 400, "Channel 'core team' does not exist", "STREAM_DOES_NOT_EXIST");
    expect(await messageCount()).toBe(before);
  });

  it("lets a guest post only to channels they are subscribed to", async () => {
    expectSuccess(await t.post("polonius", "/api/v1/messages", { type: "stream", to: "Verona", topic: "a", content: "x" }));
    const res = await t.post("polonius", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "a", content: "x" });
    expectError(res, 400, "Channel 'Denmark' does not exist", "STREAM_DOES_NOT_EXIST");
  });

  it("refuses archived channels", async () => {
    await archiveChannel(t, await makeChannel(t, { name: "archived venue", subscribers: ["iago", "prospero"] }));
    const res = await t.post("prospero", "/api/v1/messages", { type: "stream", to: "archived venue", topic: "a", content: "x" });
    expectError(res, 400, "Not authorized to send to channel 'archived venue'");
  });

  it("refuses users outside can_send_message_group", async () => {
    const admins = await t.systemGroupId("role:administrators");
    await makeChannel(t, { name: "admins speak", subscribers: ["iago", "hamlet"], extra: { can_send_message_group: admins } });
    expectError(
      await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "admins speak", topic: "a", content: "x" }),
      400,
      "You do not have permission to post in this channel.",
    );
    expectSuccess(await t.post("iago", "/api/v1/messages", { type: "stream", to: "admins speak", topic: "a", content: "x" }));
  });

  it("requires authentication", async () => {
    expectError(
      await t.post(null, "/api/v1/messages", { type: "stream", to: "Denmark", topic: "a", content: "x" }),
      401,
      "Not logged in: API authentication or user session required",
      "UNAUTHORIZED",
    );
  });
});

describe("POST /api/v1/messages: bad parameters change nothing", () => {
  const cases: Array<[string, Record<string, unknown>, string, string?]> = [
    ["missing type", { to: "Denmark", topic: "a", content: "x" }, "Missing 'type' argument", "REQUEST_VARIABLE_MISSING"],
    ["bad type", { type: "broadcast", to: "Denmark", topic: "a", content: "x" }, "Invalid type"],
    ["missing to", { type: "stream", topic: "a", content: "x" }, "Missing 'to' argument", "REQUEST_VARIABLE_MISSING"],
    ["missing content", { type: "stream", to: "Denmark", topic: "a" }, "Missing 'content' argument", "REQUEST_VARIABLE_MISSING"],
    ["empty content", { type: "stream", to: "Denmark", topic: "a", content: "  \n " }, "Message must not be empty"],
    ["missing topic", { type: "stream", to: "Denmark", content: "x" }, "Missing topic"],
    ["two channels", { type: "stream", to: "[1, 2]", topic: "a", content: "x" }, "Expected exactly one channel"],
    ["channel of wrong type", { type: "stream", to: "{}", topic: "a", content: "x" }, "Invalid data type for channel"],
    ["unknown user id", { type: "direct", to: "[10, 999]", content: "x" }, "Invalid user ID 999"],
    ["unknown email", { type: "direct", to: '["nobody@zulip.com"]', content: "x" }, "Invalid email 'nobody@zulip.com'"],
    ["mixed recipients", { type: "direct", to: '["othello@zulip.com", 10]', content: "x" }, "Recipient lists may contain emails or user IDs, but not both."],
    ["empty recipients", { type: "direct", to: "[]", content: "x" }, "Message must have recipients"],
    ["NUL in content", { type: "stream", to: "Denmark", topic: "a", content: "a\u0000b" }, "content contains NULL (0x00) characters."],
  ];
  for (const [name, params, msg, code] of cases) {
    it(`rejects ${name}`, async () => {
      const before = await messageCount();
      const { result: res, events } = await t.captureEvents(() => t.post("hamlet", "/api/v1/messages", params as Record<string, string>));
      expectError(res, 400, msg, code ?? "BAD_REQUEST");
      expect(await messageCount()).toBe(before);
      expect(events).toEqual([]);
    });
  }

  it("requires a topic when the organization requires topics", async () => {
    const db = t.ctx.db.kysely;
    const realm = await db.selectFrom("realms").selectAll().where("string_id", "=", "zulip").executeTakeFirstOrThrow();
    const settings = JSON.parse(realm.settings || "{}");
    await db
      .updateTable("realms")
      .set({ settings: JSON.stringify({ ...settings, mandatory_topics: true }) })
      .where("id", "=", realm.id)
      .execute();
    try {
      expectError(
        await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "(no topic)", content: "x" }),
        400,
        "Topics are required in this organization",
      );
    } finally {
      await db.updateTable("realms").set({ settings: realm.settings }).where("id", "=", realm.id).execute();
    }
  });
});

describe("POST /api/v1/messages: direct messages", () => {
  it("sends a 1:1 message to the receiver's personal recipient, shared by both directions", async () => {
    const hamlet = await t.user("hamlet");
    const othello = await t.user("othello");
    const { result: res, events } = await t.captureEvents(() =>
      t.post("hamlet", "/api/v1/messages", { type: "direct", to: `[${othello.id}]`, content: "psst" }),
    );
    const body = expectSuccess(res);
    expect(await lastMessage()).toMatchObject({ recipient_id: othello.recipient_id, is_channel_message: 0, subject: "" });
    expect((await userMessages(body.id)).map((r) => [r.user_id, r.flags])).toEqual([
      [10, 2048],
      [12, 2048],
    ]);
    // Each side sees the conversation under the other's personal recipient (feature level 327).
    const received = events.find((e) => e.event.type === "message" && e.users.includes(othello.id))!;
    expect((received.event.message as any).recipient_id).toBe(hamlet.recipient_id);
    const { message } = expectSuccess(await t.get("othello", `/api/v1/messages/${body.id}`));
    expect(message.recipient_id).toBe(hamlet.recipient_id);
    expect(message.display_recipient).toEqual([
      { id: 10, email: "hamlet@zulip.com", full_name: "King Hamlet", is_mirror_dummy: false },
      { id: 12, email: "othello@zulip.com", full_name: "Othello, the Moor of Venice", is_mirror_dummy: false },
    ]);
    const sent = expectSuccess(await t.get("hamlet", `/api/v1/messages/${body.id}`));
    expect(sent.message.recipient_id).toBe(othello.recipient_id);
  });

  it("accepts emails, comma-separated emails and the private type", async () => {
    for (const to of ['["othello@zulip.com"]', "othello@zulip.com", "othello@zulip.com,iago@zulip.com"]) {
      expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "private", to, content: "x" }));
    }
  });

  it("creates one direct message group per set of users and reuses it", async () => {
    const a = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: seedIds("othello", "iago"), content: "group" }));
    const first = await lastMessage();
    const b = expectSuccess(await t.post("iago", "/api/v1/messages", { type: "direct", to: seedIds("hamlet", "othello"), content: "reply" }));
    const second = await lastMessage();
    expect(second.id).toBe(b.id);
    expect(first.id).toBe(a.id);
    expect(second.recipient_id).toBe(first.recipient_id);
    const group = await t.ctx.db.kysely
      .selectFrom("direct_message_groups")
      .selectAll()
      .where("recipient_id", "=", first.recipient_id)
      .executeTakeFirstOrThrow();
    expect(group).toMatchObject({ member_key: "10,11,12", group_size: 3 });
    expect((await userMessages(b.id)).map((r) => r.user_id)).toEqual(seedIds("hamlet", "iago", "othello"));
  });

  it("rejects a deactivated recipient", async () => {
    const gone = await makeUser(t, { email: "gone@zulip.com" });
    await deactivateUser(t, gone.id);
    expectError(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: [gone.id], content: "x" }), 400, "'gone@zulip.com' is no longer using Zulip.");
  });
});

describe("POST /api/v1/messages: organization direct-message policies", () => {
  const dm = (who: string, to: number[]) => t.post(who, "/api/v1/messages", { type: "direct", to: JSON.stringify(to), content: "hi" });

  it("outside direct_message_permission_group, allows only conversations that include a member of it", async () => {
    const admins = await t.systemGroupId("role:administrators");
    await t.withRealmSettings({ direct_message_permission_group: admins }, async () => {
      const before = await messageCount();
      expectError(await dm("hamlet", [12]), 400, "This conversation does not include any users who can authorize it.");
      expect(await messageCount()).toBe(before);
      expectSuccess(await dm("hamlet", [11]));
      expectSuccess(await dm("hamlet", seedIds("othello", "iago")));
      expectSuccess(await dm("hamlet", [10]));
      expectSuccess(await dm("iago", [12]));
    });
  });

  it("with role:nobody, disables direct messages except to oneself", async () => {
    await t.withRealmSettings({ direct_message_permission_group: await t.systemGroupId("role:nobody") }, async () => {
      expectError(await dm("iago", [12]), 400, "Direct messages are disabled in this organization.");
      expectSuccess(await dm("iago", [11]));
    });
  });

  it("outside direct_message_initiator_group, allows only conversations that already exist", async () => {
    expectSuccess(await dm("hamlet", [8]));
    expectSuccess(await dm("hamlet", seedIds("cordelia", "aaron")));
    await t.withRealmSettings({ direct_message_initiator_group: await t.systemGroupId("role:administrators") }, async () => {
      expectSuccess(await dm("hamlet", [8]));
      expectSuccess(await dm("cordelia", [10]));
      expectSuccess(await dm("aaron", seedIds("hamlet", "cordelia")));
      const before = await messageCount();
      expectError(await dm("hamlet", [14]), 400, "You do not have permission to initiate direct message conversations.");
      expectError(await dm("hamlet", seedIds("prospero", "cordelia")), 400, "You do not have permission to initiate direct message conversations.");
      expect(await messageCount()).toBe(before);
      expectSuccess(await dm("iago", [14]));
    });
  });
});

describe("POST /api/v1/messages: topic characters", () => {
  it("rejects control characters and non-characters with their position, as Zulip does", async () => {
    const before = await messageCount();
    for (const [topic, position] of [
      ["a\u0007b", 2],
      ["tab\there", 4],
      ["🙂\uFFFE", 2],
    ] as const) {
      expectError(
        await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic, content: "x" }),
        400,
        `Invalid character in topic, at position ${position}!`,
      );
    }
    expect(await messageCount()).toBe(before);
    expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "café 🙂 ✔", content: "x" }));
  });
});

describe("POST /api/v1/messages: query budget", () => {
  it("costs the same number of queries for 3 and 12 direct recipients", async () => {
    const count = async (to: number[]) => {
      await t.post("iago", "/api/v1/messages", { type: "direct", to: JSON.stringify(to), content: "warm-up" });
      return t.countQueries(async () =>
        expectSuccess(await t.post("iago", "/api/v1/messages", { type: "direct", to: JSON.stringify(to), content: "counted" })),
      );
    };
    expect(await count(seedIds("aaron", "ZOE", "cordelia"))).toBe(
      await count(seedIds("aaron", "ZOE", "cordelia", "desdemona", "hamlet", "othello", "polonius", "prospero", "shiva")),
    );
  });
});

describe("POST /api/v1/messages: wildcard mentions in large channels", () => {
  it("lets only can_mention_many_users_group (administrators) use @**all** with more than 15 subscribers", async () => {
    // Six more users in Verona (a default channel: new users join it anyway): 16 subscribers.
    const extra: number[] = [];
    for (let i = 0; i < 6; i++) extra.push((await makeUser(t, { email: `extra${i}@zulip.com`, full_name: `Extra ${i}` })).id);
    await subscribe(t, "iago", ["Verona"], extra);
    const before = await messageCount();
    expectError(
      await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Verona", topic: "w", content: "hey @**all**" }),
      400,
      "You do not have permission to use channel wildcard mentions in this channel.",
      "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
    );
    expect(await messageCount()).toBe(before);
    expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Verona", topic: "w", content: "hey @_**all** (silent)" }));
    expectSuccess(await t.post("iago", "/api/v1/messages", { type: "stream", to: "Verona", topic: "w", content: "hey @**all**" }));
  });
});
