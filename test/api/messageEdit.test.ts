import { describe, expect, it } from "vitest";
import { archiveChannel, makeChannel, makeUser, sendChannelMessage, setTopicVisibility } from "../support/factories.js";
import { seedChannels, seedIds, seedSubscribers, seedUsers } from "../support/seed.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();
const db = () => t.ctx.db.kysely;

const HAMLET = seedUsers.hamlet.id;
const IAGO = seedUsers.iago.id;
const OTHELLO = seedUsers.othello.id;
const PROSPERO = seedUsers.prospero.id;
const NOTIFICATION_BOT = 1;

async function message(id: number) {
  return db().selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function rows(id: number) {
  return db().selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", id).orderBy("user_id").execute();
}

async function topicMessages(streamName: string, topic: string) {
  return db()
    .selectFrom("messages")
    .innerJoin("streams", "streams.recipient_id", "messages.recipient_id")
    .selectAll("messages")
    .where("streams.name", "=", streamName)
    .where("messages.subject", "=", topic)
    .orderBy("messages.id")
    .execute();
}

const patch = (who: string | null, id: number, params: Record<string, unknown>) => t.patch(who, `/api/v1/messages/${id}`, params as never);

describe("PATCH /api/v1/messages/{id}: content", () => {
  it("re-renders the content, records the edit and tells every recipient with their flags", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "edits", "first draft");
    const { result, events } = await t.captureEvents(() => patch("hamlet", id, { content: "hello @**Othello, the Moor of Venice**" }));
    expect(expectSuccess(result)).toMatchObject({ detached_uploads: [] });
    const row = await message(id);
    expect(row.content).toBe("hello @**Othello, the Moor of Venice**");
    expect(row.rendered_content).toBe('<p>hello <span class="user-mention" data-user-id="12">@Othello, the Moor of Venice</span></p>');
    expect(row.last_edit_time).not.toBeNull();
    expect(row.last_moved_time).toBeNull();
    expect(JSON.parse(row.edit_history!)).toEqual([
      { user_id: HAMLET, timestamp: row.last_edit_time, prev_content: "first draft", prev_rendered_content: "<p>first draft</p>" },
    ]);
    expect((await rows(id)).find((r) => r.user_id === OTHELLO)!.flags & 8).toBe(8);

    const updates = events.filter((e) => e.event.type === "update_message");
    expect(updates.flatMap((e) => e.users).sort((a, b) => a - b)).toEqual(seedSubscribers.denmark);
    const toOthello = updates.find((e) => e.users.includes(OTHELLO))!;
    expect(toOthello.event).toMatchObject({
      user_id: HAMLET,
      message_id: id,
      message_ids: [id],
      rendering_only: false,
      stream_id: 2,
      stream_name: "Denmark",
      orig_content: "first draft",
      orig_rendered_content: "<p>first draft</p>",
      content: "hello @**Othello, the Moor of Venice**",
      is_me_message: false,
      flags: ["mentioned"],
    });
    expect(toOthello.event).not.toHaveProperty("propagate_mode");

    const fetched = expectSuccess(await t.get("othello", `/api/v1/messages/${id}`)).message;
    expect(fetched).toMatchObject({ last_edit_timestamp: row.last_edit_time, edit_history: JSON.parse(row.edit_history!) });
    expect(fetched).not.toHaveProperty("last_moved_timestamp");
  });

  it("edits a direct message for its participants and clears a removed mention", async () => {
    const sent = expectSuccess(
      await t.post("hamlet", "/api/v1/messages", { type: "direct", to: JSON.stringify([OTHELLO]), content: "@**Othello, the Moor of Venice** hi" }),
    );
    expect((await rows(sent.id)).find((r) => r.user_id === OTHELLO)!.flags & 8).toBe(8);
    const { result, events } = await t.captureEvents(() => patch("hamlet", sent.id, { content: "just hi" }));
    expectSuccess(result);
    expect((await rows(sent.id)).find((r) => r.user_id === OTHELLO)!.flags & 8).toBe(0);
    expect(events.flatMap((e) => e.users).sort()).toEqual([HAMLET, OTHELLO]);
    expect(at(events, 0).event).not.toHaveProperty("stream_id");
  });

  it("turns blank content into (deleted)", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "edits", "soon gone");
    expectSuccess(await patch("hamlet", id, { content: "   " }));
    expect((await message(id)).content).toBe("(deleted)");
  });

  it("refuses another user's message, an old message and a realm without editing, changing nothing", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "edits", "mine");
    expectError(await patch("othello", id, { content: "theirs" }), 400, "You don't have permission to edit this message");
    expectError(await patch("iago", id, { content: "admin" }), 400, "You don't have permission to edit this message");
    // Seed message 5 (hamlet's) was sent more than 10 minutes ago.
    expectError(await patch("hamlet", 5, { content: "late" }), 400, "The time limit for editing this message has passed");
    await t.withRealmSettings({ allow_message_editing: false }, async () => {
      expectError(await patch("hamlet", id, { content: "no" }), 400, "Your organization has turned off message editing");
    });
    await t.withRealmSettings({ message_content_edit_limit_seconds: null }, async () => {
      expectSuccess(await patch("hamlet", 5, { content: "Something is still rotten." }));
    });
    expect((await message(id)).content).toBe("mine");
    expect((await message(id)).edit_history).toBeNull();
  });
});

