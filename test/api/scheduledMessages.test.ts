import { describe, expect, it } from "vitest";
import { at } from "../support/at.js";
import { validateResponse } from "../support/openapi.js";
import { apiCaller, firstStartCredentials, type ServerProcess, useServerProcesses } from "../support/process.js";
import { makeChannel, makeUser } from "../support/factories.js";
import { expectError, expectSuccess, type Params, useTestServer } from "../support/testApp.js";
import { seedChannels, seedUsers } from "../support/seed.js";

const t = useTestServer();
const db = () => t.ctx.db.kysely;

const NOTIFICATION_BOT = 1;
const CORDELIA = seedUsers.cordelia.id;
const HAMLET = seedUsers.hamlet.id;
const IAGO = seedUsers.iago.id;
const OTHELLO = seedUsers.othello.id;
const DENMARK = seedChannels.denmark.id;
const READ = 1;

const now = () => Math.floor(Date.now() / 1000);
const later = (seconds = 3600) => now() + seconds;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function schedule(who: string, params: Params): Promise<number> {
  return expectSuccess(await t.post(who, "/api/v1/scheduled_messages", { scheduled_delivery_timestamp: later(), ...params })).scheduled_message_id;
}
const toDenmark = (who: string, content: string, extra: Params = {}) => schedule(who, { type: "stream", to: DENMARK, topic: "plans", content, ...extra });

async function list(who: string): Promise<any[]> {
  return expectSuccess(await t.get(who, "/api/v1/scheduled_messages")).scheduled_messages;
}
const patch = (who: string | null, id: number, params: Params) => t.patch(who, `/api/v1/scheduled_messages/${id}`, params);
const row = (id: number) => db().selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Moves a scheduled message (and its pending delivery jobs) into the past, then runs due jobs. */
async function deliverNow(id: number, secondsAgo = 1): Promise<void> {
  const at = now() - secondsAgo;
  await db().updateTable("scheduled_messages").set({ scheduled_timestamp: at }).where("id", "=", id).execute();
  await db()
    .updateTable("jobs")
    .set({ run_at: at })
    .where("kind", "=", "scheduled_message")
    .where("status", "=", "pending")
    .where("payload", "=", JSON.stringify({ scheduled_message_id: id }))
    .execute();
  await t.drainJobs();
}

const messagesWith = (content: string) => db().selectFrom("messages").selectAll().where("content", "=", content).execute();
const flagsOf = async (messageId: number, userId: number) =>
  (await db().selectFrom("user_messages").select("flags").where("message_id", "=", messageId).where("user_id", "=", userId).executeTakeFirstOrThrow()).flags;

const createChannel = (name: string, extra: Params = {}) => makeChannel(t, { name, subscribers: [IAGO, HAMLET, OTHELLO], extra });

