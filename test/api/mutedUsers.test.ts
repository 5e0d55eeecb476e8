import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** Muted users and read receipts (which muting also shapes). */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const id = async (who: string) => (await t.user(who)).id;
async function send(who: string, content: string, to = "Denmark"): Promise<number> {
  return await sendChannelMessage(t, who, to, "muting", content);
}
async function flagsOf(who: string, messageId: number): Promise<string[]> {
  return expectSuccess(await t.get(who, `/api/v1/messages/${messageId}`)).message.flags;
}

describe("muted users", () => {
  it("mark the muted user's messages read, now and later, and tell the muter's clients", async () => {
    const othello = await id("othello");
    const before = await send("othello", "before muting @**King Hamlet**");
    const reg = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["muted_users", "update_message_flags"]) }));
    expectSuccess(await t.post("hamlet", `/api/v1/users/me/muted_users/${othello}`));
    expect(await flagsOf("hamlet", before)).toContain("read");
    const after = await send("othello", "after muting @**King Hamlet**");
    expect(await flagsOf("hamlet", after)).toEqual(expect.arrayContaining(["read", "mentioned"]));
    expect(await flagsOf("iago", after)).not.toContain("read");
    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(events.find((e: any) => e.type === "update_message_flags")).toMatchObject({
      op: "add",
      flag: "read",
      all: false,
      messages: expect.arrayContaining([before]),
    });
    const mutedEvent = events.find((e: any) => e.type === "muted_users");
    expect(mutedEvent.muted_users).toEqual([{ id: othello, timestamp: expect.any(Number) }]);
    const state = expectSuccess(
      await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["muted_users", "message"]), event_types: JSON.stringify(["message"]) }),
    );
    expect(state.muted_users).toEqual(mutedEvent.muted_users);
    expectError(await t.post("hamlet", `/api/v1/users/me/muted_users/${othello}`), 400, "User already muted");

    expectSuccess(await t.delete("hamlet", `/api/v1/users/me/muted_users/${othello}`));
    expect(await flagsOf("hamlet", await send("othello", "after unmuting"))).not.toContain("read");
    expectError(await t.delete("hamlet", `/api/v1/users/me/muted_users/${othello}`), 400, "User is not muted");
  });

  it("refuse oneself and unknown users", async () => {
    expectError(await t.post("hamlet", `/api/v1/users/me/muted_users/${await id("hamlet")}`), 400, "Cannot mute self");
    expectError(await t.post("hamlet", "/api/v1/users/me/muted_users/999999"), 400, "No such user");
    expect(
      expectSuccess(
        await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["muted_users"]), event_types: JSON.stringify(["message"]) }),
      ).muted_users,
    ).toEqual([]);
  });
});

describe("GET /messages/{message_id}/read_receipts", () => {
  it("works in the development organization, which has read receipts on as Zulip's has", async () => {
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["realm"]) }));
    expect(state.realm_enable_read_receipts).toBe(true);
    const messageId = await send("iago", "receipts on");
    expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${messageId}/read_receipts`)).user_ids).toEqual([]);
  });

  it("is refused while the organization has read receipts off", async () => {
    expectSuccess(await t.patch("iago", "/api/v1/realm", { enable_read_receipts: "false" }));
    const messageId = await send("iago", "receipts off");
    expectError(await t.get("hamlet", `/api/v1/messages/${messageId}/read_receipts`), 400, "Read receipts are disabled in this organization.");
  });

  it("lists who read the message: never its sender, nor users who keep receipts private, nor mutes either way", async () => {
    expectSuccess(await t.patch("iago", "/api/v1/realm", { enable_read_receipts: "true" }));
    const messageId = await send("iago", "who read this?");
    for (const who of ["hamlet", "othello", "prospero", "shiva", "iago"]) {
      expectSuccess(await t.post(who, "/api/v1/messages/flags", { messages: JSON.stringify([messageId]), op: "add", flag: "read" }));
    }
    expectSuccess(await t.patch("prospero", "/api/v1/settings", { send_read_receipts: "false" }));
    const [hamlet, othello, shiva] = [await id("hamlet"), await id("othello"), await id("shiva")];
    expect(expectSuccess(await t.get("desdemona", `/api/v1/messages/${messageId}/read_receipts`)).user_ids).toEqual(
      [hamlet, othello, shiva].sort((a, b) => a - b),
    );
    // Hamlet muted Othello, and Shiva muted Hamlet: neither appears to Hamlet.
    expectSuccess(await t.post("hamlet", `/api/v1/users/me/muted_users/${othello}`));
    expectSuccess(await t.post("shiva", `/api/v1/users/me/muted_users/${hamlet}`));
    expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${messageId}/read_receipts`)).user_ids).toEqual([hamlet]);
    const secret = await send("iago", "core team only", "core team");
    expectError(await t.get("othello", `/api/v1/messages/${secret}/read_receipts`), 400, "Invalid message(s)");
  });
});