describe("PATCH /api/v1/messages/{id}: bad requests", () => {
  it("rejects each bad parameter with Zulip's error", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "bad", "x");
    const dm = 15; // hamlet → othello
    expectError(await patch("hamlet", id, {}), 400, "Nothing to change");
    expectError(await patch("hamlet", id, { topic: "bad" }), 400, "Nothing to change");
    expectError(await patch("hamlet", id, { content: "y", propagate_mode: "change_all" }), 400, "Invalid propagate_mode without topic edit");
    expectError(await patch("hamlet", id, { topic: "z", propagate_mode: "sometimes" }), 400, "Invalid propagate_mode");
    expectError(await patch("hamlet", id, { topic: "ok\u0007bell" }), 400, "Invalid character in topic, at position 3!");
    expectError(await patch("hamlet", id, { stream_id: "abc" }), 400, "stream_id is not valid JSON");
    expectError(await patch("hamlet", id, { stream_id: -1 }), 400, "stream_id is too small");
    expectError(
      await patch("hamlet", id, { stream_id: 1, send_notification_to_old_thread: "maybe" }),
      400,
      "send_notification_to_old_thread is not valid JSON",
    );
    expectError(await patch("hamlet", id, { stream_id: 1, content: "y" }), 400, "Cannot change message content while changing channel");
    expectError(await patch("hamlet", id, { topic: "✔" }), 400, "General chat cannot be marked as resolved");
    expectError(await patch("hamlet", id, { stream_id: 999 }), 400, "Invalid channel ID");
    expectError(await patch("hamlet", dm, { topic: "dm topic" }), 400, "Direct messages cannot have topics.");
    expectError(await patch("hamlet", dm, { stream_id: 1 }), 400, "Direct messages cannot be moved to channels.");
    expectError(await patch("hamlet", 99999, { content: "y" }), 400, "Invalid message(s)");
    expectError(await patch("hamlet", id, { content: "a\u0000b" }), 400, "content contains NULL (0x00) characters.");
    expectError(await patch(null, id, { content: "y" }), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
    const row = await message(id);
    expect(row).toMatchObject({ content: "x", subject: "bad", edit_history: null, recipient_id: (await message(5)).recipient_id });
  });

  it("treats messages the user cannot read and archived channels as invalid", async () => {
    // core team is private; othello is not subscribed.
    expectError(await patch("othello", 13, { topic: "peek" }), 400, "Invalid message(s)");
    // iago (admin) is not a participant of hamlet and othello's direct messages.
    expectError(await patch("iago", 15, { content: "peek" }), 400, "Invalid message(s)");
    const archived = await makeChannel(t, { name: "edit archived", subscribers: ["iago", "hamlet"] });
    const id = await sendChannelMessage(t, "hamlet", archived, "archive", "x");
    await archiveChannel(t, archived);
    expectError(await patch("hamlet", id, { content: "y" }), 400, "Invalid message(s)");
    const other = await sendChannelMessage(t, "hamlet", "Denmark", "to archived", "x");
    expectError(await patch("iago", other, { stream_id: archived }), 400, "Invalid channel ID");
  });
});

