import { describe, expect, it } from "vitest";
import { doAddReaction } from "../../src/actions/reactions.js";
import { transaction } from "../../src/appContext.js";
import { MessageFlag } from "../../src/models/messageFlags.js";
import { seedIds, seedSubscribers } from "../support/seed.js";
import { addRealmEmoji, archiveChannel, makeChannel, sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

async function messageId(text: string): Promise<number> {
  const row = await t.ctx.db.kysely.selectFrom("messages").select("id").where("content", "=", text).executeTakeFirstOrThrow();
  return row.id;
}

async function reactionsOn(id: number, viewer = "hamlet") {
  return expectSuccess(await t.get(viewer, `/api/v1/messages/${id}`)).message.reactions;
}

const url = (id: number | string) => `/api/v1/messages/${id}/reactions`;

describe("POST /messages/{message_id}/reactions", () => {
  it("adds a Unicode emoji by name, shows it in the message and tells the message's readers", async () => {
    const id = await messageId("Testing, one two three.");
    const { result, events } = await t.captureEvents(() => t.post("othello", url(id), { emoji_name: "smile" }));
    expectSuccess(result);
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toEqual({
      type: "reaction",
      op: "add",
      user_id: 12,
      user: { user_id: 12, email: "othello@zulip.com", full_name: "Othello, the Moor of Venice" },
      message_id: id,
      emoji_name: "smile",
      emoji_code: "1f642",
      reaction_type: "unicode_emoji",
    });
    // Verona: every subscriber, the guest included (subscribed).
    expect(at(events, 0).users).toEqual(expect.arrayContaining(seedIds("aaron", "cordelia", "hamlet", "iago", "othello", "polonius")));
    expect(await reactionsOn(id)).toEqual([{ emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji", user_id: 12 }]);
  });

  it("accepts an explicit code and type", async () => {
    const id = await messageId("Test received, loud and clear.");
    expectSuccess(await t.post("hamlet", url(id), { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" }));
    expect(await reactionsOn(id)).toEqual([{ emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji", user_id: 10 }]);
  });

  it("rejects a duplicate reaction with REACTION_ALREADY_EXISTS, also under another name of the same emoji", async () => {
    const id = await messageId("Good morning, everyone.");
    expectSuccess(await t.post("hamlet", url(id), { emoji_name: "+1" }));
    expectError(await t.post("hamlet", url(id), { emoji_name: "+1" }), 400, "Reaction already exists.", "REACTION_ALREADY_EXISTS");
    expectError(await t.post("hamlet", url(id), { emoji_name: "thumbs_up" }), 400, "Reaction already exists.", "REACTION_ALREADY_EXISTS");
  });

  it("refuses a duplicate that slips past the early check (unique key)", async () => {
    const id = await messageId("Good morning, everyone.");
    const hamlet = await t.user("hamlet");
    const message = await t.ctx.db.kysely.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const emoji = { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" };
    await expect(transaction(t.ctx, (tx) => doAddReaction(tx, hamlet, message, emoji))).rejects.toThrow("Reaction already exists.");
  });

  it("counts another name of an existing reaction's emoji as a vote under the first name", async () => {
    const id = await messageId("Good morning, everyone.");
    const { events } = await t.captureEvents(async () => expectSuccess(await t.post("iago", url(id), { emoji_name: "thumbs_up" })));
    expect(at(events, 0).event).toMatchObject({ emoji_name: "+1", emoji_code: "1f44d", user_id: 11 });
    expect((await reactionsOn(id)).map((r: any) => [r.emoji_name, r.user_id])).toEqual([
      ["+1", 10],
      ["+1", 11],
    ]);
  });

  it("adds Zulip's extra emoji and custom emoji by name", async () => {
    const id = await messageId("Welcome to Verona! This is the test topic.");
    const emojiId = await addRealmEmoji(t, "green_tick");
    expectSuccess(await t.post("cordelia", url(id), { emoji_name: "zulip" }));
    expectSuccess(await t.post("cordelia", url(id), { emoji_name: "green_tick" }));
    expect(await reactionsOn(id)).toEqual([
      { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji", user_id: 8 },
      { emoji_name: "green_tick", emoji_code: String(emojiId), reaction_type: "realm_emoji", user_id: 8 },
    ]);
  });

  it("names the extra emoji's type service_extra_emoji, as our API spec says, and takes Zulip's name as an alias", async () => {
    const id = await messageId("Welcome to Verona! This is the test topic.");
    expectSuccess(await t.post("hamlet", url(id), { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" }));
    expectError(
      await t.post("hamlet", url(id), { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }),
      400,
      "Reaction already exists.",
      "REACTION_ALREADY_EXISTS",
    );
    const { message } = expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`));
    expect(message.reactions.filter((r: any) => r.user_id === 10)).toEqual([
      { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji", user_id: 10 },
    ]);
    expectSuccess(await t.delete("hamlet", url(id), { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" }));
  });

  it("refuses a deactivated custom emoji for new reactions but accepts votes and removal", async () => {
    const id = await messageId("Welcome to Verona! This is the test topic.");
    const emojiId = await addRealmEmoji(t, "old_logo");
    expectSuccess(await t.post("hamlet", url(id), { emoji_name: "old_logo" }));
    expectSuccess(await t.delete("iago", "/api/v1/realm/emoji/old_logo"));
    expectError(await t.post("othello", url(id), { emoji_name: "old_logo" }), 400, "Emoji 'old_logo' does not exist");
    const other = await messageId("Testing, one two three.");
    expectError(
      await t.post("othello", url(other), { emoji_name: "old_logo", emoji_code: String(emojiId), reaction_type: "realm_emoji" }),
      400,
      "This custom emoji has been deactivated.",
    );
    expectSuccess(await t.post("othello", url(id), { emoji_name: "old_logo", emoji_code: String(emojiId), reaction_type: "realm_emoji" }));
    expectSuccess(await t.delete("hamlet", url(id), { emoji_code: String(emojiId), reaction_type: "realm_emoji" }));
  });

  it("gives a non-subscriber who reacts a historical row so later events reach them", async () => {
    const id = await messageId("Who keeps watch on the platform tonight?");
    expectSuccess(await t.post("cordelia", url(id), { emoji_name: "tada" }));
    const row = await t.ctx.db.kysely
      .selectFrom("user_messages")
      .select("flags")
      .where("user_id", "=", 8)
      .where("message_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.flags).toBe(MessageFlag.READ | MessageFlag.HISTORICAL);
    const { events } = await t.captureEvents(async () => expectSuccess(await t.post("hamlet", url(id), { emoji_name: "tada" })));
    expect(at(events, 0).users).toContain(8);
    expect(at(events, 0).users).not.toContain(13); // polonius, a guest, is not subscribed to Denmark
  });

  it("sends events about protected-history private channel messages only to subscribers who received them", async () => {
    const id = await messageId("Only the core team can read this channel.");
    const { events } = await t.captureEvents(async () => expectSuccess(await t.post("hamlet", url(id), { emoji_name: "heart" })));
    expect([...at(events, 0).users].sort((a, b) => a - b)).toEqual(seedSubscribers.coreTeam);
  });

  it("sends events about direct messages to their participants only", async () => {
    const id = await messageId("Of course, what is it?");
    const { events } = await t.captureEvents(async () => expectSuccess(await t.post("hamlet", url(id), { emoji_name: "smile" })));
    expect([...at(events, 0).users].sort((a, b) => a - b)).toEqual(seedIds("hamlet", "othello"));
  });

  it("answers Invalid message(s) for messages the user may not read", async () => {
    const coreTeam = await messageId("Agreed: plans for the release go here.");
    const dm = await messageId("To be, or not to be: that is the question.");
    const denmark = await messageId("Horatio and Marcellus, I believe.");
    const { events } = await t.captureEvents(async () => {
      expectError(await t.post("cordelia", url(coreTeam), { emoji_name: "smile" }), 400, "Invalid message(s)");
      expectError(await t.post("cordelia", url(dm), { emoji_name: "smile" }), 400, "Invalid message(s)");
      expectError(await t.post("polonius", url(denmark), { emoji_name: "smile" }), 400, "Invalid message(s)");
      expectError(await t.post("hamlet", url(999999), { emoji_name: "smile" }), 400, "Invalid message(s)");
    });
    expect(events).toEqual([]);
  });

  it("refuses reactions in archived channels", async () => {
    const archived = await makeChannel(t, { name: "reactions archived", subscribers: ["iago", "othello"] });
    const id = await sendChannelMessage(t, "iago", archived, "archive", "Bring an umbrella & a good coat.");
    await archiveChannel(t, archived);
    expectError(await t.post("othello", url(id), { emoji_name: "smile" }), 400, "Invalid message(s)");
  });

  it("validates every parameter with Zulip's texts", async () => {
    const id = await messageId("Fair is foul, and foul is fair: rain again.");
    const cases: Array<[Record<string, string>, string]> = [
      [{ emoji_name: "notanemoji" }, "Emoji 'notanemoji' does not exist"],
      [{ emoji_name: "smile", emoji_code: "1f419", reaction_type: "unicode_emoji" }, "Invalid emoji name."],
      [{ emoji_name: "smile", emoji_code: "zzzz", reaction_type: "unicode_emoji" }, "Invalid emoji code."],
      [{ emoji_name: "smile", emoji_code: "1f642", reaction_type: "bogus" }, "Invalid emoji type."],
      [{ emoji_name: "smile", emoji_code: "99999", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "smile", emoji_code: "x1", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "zulip", emoji_code: "other", reaction_type: "zulip_extra_emoji" }, "Invalid emoji code."],
      [{ emoji_name: "smile", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }, "Invalid emoji name."],
      [{ emoji_name: "bad\u0000name" }, "emoji_name contains NULL (0x00) characters."],
    ];
    for (const [params, msg] of cases) expectError(await t.post("othello", url(id), params), 400, msg);
    const tick = await t.ctx.db.kysely.selectFrom("realm_emoji").select("id").where("name", "=", "green_tick").executeTakeFirstOrThrow();
    expectError(
      await t.post("othello", url(id), { emoji_name: "smile", emoji_code: String(tick.id), reaction_type: "realm_emoji" }),
      400,
      "Invalid custom emoji name.",
    );
    expectError(await t.post("othello", url(id), {}), 400, "Missing 'emoji_name' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post("othello", url("abc"), { emoji_name: "smile" }), 400, "message_id is not an integer");
    expect(await reactionsOn(id, "othello")).toEqual([]);
  });

  it("requires authentication", async () => {
    expectError(await t.post(null, url(1), { emoji_name: "smile" }), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("DELETE /messages/{message_id}/reactions", () => {
  it("removes the user's own reaction by name and tells the message's readers", async () => {
    const id = await messageId("Something is rotten in the state of Denmark.");
    expectSuccess(await t.post("hamlet", url(id), { emoji_name: "octopus" }));
    expectSuccess(await t.post("othello", url(id), { emoji_name: "octopus" }));
    const { result, events } = await t.captureEvents(() => t.delete("hamlet", url(id), { emoji_name: "octopus" }));
    expectSuccess(result);
    expect(events.map((e) => e.event)).toEqual([
      {
        type: "reaction",
        op: "remove",
        user_id: 10,
        user: { user_id: 10, email: "hamlet@zulip.com", full_name: "King Hamlet" },
        message_id: id,
        emoji_name: "octopus",
        emoji_code: "1f419",
        reaction_type: "unicode_emoji",
      },
    ]);
    expect(at(events, 0).users).toEqual(expect.arrayContaining(seedIds("hamlet", "iago", "othello")));
    expect(await reactionsOn(id)).toEqual([{ emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji", user_id: 12 }]);
  });

  it("removes by code, with unicode_emoji as the default type", async () => {
    const id = await messageId("Something is rotten in the state of Denmark.");
    expectSuccess(await t.delete("othello", url(id), { emoji_code: "1f419" }));
    expect(await reactionsOn(id)).toEqual([]);
  });

  it("answers REACTION_DOES_NOT_EXIST for a reaction the user does not have", async () => {
    const id = await messageId("Something is rotten in the state of Denmark.");
    expectError(await t.delete("hamlet", url(id), { emoji_name: "octopus" }), 400, "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST");
    expectSuccess(await t.post("othello", url(id), { emoji_name: "zulip" }));
    expectError(await t.delete("othello", url(id), { emoji_name: "zulip" }), 400, "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST");
    expectSuccess(await t.delete("othello", url(id), { emoji_name: "zulip", reaction_type: "zulip_extra_emoji" }));
  });

  it("validates its parameters and the user's access", async () => {
    const id = await messageId("Something is rotten in the state of Denmark.");
    expectError(await t.delete("hamlet", url(id), {}), 400, "At least one of the following arguments must be present: emoji_name, emoji_code");
    expectError(await t.delete("hamlet", url(id), { emoji_name: "notanemoji" }), 400, "Emoji 'notanemoji' does not exist");
    const coreTeam = await messageId("Only the core team can read this channel.");
    expectError(await t.delete("cordelia", url(coreTeam), { emoji_name: "heart" }), 400, "Invalid message(s)");
    expectError(await t.delete(null, url(id), { emoji_name: "heart" }), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});