describe("POST /api/v1/scheduled_messages", () => {
  it("schedules a channel message without sending it and lists it in Zulip's shape", async () => {
    const before = await db()
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    const at = later();
    const id = await schedule("hamlet", { type: "channel", to: DENMARK, topic: "plans", content: "**Meet** at noon", scheduled_delivery_timestamp: at });
    expect((await list("hamlet")).find((m) => m.scheduled_message_id === id)).toEqual({
      scheduled_message_id: id,
      to: DENMARK,
      type: "stream",
      content: "**Meet** at noon",
      rendered_content: "<p><strong>Meet</strong> at noon</p>",
      topic: "plans",
      scheduled_delivery_timestamp: at,
      failed: false,
    });
    const after = await db()
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(await row(id)).toMatchObject({ sending_client: "ParleyTests", delivered: 0, failed: 0, read_by_sender: 0 });
  });

  it("schedules direct messages: 1:1, group (to lists the others) and to oneself", async () => {
    const one = await schedule("hamlet", { type: "direct", to: [OTHELLO], content: "one" });
    const group = await schedule("hamlet", { type: "private", to: [OTHELLO, CORDELIA, OTHELLO], content: "group" });
    const self = await schedule("hamlet", { type: "direct", to: [HAMLET], content: "self" });
    const byId = new Map((await list("hamlet")).map((m) => [m.scheduled_message_id, m]));
    expect(byId.get(one)).toMatchObject({ type: "private", to: [OTHELLO], content: "one" });
    expect(byId.get(one)).not.toHaveProperty("topic");
    expect(byId.get(group)).toMatchObject({ type: "private", to: [CORDELIA, OTHELLO] });
    expect(byId.get(self)).toMatchObject({ type: "private", to: [HAMLET] });
  });

  it("marks it read by its sender by Zulip's rule: explicit value, else a Zulip app and not to oneself", async () => {
    const mobile = { headers: { "User-Agent": "ZulipMobile/27.0 (Android 14)" } };
    const fromApp = expectSuccess(
      await t.post(
        "hamlet",
        "/api/v1/scheduled_messages",
        { type: "stream", to: DENMARK, topic: "r", content: "app", scheduled_delivery_timestamp: later() },
        mobile,
      ),
    );
    const toSelf = expectSuccess(
      await t.post("hamlet", "/api/v1/scheduled_messages", { type: "direct", to: [HAMLET], content: "me", scheduled_delivery_timestamp: later() }, mobile),
    );
    const explicit = await toDenmark("hamlet", "explicit", { read_by_sender: true });
    expect((await row(fromApp.scheduled_message_id)).read_by_sender).toBe(1);
    expect((await row(toSelf.scheduled_message_id)).read_by_sender).toBe(0);
    expect((await row(explicit)).read_by_sender).toBe(1);
  });

  it("rejects a delivery time that is not in the future", async () => {
    const res = await t.post("hamlet", "/api/v1/scheduled_messages", {
      type: "stream",
      to: DENMARK,
      topic: "x",
      content: "late",
      scheduled_delivery_timestamp: now(),
    });
    expectError(res, 400, "Scheduled delivery time must be in the future.");
  });

  it("rejects malformed parameters with Zulip's texts", async () => {
    const base = { type: "stream", to: DENMARK, topic: "x", content: "hi", scheduled_delivery_timestamp: later() };
    const post = (params: Params) => t.post("hamlet", "/api/v1/scheduled_messages", { ...base, ...params });
    expectError(await post({ type: "huddle" }), 400, "Invalid type");
    expectError(await post({ to: [DENMARK] }), 400, "Invalid data type for channel ID");
    expectError(await post({ type: "direct", to: OTHELLO }), 400, "Invalid data type for recipients");
    expectError(await post({ to: "Denmark" }), 400, "to is not valid JSON");
    expectError(await post({ to: '"Denmark"' }), 400, 'to["int"] is not an integer');
    expectError(await post({ scheduled_delivery_timestamp: "soon" }), 400, "scheduled_delivery_timestamp is not valid JSON");
    expectError(await post({ read_by_sender: "yes" }), 400, "read_by_sender is not valid JSON");
    expectError(await post({ scheduled_delivery_timestamp: undefined }), 400, "Missing 'scheduled_delivery_timestamp' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await post({ content: undefined }), 400, "Missing 'content' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post(null, "/api/v1/scheduled_messages", base), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });

  it("checks every rule of sending at scheduling time, with the send path's errors", async () => {
    const base = { type: "stream", to: DENMARK, topic: "x", content: "hi", scheduled_delivery_timestamp: later() };
    const post = (who: string, params: Params) => t.post(who, "/api/v1/scheduled_messages", { ...base, ...params });
    const missing = expectError(await post("hamlet", { to: 999 }), 400, "Channel with ID '999' does not exist", "STREAM_DOES_NOT_EXIST");
    expect(missing.stream_id).toBe(999);
    expectError(await post("hamlet", { type: "direct", to: [999] }), 400, "Invalid user ID 999");
    expectError(await post("hamlet", { type: "direct", to: [] }), 400, "Message must have recipients");
    expectError(await post("hamlet", { topic: undefined }), 400, "Missing topic");
    expectError(await post("hamlet", { content: "  \n " }), 400, "Message must not be empty");
    // What POST /messages refuses, scheduling refuses with the same answer (a guest to a channel it cannot post in).
    const sent = await t.post("polonius", "/api/v1/messages", { type: "stream", to: DENMARK, topic: "x", content: "hi" });
    expect(sent.status).toBe(400);
    const scheduled = await post("polonius", {});
    expect({ status: scheduled.status, body: scheduled.body }).toEqual({ status: sent.status, body: sent.body });
    expect(await list("polonius")).toEqual([]);
  });
});

describe("GET /api/v1/scheduled_messages", () => {
  it("lists only the user's own undelivered messages, soonest first", async () => {
    const late = await schedule("othello", { type: "direct", to: [HAMLET], content: "later", scheduled_delivery_timestamp: later(7200) });
    const soon = await schedule("othello", { type: "direct", to: [HAMLET], content: "sooner", scheduled_delivery_timestamp: later(60) });
    const own = (await list("othello")).map((m) => m.scheduled_message_id);
    expect(own).toEqual([soon, late]);
    expect((await list("hamlet")).map((m) => m.scheduled_message_id)).not.toContain(soon);
    expectError(await t.get(null, "/api/v1/scheduled_messages"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("PATCH /api/v1/scheduled_messages/{id}", () => {
  it("re-renders new content and records the editing client", async () => {
    const id = await toDenmark("hamlet", "first");
    expectSuccess(await patch("hamlet", id, { content: "*second*" }));
    expect(await row(id)).toMatchObject({ content: "*second*", rendered_content: "<p><em>second</em></p>", subject: "plans" });
    expectSuccess(await t.patch("hamlet", `/api/v1/scheduled_messages/${id}`, { content: "third" }, { headers: { "User-Agent": "ZulipMobile/27.0" } }));
    expect((await row(id)).sending_client).toBe("ZulipMobile");
  });

  it("changes the topic of a channel message alone, and ignores a topic for a direct message", async () => {
    const channel = await toDenmark("hamlet", "topic change");
    expectSuccess(await patch("hamlet", channel, { topic: "new plans" }));
    expect((await row(channel)).subject).toBe("new plans");
    const direct = await schedule("hamlet", { type: "direct", to: [OTHELLO], content: "dm" });
    expectSuccess(await patch("hamlet", direct, { topic: "ignored" }));
    expect((await row(direct)).subject).toBe("");
  });

  it("changes the type with `to` (and a topic for channels), and the time", async () => {
    const id = await toDenmark("hamlet", "retarget");
    expectSuccess(await patch("hamlet", id, { type: "direct", to: [OTHELLO, CORDELIA] }));
    let listed = (await list("hamlet")).find((m) => m.scheduled_message_id === id);
    expect(listed).toMatchObject({ type: "private", to: [CORDELIA, OTHELLO] });
    expect(listed).not.toHaveProperty("topic");
    const at = later(5000);
    expectSuccess(await patch("hamlet", id, { type: "channel", to: DENMARK, topic: "back", scheduled_delivery_timestamp: at }));
    listed = (await list("hamlet")).find((m) => m.scheduled_message_id === id);
    expect(listed).toMatchObject({ type: "stream", to: DENMARK, topic: "back", scheduled_delivery_timestamp: at });
    // A new `to` alone keeps the type.
    expectSuccess(await patch("hamlet", id, { to: 1 }));
    expect((await list("hamlet")).find((m) => m.scheduled_message_id === id)).toMatchObject({ type: "stream", to: 1, topic: "back" });
  });

  it("answers every error of the spec", async () => {
    const id = await toDenmark("hamlet", "errors");
    expectError(await patch("hamlet", id, {}), 400, "Nothing to change");
    expectError(await patch("hamlet", id, { type: "direct" }), 400, "Recipient required when updating type of scheduled message.");
    expectError(await patch("hamlet", id, { type: "channel", to: DENMARK }), 400, "Topic required when updating scheduled message type to stream.");
    expectError(await patch("hamlet", id, { scheduled_delivery_timestamp: now() - 5 }), 400, "Scheduled delivery time must be in the future.");
    const missing = expectError(await patch("hamlet", id, { to: 999 }), 400, "Channel with ID '999' does not exist", "STREAM_DOES_NOT_EXIST");
    expect(missing.stream_id).toBe(999);
    expectError(await patch("hamlet", id, { type: "direct", to: [999] }), 400, "Invalid user ID 999");
    expectError(await patch("hamlet", id, { to: [OTHELLO] }), 400, "Invalid data type for channel ID");
    expectError(await patch("hamlet", id, { content: "" }), 400, "Message must not be empty");
    expectError(await patch("hamlet", 999999, { content: "x" }), 404, "Scheduled message does not exist");
    expectError(await patch("othello", id, { content: "x" }), 404, "Scheduled message does not exist");
    expect((await list("hamlet")).find((m) => m.scheduled_message_id === id)).toMatchObject({ type: "stream", to: DENMARK, topic: "plans", content: "errors" });
  });
});

describe("DELETE /api/v1/scheduled_messages/{id}", () => {
  it("deletes the user's own scheduled message, which is then never sent", async () => {
    const id = await toDenmark("hamlet", "never to be sent");
    expectError(await t.delete("othello", `/api/v1/scheduled_messages/${id}`), 404, "Scheduled message does not exist");
    expectSuccess(await t.delete("hamlet", `/api/v1/scheduled_messages/${id}`));
    expect((await list("hamlet")).map((m) => m.scheduled_message_id)).not.toContain(id);
    expectError(await t.delete("hamlet", `/api/v1/scheduled_messages/${id}`), 404, "Scheduled message does not exist");
    await db()
      .updateTable("jobs")
      .set({ run_at: now() - 1 })
      .where("payload", "=", JSON.stringify({ scheduled_message_id: id }))
      .execute();
    await t.drainJobs();
    expect(await messagesWith("never to be sent")).toEqual([]);
  });
});

describe("delivery", () => {
  it("sends the message at its time through the send path, as its sender with its client", async () => {
    const at = now() + 2;
    const id = await schedule("hamlet", {
      type: "stream",
      to: DENMARK,
      topic: "on time",
      content: "delivered @**Othello, the Moor of Venice**",
      scheduled_delivery_timestamp: at,
    });
    let sent: any[] = [];
    for (let i = 0; i < 50 && sent.length === 0; i++) {
      await sleep(200);
      sent = await messagesWith("delivered @**Othello, the Moor of Venice**");
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ sender_id: HAMLET, subject: "on time", sending_client: "ParleyTests" });
    expect(sent[0].date_sent).toBeGreaterThanOrEqual(at);
    expect(await row(id)).toMatchObject({ delivered: 1, delivered_message_id: sent[0].id, failed: 0 });
    expect((await list("hamlet")).map((m) => m.scheduled_message_id)).not.toContain(id);
    // Othello receives it (mentioned, unread) and can read it.
    expect((await flagsOf(sent[0].id, OTHELLO)) & (READ | 8)).toBe(8);
    expect(expectSuccess(await t.get("othello", `/api/v1/messages/${sent[0].id}`)).message).toMatchObject({
      content: expect.stringContaining("user-mention"),
      client: "ParleyTests",
    });
    // A delivered one cannot be edited.
    expectError(await patch("hamlet", id, { content: "too late" }), 400, "Scheduled message was already sent");
  });

  it("honours read_by_sender and reaches every participant of a group direct message", async () => {
    const read = await schedule("hamlet", { type: "direct", to: [OTHELLO, CORDELIA], content: "group read", read_by_sender: true });
    const unread = await toDenmark("hamlet", "channel unread", { read_by_sender: false });
    await deliverNow(read);
    await deliverNow(unread);
    const group = at(await messagesWith("group read"), 0);
    const rows = await db().selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", group.id).orderBy("user_id").execute();
    expect(rows.map((r) => r.user_id)).toEqual([CORDELIA, HAMLET, OTHELLO]);
    expect(rows.find((r) => r.user_id === HAMLET)!.flags & READ).toBe(READ);
    const channel = at(await messagesWith("channel unread"), 0);
    expect((await flagsOf(channel.id, HAMLET)) & READ).toBe(0);
  });

  it("sends nothing early and nothing twice when the time is edited", async () => {
    const id = await schedule("hamlet", { type: "direct", to: [OTHELLO], content: "moved time", scheduled_delivery_timestamp: now() + 2 });
    expectSuccess(await patch("hamlet", id, { scheduled_delivery_timestamp: later() }));
    await sleep(3000);
    await t.drainJobs();
    expect(await messagesWith("moved time")).toEqual([]);
    expect(await row(id)).toMatchObject({ delivered: 0, failed: 0 });
    // Every job of the message made due at once: one delivery.
    await deliverNow(id);
    await db()
      .updateTable("jobs")
      .set({ status: "pending", run_at: now() - 1 })
      .where("payload", "=", JSON.stringify({ scheduled_message_id: id }))
      .execute();
    await t.drainJobs();
    expect(await messagesWith("moved time")).toHaveLength(1);
  });

  it("marks a message failed when its channel was archived, tells the sender, and sends it after a fix with a new time", async () => {
    const channelId = await createChannel("launch plans");
    const id = await schedule("hamlet", { type: "stream", to: channelId, topic: "go", content: "launch at dawn" });
    expectSuccess(await t.delete("iago", `/api/v1/streams/${channelId}`));
    const at = now() - 1;
    const { events } = await t.captureEvents(() => deliverNow(id));

    expect(await messagesWith("launch at dawn")).toEqual([]);
    expect(await row(id)).toMatchObject({ delivered: 0, failed: 1, failure_message: "Not authorized to send to channel 'launch plans'" });
    expect((await list("hamlet")).find((m) => m.scheduled_message_id === id)).toMatchObject({ failed: true });
    const update = events.find((e) => e.event.type === "scheduled_messages");
    expect(update).toEqual({
      event: { type: "scheduled_messages", op: "update", scheduled_message: expect.objectContaining({ scheduled_message_id: id, failed: true }) },
      users: [HAMLET],
    });
    // The Notification Bot's direct message, Zulip's text.
    const notice = await db().selectFrom("messages").selectAll().where("sender_id", "=", NOTIFICATION_BOT).orderBy("id", "desc").executeTakeFirstOrThrow();
    const when = new Date(at * 1000)
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d{3}Z$/, "+00:00");
    expect(notice.content).toBe(
      `The message you scheduled for <time:${when}>  was not sent because of the following error:\n\n> Not authorized to send to channel 'launch plans'\n\n[View scheduled messages](#scheduled)`,
    );
    expect(await db().selectFrom("user_messages").select("user_id").where("message_id", "=", notice.id).orderBy("user_id").execute()).toEqual([
      { user_id: NOTIFICATION_BOT },
      { user_id: HAMLET },
    ]);

    // A failed message needs a new time; with the channel back and a new time, it is sent.
    expectError(await patch("hamlet", id, { content: "launch at dawn" }), 400, "Scheduled delivery time must be in the future.");
    expectSuccess(await t.patch("iago", `/api/v1/streams/${channelId}`, { is_archived: false }));
    expectSuccess(await patch("hamlet", id, { scheduled_delivery_timestamp: later(600) }));
    expect(await row(id)).toMatchObject({ failed: 0, failure_message: null });
    expect((await list("hamlet")).find((m) => m.scheduled_message_id === id)).toMatchObject({ failed: false });
    await deliverNow(id);
    expect(await messagesWith("launch at dawn")).toHaveLength(1);
    expect(await row(id)).toMatchObject({ delivered: 1, failed: 0 });
  });

  it("fails, with the reason, when the sender lost access to a private channel", async () => {
    const channelId = await createChannel("secret plans", { invite_only: true });
    const id = await schedule("hamlet", { type: "stream", to: channelId, topic: "x", content: "whispered" });
    expectSuccess(await t.delete("iago", "/api/v1/users/me/subscriptions", { subscriptions: ["secret plans"], principals: [HAMLET] }));
    await deliverNow(id);
    expect(await messagesWith("whispered")).toEqual([]);
    // The send path's answer for a channel the sender cannot see.
    expect(await row(id)).toMatchObject({ failed: 1, failure_message: `Channel with ID '${channelId}' does not exist` });
  });

  it("fails a message more than 10 minutes late (Zulip's late cutoff)", async () => {
    const id = await toDenmark("hamlet", "stale");
    await deliverNow(id, 11 * 60);
    expect(await messagesWith("stale")).toEqual([]);
    expect(await row(id)).toMatchObject({ failed: 1, failure_message: "Message could not be sent at the scheduled time." });
  });

  it("fails without notice when the sender was deactivated", async () => {
    const { id: userId } = await makeUser(t, { email: "rosencrantz@zulip.com", full_name: "Rosencrantz" });
    const id = await schedule("rosencrantz@zulip.com", { type: "direct", to: [HAMLET], content: "from the departed" });
    expectSuccess(await t.delete("iago", `/api/v1/users/${userId}`));
    const bot = await db()
      .selectFrom("messages")
      .select((eb) => eb.fn.max("id").as("max"))
      .where("sender_id", "=", NOTIFICATION_BOT)
      .executeTakeFirst();
    const { events } = await t.captureEvents(() => deliverNow(id));
    expect(await row(id)).toMatchObject({ failed: 1, failure_message: "Account is deactivated" });
    expect(events.filter((e) => e.event.type === "scheduled_messages")).toEqual([]);
    const botAfter = await db()
      .selectFrom("messages")
      .select((eb) => eb.fn.max("id").as("max"))
      .where("sender_id", "=", NOTIFICATION_BOT)
      .executeTakeFirst();
    expect(botAfter?.max).toEqual(bot?.max);
  });
});

describe("scheduled_messages events", () => {
  it("tells the sender's queues of add, update and remove, in the OpenAPI shapes", async () => {
    const queue = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["scheduled_messages"]) }));
    const other = expectSuccess(await t.post("othello", "/api/v1/register", { event_types: JSON.stringify(["scheduled_messages"]) }));
    const at = later();
    const id = await schedule("hamlet", { type: "direct", to: [OTHELLO], content: "evented", scheduled_delivery_timestamp: at });
    expectSuccess(await patch("hamlet", id, { content: "evented again" }));
    expectSuccess(await t.delete("hamlet", `/api/v1/scheduled_messages/${id}`));
    const delivered = await toDenmark("hamlet", "delivered with an event");
    await deliverNow(delivered);

    const polled = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: "-1", dont_block: "true" }));
    const events = polled.events.map(({ id: _id, ...e }: any) => e);
    expect(events).toEqual([
      {
        type: "scheduled_messages",
        op: "add",
        scheduled_messages: [
          {
            scheduled_message_id: id,
            to: [OTHELLO],
            type: "private",
            content: "evented",
            rendered_content: "<p>evented</p>",
            scheduled_delivery_timestamp: at,
            failed: false,
          },
        ],
      },
      {
        type: "scheduled_messages",
        op: "update",
        scheduled_message: {
          scheduled_message_id: id,
          to: [OTHELLO],
          type: "private",
          content: "evented again",
          rendered_content: "<p>evented again</p>",
          scheduled_delivery_timestamp: at,
          failed: false,
        },
      },
      { type: "scheduled_messages", op: "remove", scheduled_message_id: id },
      {
        type: "scheduled_messages",
        op: "add",
        scheduled_messages: [expect.objectContaining({ scheduled_message_id: delivered, type: "stream", topic: "plans" })],
      },
      { type: "scheduled_messages", op: "remove", scheduled_message_id: delivered },
    ]);
    const others = expectSuccess(await t.get("othello", "/api/v1/events", { queue_id: other.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(others.events).toEqual([]);
  });
});

// A real server process: a message scheduled before a shutdown and due while the server is down
// is sent when it starts again.
describe("across a restart", () => {
  const servers = useServerProcesses();

  it("sends a message that came due while the server was stopped", async () => {
    const env = await servers.freshEnv();
    let server: ServerProcess = await servers.start(env);
    const api = apiCaller(() => server.baseUrl, await firstStartCredentials(server));
    const call = async (method: string, path: string, params: Record<string, string> = {}) => {
      const { status, body } = await api(method, path, params);
      validateResponse(method, `/api/v1${path}`, status, body);
      return body;
    };
    const me = (await call("GET", "/users/me")).user_id as number;
    const at = now() + 4;
    const scheduled = await call("POST", "/scheduled_messages", {
      type: "direct",
      to: JSON.stringify([me]),
      content: "written before the restart",
      scheduled_delivery_timestamp: String(at),
    });
    expect(scheduled.result).toBe("success");

    expect(await server.stop()).toBe(0);
    while (now() <= at) await sleep(250);
    const restartedAt = now();
    server = await servers.start(env);

    let found: any[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      const res = await call("GET", "/messages", {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: JSON.stringify([{ operator: "dm", operand: [me] }]),
      });
      found = res.messages.filter((m: any) => m.content === "<p>written before the restart</p>");
      if (found.length === 0) await sleep(200);
    }
    expect(found).toHaveLength(1);
    // Sent by the restarted server, not before the shutdown.
    expect(found[0].timestamp).toBeGreaterThanOrEqual(restartedAt);
    expect((await call("GET", "/scheduled_messages")).scheduled_messages).toEqual([]);
  }, 90_000);
});