describe("PATCH /api/v1/messages/{id}: topic moves", () => {
  it("moves the whole topic, records the move and posts Notification Bot breadcrumbs", async () => {
    const ids = [
      await sendChannelMessage(t, "hamlet", "Denmark", "move all", "one"),
      await sendChannelMessage(t, "iago", "Denmark", "move all", "two"),
      await sendChannelMessage(t, "hamlet", "Denmark", "move all", "three"),
    ];
    const { result, events } = await t.captureEvents(() =>
      patch("othello", at(ids, 1), { topic: "moved all", propagate_mode: "change_all", send_notification_to_old_thread: true }),
    );
    expectSuccess(result);
    for (const id of ids) {
      const row = await message(id);
      expect(row.subject).toBe("moved all");
      expect(row.last_moved_time).not.toBeNull();
      expect(row.last_edit_time).toBeNull();
      expect(JSON.parse(row.edit_history!)).toEqual([{ user_id: OTHELLO, timestamp: row.last_moved_time, prev_topic: "move all", topic: "moved all" }]);
    }
    const update = events.find((e) => e.event.type === "update_message")!;
    expect(update.event).toMatchObject({
      user_id: OTHELLO,
      message_id: ids[1],
      message_ids: ids,
      propagate_mode: "change_all",
      orig_subject: "move all",
      subject: "moved all",
      topic_links: [],
      stream_id: 2,
    });
    expect(update.event).not.toHaveProperty("content");

    const newThread = await topicMessages("Denmark", "moved all");
    expect(newThread.map((m) => m.id).slice(0, 3)).toEqual(ids);
    expect(newThread[3]).toMatchObject({
      sender_id: NOTIFICATION_BOT,
      content: "This topic was moved here from #**Denmark>move all** by @_**Othello, the Moor of Venice|12**.",
    });
    const oldThread = await topicMessages("Denmark", "move all");
    expect(oldThread).toHaveLength(1);
    expect(oldThread[0]).toMatchObject({
      sender_id: NOTIFICATION_BOT,
      content: "This topic was moved to #**Denmark>moved all** by @_**Othello, the Moor of Venice|12**.",
    });
    expect(events.filter((e) => e.event.type === "message")).not.toHaveLength(0);

    // Clients can fetch the bot's messages.
    const fetched = expectSuccess(await t.get("hamlet", `/api/v1/messages/${at(newThread, 3).id}`)).message;
    expect(fetched).toMatchObject({ sender_id: NOTIFICATION_BOT, sender_full_name: "Notification Bot" });
    expect(fetched.content).toContain('class="stream-topic"');
  });

  it("moves only the message and later ones with change_later, and one with change_one", async () => {
    const ids = [
      await sendChannelMessage(t, "hamlet", "Denmark", "later", "1"),
      await sendChannelMessage(t, "hamlet", "Denmark", "later", "2"),
      await sendChannelMessage(t, "hamlet", "Denmark", "later", "3"),
    ];
    const { events } = await t.captureEvents(async () =>
      expectSuccess(await patch("hamlet", at(ids, 1), { topic: "later moved", propagate_mode: "change_later" })),
    );
    expect((await topicMessages("Denmark", "later")).map((m) => m.id)).toEqual([ids[0]]);
    const moved = await topicMessages("Denmark", "later moved");
    expect(moved.map((m) => m.id).slice(0, 2)).toEqual([ids[1], ids[2]]);
    expect(moved[2]).toMatchObject({ sender_id: NOTIFICATION_BOT, content: "2 messages were moved here from #**Denmark>later** by @_**King Hamlet|10**." });
    expect(events.find((e) => e.event.type === "update_message")!.event).toMatchObject({ message_ids: [ids[1], ids[2]], propagate_mode: "change_later" });

    expectSuccess(await patch("hamlet", at(ids, 0), { topic: "single", send_notification_to_new_thread: false }));
    expect((await topicMessages("Denmark", "single")).map((m) => m.id)).toEqual([ids[0]]);
  });

  it("puts each move first in the history of every moved message, keeping its earlier edits", async () => {
    const ids = [
      await sendChannelMessage(t, "hamlet", "Denmark", "twice", "1"),
      await sendChannelMessage(t, "hamlet", "Denmark", "twice", '2 ünïcödé "quoted"'),
      await sendChannelMessage(t, "hamlet", "Denmark", "twice", "3"),
    ];
    expectSuccess(await patch("hamlet", at(ids, 1), { content: '2 edited ✔ "quoted"' }));
    const quiet = { propagate_mode: "change_all", send_notification_to_new_thread: false };
    expectSuccess(await patch("hamlet", at(ids, 0), { topic: "twice 2", ...quiet }));
    expectSuccess(await patch("iago", at(ids, 2), { topic: "twice 3", ...quiet }));
    for (const id of ids) {
      const row = await message(id);
      const history = JSON.parse(row.edit_history!);
      // Stored as JSON.stringify writes it (the text clients get back must not change).
      expect(row.edit_history).toBe(JSON.stringify(history));
      expect(history.slice(0, 2)).toEqual([
        { user_id: IAGO, timestamp: row.last_moved_time, prev_topic: "twice 2", topic: "twice 3" },
        { user_id: HAMLET, timestamp: history[1].timestamp, prev_topic: "twice", topic: "twice 2" },
      ]);
      expect(history).toHaveLength(id === ids[1] ? 3 : 2);
    }
    expect(JSON.parse((await message(at(ids, 1))).edit_history!)[2]).toMatchObject({ user_id: HAMLET, prev_content: '2 ünïcödé "quoted"' });
  });

  it("carries users' topic visibility policies along with a whole-topic move, merging into an existing topic", async () => {
    const a = await sendChannelMessage(t, "hamlet", "Denmark", "muted here", "x");
    await sendChannelMessage(t, "hamlet", "Denmark", "merge target", "y");
    const policy = (who: string, topic: string, visibility: number) => setTopicVisibility(t, who, seedChannels.denmark.id, topic, visibility);
    // othello muted the moving topic and follows the target; prospero muted the moving topic.
    await policy("othello", "muted here", 1);
    await policy("othello", "merge target", 3);
    await policy("prospero", "muted here", 1);
    const { events } = await t.captureEvents(async () => expectSuccess(await patch("hamlet", a, { topic: "merge target", propagate_mode: "change_all" })));
    const policies = async (topics: string[]) =>
      db()
        .selectFrom("user_topics")
        .select(["user_id", "topic_name", "visibility_policy"])
        .where("stream_id", "=", 2)
        .where("topic_name", "in", topics)
        .orderBy("user_id")
        .execute();
    // hamlet follows both topics he started; the more visible policy wins (mute + nothing = nothing).
    expect(await policies(["muted here", "merge target"])).toEqual([
      { user_id: HAMLET, topic_name: "merge target", visibility_policy: 3 },
      { user_id: OTHELLO, topic_name: "merge target", visibility_policy: 3 },
    ]);
    const topicEvents = events.filter((e) => e.event.type === "user_topic");
    expect(topicEvents.map((e) => [e.users, e.event.topic_name, e.event.visibility_policy])).toEqual([
      [[HAMLET], "muted here", 0],
      [[OTHELLO], "muted here", 0],
      [[PROSPERO], "muted here", 0],
    ]);

    // Into a new topic, the policies move as they are.
    const b = await sendChannelMessage(t, "othello", "Denmark", "lonely", "z");
    await policy("prospero", "lonely", 1);
    const moved = await t.captureEvents(async () => expectSuccess(await patch("othello", b, { topic: "lonely 2", propagate_mode: "change_all" })));
    expect(await policies(["lonely", "lonely 2"])).toEqual([
      { user_id: OTHELLO, topic_name: "lonely 2", visibility_policy: 3 },
      { user_id: PROSPERO, topic_name: "lonely 2", visibility_policy: 1 },
    ]);
    expect(moved.events.filter((e) => e.event.type === "user_topic" && e.event.topic_name === "lonely 2").map((e) => e.users[0])).toEqual([OTHELLO, PROSPERO]);
  });

  it("resolves and unresolves a topic with a notice and no move timestamp", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "bug", "it broke");
    const { events } = await t.captureEvents(async () => expectSuccess(await patch("othello", id, { topic: "✔ bug", propagate_mode: "change_all" })));
    const resolved = await topicMessages("Denmark", "✔ bug");
    expect(resolved.map((m) => m.sender_id)).toEqual([HAMLET, NOTIFICATION_BOT]);
    expect(at(resolved, 1).content).toBe("@_**Othello, the Moor of Venice|12** has marked this topic as resolved.");
    expect((await message(id)).last_moved_time).toBeNull();
    expect(events.find((e) => e.event.type === "update_message")!.event).toMatchObject({ orig_subject: "bug", subject: "✔ bug" });

    // After the grace period, unresolving posts its own notice.
    await db()
      .updateTable("messages")
      .set({ date_sent: at(resolved, 1).date_sent - 120 })
      .where("id", "=", at(resolved, 1).id)
      .execute();
    expectSuccess(await patch("othello", id, { topic: "bug", propagate_mode: "change_all" }));
    const reopened = await topicMessages("Denmark", "bug");
    expect(reopened.map((m) => m.content)).toEqual([
      "it broke",
      at(resolved, 1).content,
      "@_**Othello, the Moor of Venice|12** has marked this topic as unresolved.",
    ]);
    expect(JSON.parse((await message(id)).edit_history!)).toHaveLength(2);

    // Toggling right back within a minute deletes that notice instead of adding another.
    const undo = await t.captureEvents(async () => expectSuccess(await patch("othello", id, { topic: "✔ bug", propagate_mode: "change_all" })));
    expect((await topicMessages("Denmark", "✔ bug")).map((m) => m.id)).toEqual(reopened.slice(0, 2).map((m) => m.id));
    expect(undo.events.find((e) => e.event.type === "delete_message")!.event).toMatchObject({ message_ids: [at(reopened, 2).id] });
    expect(undo.events.filter((e) => e.event.type === "message")).toEqual([]);
  });

  it("applies the realm's topic-moving, resolving and time-limit rules", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "rules", "x");
    const admins = await t.systemGroupId("role:administrators");
    const nobody = await t.systemGroupId("role:nobody");
    await t.withRealmSettings({ can_move_messages_between_topics_group: admins, can_resolve_topics_group: nobody }, async () => {
      expectError(await patch("othello", id, { topic: "elsewhere" }), 400, "You don't have permission to edit this message");
      expectError(await patch("othello", id, { topic: "✔ rules" }), 400, "You don't have permission to resolve topics in this channel.");
      expectSuccess(await patch("iago", id, { topic: "rules 2" }));
    });
    // The Castle topic's seed messages are older than a minute: a member may not move all of it.
    const fresh = await sendChannelMessage(t, "hamlet", "Denmark", "Castle", "new here");
    await t.withRealmSettings({ move_messages_within_stream_limit_seconds: 60 }, async () => {
      const res = expectError(
        await patch("hamlet", fresh, { topic: "Keep", propagate_mode: "change_all" }),
        400,
        "You only have permission to move the 1/4 most recent messages in this topic.",
        "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      );
      expect(res).toMatchObject({ first_message_id_allowed_to_move: fresh, total_messages_in_topic: 4, total_messages_allowed_to_move: 1 });
      expectError(await patch("hamlet", 5, { topic: "Keep" }), 400, "The time limit for editing this message's topic has passed.");
      // Moderators are not limited.
      expectSuccess(await patch("shiva", 5, { topic: "Castle keep", propagate_mode: "change_one", send_notification_to_new_thread: false }));
    });
    expect((await message(fresh)).subject).toBe("Castle");
  });
});

