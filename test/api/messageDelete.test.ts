import { describe, expect, it } from "vitest";
import { archiveChannel, makeChannel, sendChannelMessage } from "../support/factories.js";
import { seedSubscribers, seedUsers } from "../support/seed.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();
const db = () => t.ctx.db.kysely;

const HAMLET = seedUsers.hamlet.id;
const IAGO = seedUsers.iago.id;
const OTHELLO = seedUsers.othello.id;

async function exists(id: number): Promise<boolean> {
  return (await db().selectFrom("messages").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
}

const del = (who: string | null, id: number) => t.delete(who, `/api/v1/messages/${id}`);

describe("DELETE /api/v1/messages/{id}", () => {
  it("lets the sender delete a recent message with everything attached, and tells its readers", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "oops", "wrong channel");
    expectSuccess(await t.post("othello", `/api/v1/messages/${id}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await t.post("hamlet", "/api/v1/submessage", { message_id: id, msg_type: "widget", content: "{}" }));
    const { result, events } = await t.captureEvents(() => del("hamlet", id));
    expectSuccess(result);
    expect(await exists(id)).toBe(false);
    for (const table of ["user_messages", "reactions", "submessages"] as const) {
      expect(await db().selectFrom(table).select("message_id").where("message_id", "=", id).execute()).toEqual([]);
    }
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toEqual({ type: "delete_message", message_ids: [id], message_type: "stream", stream_id: 2, topic: "oops" });
    expect(at(events, 0).users.sort((a, b) => a - b)).toEqual(seedSubscribers.denmark);
    expectError(await t.get("hamlet", `/api/v1/messages/${id}`), 400, "Invalid message(s)");
    expectError(await del("hamlet", id), 400, "Invalid message(s)");
  });

  it("deletes a direct message for its participants", async () => {
    const sent = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: JSON.stringify([HAMLET]), content: "delete me" }));
    const { result, events } = await t.captureEvents(() => del("othello", sent.id));
    expectSuccess(result);
    expect(at(events, 0).event).toEqual({ type: "delete_message", message_ids: [sent.id], message_type: "private" });
    expect(at(events, 0).users.sort()).toEqual([HAMLET, OTHELLO]);
  });

  it("lets administrators delete anyone's message at any time, and tells them too", async () => {
    const { result, events } = await t.captureEvents(() => del("iago", 8)); // prospero's, in Scotland, old
    expectSuccess(result);
    expect(await exists(8)).toBe(false);
    expect(at(events, 0).users).toContain(IAGO);
  });

  it("keeps the channel's first_message_id on its oldest remaining message", async () => {
    // Rome has one seed message (12).
    const later = await sendChannelMessage(t, "ZOE", "Rome", "roads", "and back");
    expectSuccess(await del("iago", 12));
    expect((await db().selectFrom("streams").select("first_message_id").where("name", "=", "Rome").executeTakeFirstOrThrow()).first_message_id).toBe(later);
    expectSuccess(await del("iago", later));
    expect((await db().selectFrom("streams").select("first_message_id").where("name", "=", "Rome").executeTakeFirstOrThrow()).first_message_id).toBeNull();
  });

  it("refuses other users' messages, old messages and realms that forbid it, changing nothing", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Denmark", "keep", "keep me");
    expectError(await del("othello", id), 400, "You don't have permission to delete this message");
    expectError(await del("shiva", id), 400, "You don't have permission to delete this message");
    // Seed message 5 (hamlet's) is older than the 10-minute limit.
    expectError(await del("hamlet", 5), 400, "The time limit for deleting this message has passed");
    await t.withRealmSettings({ can_delete_own_message_group: await t.systemGroupId("role:administrators") }, async () => {
      expectError(await del("hamlet", id), 400, "You don't have permission to delete this message");
    });
    await t.withRealmSettings({ can_delete_any_message_group: await t.systemGroupId("role:moderators") }, async () => {
      expectSuccess(await del("shiva", 6));
    });
    expect(await exists(id)).toBe(true);
    expect(await exists(5)).toBe(true);
  });

  it("treats unreadable messages, archived channels and bad ids as invalid", async () => {
    expectError(await del("othello", 13), 400, "Invalid message(s)"); // core team
    expectError(await del("iago", 16), 400, "Invalid message(s)"); // othello → hamlet
    expectError(await del("hamlet", 99999), 400, "Invalid message(s)");
    expectError(await t.delete("hamlet", "/api/v1/messages/abc"), 400, "message_id is not an integer");
    const archived = await makeChannel(t, { name: "delete archived", subscribers: ["iago", "hamlet"] });
    const id = await sendChannelMessage(t, "hamlet", archived, "archive", "x");
    await archiveChannel(t, archived);
    expectError(await del("hamlet", id), 400, "Invalid message(s)");
    expectError(await del("iago", id), 400, "Invalid message(s)");
    expect(await exists(id)).toBe(true);
    expectError(await del(null, id), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});