describe("PATCH /api/v1/messages/{id}: channel moves", () => {
  it("moves a topic into a private channel: non-subscribers lose the messages, subscribers gain rows", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "secret plans", "psst");
    const { result, events } = await t.captureEvents(() =>
      patch("iago", id, { stream_id: 6, propagate_mode: "change_all", send_notification_to_new_thread: false }),
    );
    expectSuccess(result);
    const row = await message(id);
    const coreTeam = await db().selectFrom("streams").selectAll().where("id", "=", 6).executeTakeFirstOrThrow();
    expect(row.recipient_id).toBe(coreTeam.recipient_id);
    expect(JSON.parse(row.edit_history!)[0]).toMatchObject({ user_id: IAGO, prev_stream: 2, stream: 6 });
    // core team: desdemona 9, hamlet 10, iago 11. Denmark's others lose their rows.
    expect((await rows(id)).map((r) => r.user_id)).toEqual(seedSubscribers.coreTeam);
    const deleted = events.find((e) => e.event.type === "delete_message")!;
    expect(deleted.event).toEqual({ type: "delete_message", message_ids: [id], message_type: "stream", stream_id: 2, topic: "secret plans" });
    expect(deleted.users.sort((a, b) => a - b)).toEqual(seedIds("ZOE", "othello", "prospero", "shiva"));
    const update = events.find((e) => e.event.type === "update_message")!;
    expect(update.event).toMatchObject({ stream_id: 2, new_stream_id: 6, orig_subject: "secret plans", propagate_mode: "change_all", message_ids: [id] });
    expect(update.event).not.toHaveProperty("subject");
    expect(events.filter((e) => e.event.type === "update_message").flatMap((e) => e.users)).not.toContain(OTHELLO);
    expectError(await t.get("othello", `/api/v1/messages/${id}`), 400, "Invalid message(s)");
  });

  it("refuses guests, posting restrictions and members when the realm allows only moderators", async () => {
    const guestMessage = await sendChannelMessage(t, "polonius", "Verona", "guest", "hi");
    expectError(await patch("polonius", guestMessage, { stream_id: 5 }), 400, "You don't have permission to move this message");
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "restricted", "x");
    await t.withRealmSettings({ can_move_messages_between_channels_group: await t.systemGroupId("role:moderators") }, async () => {
      expectError(await patch("hamlet", id, { stream_id: 1 }), 400, "You don't have permission to move this message");
    });
    const { stream: verona } = expectSuccess(await t.get("iago", "/api/v1/streams/1"));
    const canSend = (group: unknown) => t.patch("iago", "/api/v1/streams/1", { can_send_message_group: { new: group } });
    expectSuccess(await canSend(await t.systemGroupId("role:administrators")));
    try {
      expectError(await patch("hamlet", id, { stream_id: 1 }), 400, "You do not have permission to post in this channel.");
    } finally {
      expectSuccess(await canSend(verona.can_send_message_group));
    }
    expectSuccess(await patch("hamlet", id, { stream_id: 1, topic: "restricted moved", send_notification_to_old_thread: true }));
    expect(at(await topicMessages("Verona", "restricted moved"), 1).content).toBe(
      "This topic was moved here from #**Denmark>restricted** by @_**King Hamlet|10**.",
    );
    expect(at(await topicMessages("Denmark", "restricted"), 0).content).toBe("This topic was moved to #**Verona>restricted moved** by @_**King Hamlet|10**.");
  });
});

describe("GET /api/v1/messages/{id}/history", () => {
  it("lists the original and every edit, oldest first, with an HTML diff", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "history", "Hello!");
    expectSuccess(await patch("hamlet", id, { content: "Howdy!" }));
    expectSuccess(await patch("hamlet", id, { topic: "history 2" }));
    const body = expectSuccess(await t.get("othello", `/api/v1/messages/${id}/history`));
    const history = body.message_history;
    expect(history).toHaveLength(3);
    expect(history[0]).toEqual({ content: "Hello!", rendered_content: "<p>Hello!</p>", topic: "history", timestamp: history[0].timestamp, user_id: HAMLET });
    expect(history[1]).toMatchObject({
      content: "Howdy!",
      prev_content: "Hello!",
      rendered_content: "<p>Howdy!</p>",
      prev_rendered_content: "<p>Hello!</p>",
      topic: "history",
      content_html_diff: '<div><p><span class="highlight_text_inserted">Howdy!</span><span class="highlight_text_deleted">Hello!</span></p></div>',
    });
    expect(history[2]).toMatchObject({ topic: "history 2", prev_topic: "history", content: "Howdy!", user_id: HAMLET });
    expect(history[2]).not.toHaveProperty("prev_content");
  });

  it("shows the empty topic by its display name unless allowed, and hides history when disabled", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "", "no topic");
    expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}/history`)).message_history[0].topic).toBe("general chat");
    expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}/history`, { allow_empty_topic_name: true })).message_history[0].topic).toBe("");
    await t.withRealmSettings({ message_edit_history_visibility_policy: "none" }, async () => {
      expectError(await t.get("hamlet", `/api/v1/messages/${id}/history`), 400, "Message edit history is disabled in this organization");
    });
    expectError(await t.get("othello", "/api/v1/messages/13/history"), 400, "Invalid message(s)");
    expectError(await t.get("hamlet", "/api/v1/messages/99999/history"), 400, "Invalid message(s)");
    expectError(await t.get("hamlet", `/api/v1/messages/${id}/history`, { allow_empty_topic_name: "yes" }), 400, "allow_empty_topic_name is not valid JSON");
  });
});

describe("PATCH /api/v1/messages/{id}: wildcard mentions in large channels", () => {
  it("refuses an edit adding @**all** for users outside can_mention_many_users_group", async () => {
    // New users join the default channel Verona: 16 subscribers.
    for (let i = 0; i < 6; i++) await makeUser(t, { email: `edit${i}@zulip.com`, full_name: `Edit ${i}` });
    const id = await sendChannelMessage(t, "hamlet", "Verona", "wildcards", "hello");
    expectError(
      await patch("hamlet", id, { content: "hello @**all**" }),
      400,
      "You do not have permission to use channel wildcard mentions in this channel.",
      "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
    );
    expect((await message(id)).content).toBe("hello");
    const mine = await sendChannelMessage(t, "iago", "Verona", "wildcards", "hello");
    expectSuccess(await patch("iago", mine, { content: "hello @**all**" }));
    expect((await rows(mine)).every((r) => (r.flags & 16) === 16)).toBe(true);
  });
});
