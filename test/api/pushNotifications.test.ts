import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/process.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";

/** A stand-in for Zulip's push notification service (bouncer), recording what it receives. */
interface BouncerRequest {
  path: string;
  authorization: string;
  contentType: string;
  body: string;
}
const received: BouncerRequest[] = [];
const port = await freePort();
const bouncer = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({
      path: req.url ?? "",
      authorization: req.headers.authorization ?? "",
      contentType: req.headers["content-type"] ?? "",
      body: Buffer.concat(chunks).toString("utf8"),
    });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ result: "success", msg: "" }));
  });
});
await new Promise<void>((resolve) => bouncer.listen(port, "127.0.0.1", resolve));
afterAll(async () => {
  bouncer.closeAllConnections();
  await new Promise((resolve) => bouncer.close(resolve));
});

const t = useTestServer({
  pushBouncer: { url: `http://127.0.0.1:${(bouncer.address() as AddressInfo).port}`, orgId: "org-id", orgKey: "org-key" },
  outgoing: { webhookTimeoutSeconds: 5, allowHosts: ["127.0.0.1"] },
});

const notifies = () => received.filter((r) => r.path === "/api/v1/remotes/push/notify").map((r) => JSON.parse(r.body));

async function sendDm(from: string, to: string, content: string): Promise<number> {
  return expectSuccess(await t.post(from, "/api/v1/messages", { type: "direct", to: [(await t.user(to)).id], content })).id;
}

describe("device tokens", () => {
  it("tells clients, before login and at register, that push notifications are configured", async () => {
    expect(expectSuccess(await t.get(null, "/api/v1/server_settings")).push_notifications_enabled).toBe(true);
    const state = expectSuccess(await t.post("cordelia", "/api/v1/register", { fetch_event_types: ["realm"] }));
    expect(state.realm_push_notifications_enabled).toBe(true);
  });

  it("registers and removes APNs and FCM tokens, with the bouncer too", async () => {
    received.length = 0;
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "c0ffee" + "ab".repeat(29), appid: "org.zulip.Zulip" }));
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-cordelia" }));
    await t.drainJobs();
    // Each registration is its own background job; jobs may run side by side, so order by token kind.
    const registered = received
      .filter((r) => r.path === "/api/v1/remotes/push/register")
      .map((r) => Object.fromEntries(new URLSearchParams(r.body)))
      .sort((a, b) => String(a.token_kind).localeCompare(String(b.token_kind)));
    const cordelia = await t.user("cordelia");
    expect(registered).toEqual([
      expect.objectContaining({
        user_id: String(cordelia.id),
        token: "c0ffee" + "ab".repeat(29),
        token_kind: "1",
        ios_app_id: "org.zulip.Zulip",
        user_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
      expect.objectContaining({ user_id: String(cordelia.id), token: "fcm-token-cordelia", token_kind: "2" }),
    ]);
    for (const request of received) expect(request.authorization).toBe(basicAuth("org-id", "org-key"));

    expectSuccess(await t.delete("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-cordelia" }));
    await t.drainJobs();
    expect(received.at(-1)?.path).toBe("/api/v1/remotes/push/unregister");
    expectError(await t.delete("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-cordelia" }), 400, "Token does not exist");
  });

  it("refuses bad tokens and app ids with Zulip's errors", async () => {
    expectError(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "", appid: "org.zulip.Zulip" }), 400, "Empty or invalid length token");
    expectError(
      await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "x".repeat(4097), appid: "org.zulip.Zulip" }),
      400,
      "Empty or invalid length token",
    );
    expectError(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "not-hex!", appid: "org.zulip.Zulip" }), 400, "Invalid APNS token");
    expectError(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "abcd", appid: "bad app id!" }), 400, "Invalid app ID");
    expectError(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "abcd" }), 400, "Missing 'appid' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "" }), 400, "Empty or invalid length token");
    expectError(await t.delete("cordelia", "/api/v1/users/me/apns_device_token", { token: "abcdefgh" }), 400, "Token does not exist");
  });

  it("accepts the APNs tokens Zulip 10.2 decodes as base64, leniently, and refuses the others", async () => {
    const register = (token: string) => t.post("cordelia", "/api/v1/users/me/apns_device_token", { token, appid: "org.zulip.Zulip" });
    // Zulip's API example; hex; padded; characters outside the alphabet are skipped; padding ends the token.
    for (const token of ["apple-tokenbb", "c0ffee00c0ffee00", "c0ffee==", "ab!cd", "ab==whatever"]) {
      expectSuccess(await register(token));
      expectSuccess(await t.delete("cordelia", "/api/v1/users/me/apns_device_token", { token }));
    }
    // Incomplete quads (1 or 2-3 characters left over, unpadded) and non-ASCII text.
    for (const token of ["a", "abcde", "abc", "c0ffee", "tökn"]) {
      expectError(await register(token), 400, "Invalid APNS token");
      expectError(await t.delete("cordelia", "/api/v1/users/me/apns_device_token", { token }), 400, "Invalid APNS token");
    }
  });
});

/** A web-app-style client: an event queue for every event type, and presence reported active. */
async function openWebApp(who: string, params: Record<string, unknown> = {}): Promise<string> {
  const queueId = expectSuccess(await t.post(who, "/api/v1/register", { apply_markdown: true, ...params })).queue_id;
  expectSuccess(await t.post(who, "/api/v1/users/me/presence", { status: "active", new_user_input: true }));
  return queueId;
}

/** Runs due jobs until `done` holds (a queue's idle timeout is left to pass on its own), for up to `ms`. */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) {
    await t.drainJobs();
    if (!done()) await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("push notifications while another client is open (Zulip's receiver_is_off_zulip and enable_online_push_notifications)", () => {
  it("with online pushes off, waits until the user's last queue taking messages is gone, and pushes what it held unacknowledged", async () => {
    expectSuccess(await t.post("shiva", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-shiva" }));
    expectSuccess(await t.patch("shiva", "/api/v1/settings", { enable_online_push_notifications: false }));
    const state = expectSuccess(await t.post("shiva", "/api/v1/register", { fetch_event_types: JSON.stringify(["user_settings"]) }));
    expect(state.user_settings.enable_online_push_notifications).toBe(false);
    expectSuccess(await t.delete("shiva", "/api/v1/events", { queue_id: state.queue_id }));
    await t.drainJobs();

    const queue = await openWebApp("shiva");
    // A queue that takes no messages does not count.
    const typingOnly = expectSuccess(await t.post("shiva", "/api/v1/register", { event_types: JSON.stringify(["typing"]) })).queue_id;
    received.length = 0;
    const seen = await sendDm("othello", "shiva", "the web app shows this one");
    await t.drainJobs();
    expect(notifies()).toEqual([]);
    // The web app acknowledges it; a second message stays unacknowledged in the queue.
    const events = expectSuccess(await t.get("shiva", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: true })).events;
    expect(events.map((e: any) => e.message?.id)).toContain(seen);
    const lastSeen = Math.max(...events.map((e: any) => e.id));
    const unseen = await sendDm("othello", "shiva", "the tab was closed before this one was shown");
    await t.drainJobs();
    expect(notifies()).toEqual([]);
    // Closing the tab (DELETE /events of the last queue taking messages) makes the user idle.
    expectSuccess(await t.get("shiva", "/api/v1/events", { queue_id: queue, last_event_id: lastSeen, dont_block: true }));
    expectSuccess(await t.delete("shiva", "/api/v1/events", { queue_id: queue }));
    await t.drainJobs();
    expect(notifies().map((n) => n.gcm_payload.zulip_message_id)).toEqual([unseen]);
    // Idle now (the typing-only queue does not count): pushed at once.
    received.length = 0;
    const later = await sendDm("othello", "shiva", "you are away");
    await t.drainJobs();
    expect(notifies().map((n) => n.gcm_payload.zulip_message_id)).toEqual([later]);
    expectSuccess(await t.delete("shiva", "/api/v1/events", { queue_id: typingOnly }));
  }, 60_000);

  it("with online pushes off, pushes at once to a user whose presence is idle though a queue is open", async () => {
    expectSuccess(await t.post("ZOE", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-zoe" }));
    expectSuccess(await t.patch("ZOE", "/api/v1/settings", { enable_online_push_notifications: false }));
    // A queue, but no presence reported: idle by presence (Zulip's presence_idle_user_ids).
    const queue = expectSuccess(await t.post("ZOE", "/api/v1/register", {})).queue_id;
    await t.drainJobs();
    received.length = 0;
    const id = await sendDm("othello", "ZOE", "are you at your desk?");
    await t.drainJobs();
    expect(notifies().map((n) => n.gcm_payload.zulip_message_id)).toEqual([id]);
    // Not pushed a second time when the queue goes.
    received.length = 0;
    expectSuccess(await t.delete("ZOE", "/api/v1/events", { queue_id: queue }));
    await t.drainJobs();
    expect(notifies()).toEqual([]);
  });

  it("honours idle_queue_timeout: a queue unpolled that long is gone, and its unacknowledged messages are pushed", async () => {
    expectSuccess(await t.post("aaron", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-aaron" }));
    expectSuccess(await t.patch("aaron", "/api/v1/settings", { enable_online_push_notifications: false }));
    const queue = await openWebApp("aaron", { idle_queue_timeout: 2 });
    // A long-poll waits on the queue: it is in use.
    const pending = expectSuccess(await t.get("aaron", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: true })).events;
    const poll = t.get("aaron", "/api/v1/events", { queue_id: queue, last_event_id: Math.max(-1, ...pending.map((e: any) => e.id)) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.drainJobs();
    received.length = 0;
    const id = await sendDm("othello", "aaron", "sent while the phone's queue was polled");
    const answered = expectSuccess(await poll).events;
    expect(answered.map((e: any) => e.message?.id)).toContain(id);
    await t.drainJobs();
    expect(notifies()).toEqual([]);
    // No poll acknowledges it; two seconds later the queue is collected and the message pushed.
    await until(() => notifies().length > 0);
    expect(notifies().map((n) => n.gcm_payload.zulip_message_id)).toEqual([id]);
    expectError(
      await t.get("aaron", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: true }),
      400,
      `Bad event queue ID: ${queue}`,
      "BAD_EVENT_QUEUE_ID",
    );
  }, 60_000);

  it("refuses an invalid idle_queue_timeout", async () => {
    for (const value of ["0", "-5", '"desktop"', "1.5"]) {
      expectError(await t.post("aaron", "/api/v1/register", { idle_queue_timeout: value }), 400, "Invalid idle_queue_timeout");
    }
    const queue = expectSuccess(await t.post("aaron", "/api/v1/register", { idle_queue_timeout: '"mobile"' })).queue_id;
    expectSuccess(await t.delete("aaron", "/api/v1/events", { queue_id: queue }));
  });
});

describe("push notifications", () => {
  it("pushes a direct message to an offline user, and to one with the web app open (online pushes on), and withdraws it once read", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-hamlet" }));
    await t.drainJobs();
    received.length = 0;
    const messageId = await sendDm("othello", "hamlet", "Are you **there**?");
    await t.drainJobs();
    const [push] = notifies();
    const hamlet = await t.user("hamlet");
    const othello = await t.user("othello");
    expect(push).toMatchObject({
      user_id: hamlet.id,
      android_devices: ["fcm-token-hamlet"],
      apple_devices: [],
      gcm_options: { priority: "high" },
      gcm_payload: {
        event: "message",
        zulip_message_id: messageId,
        recipient_type: "private",
        sender_id: othello.id,
        sender_email: othello.email,
        content: "Are you there?",
        content_truncated: false,
        realm_id: hamlet.realm_id,
      },
      apns_payload: { alert: { title: othello.full_name, body: "Are you there?" } },
    });

    // Reading it withdraws the notification.
    received.length = 0;
    expectSuccess(await t.post("hamlet", "/api/v1/messages/flags", { messages: [messageId], op: "add", flag: "read" }));
    await t.drainJobs();
    expect(notifies()).toEqual([expect.objectContaining({ gcm_payload: expect.objectContaining({ event: "remove", zulip_message_ids: String(messageId) }) })]);

    // The web app open and active: enable_online_push_notifications (on by default) pushes anyway.
    const queue = await openWebApp("hamlet");
    received.length = 0;
    const online = await sendDm("othello", "hamlet", "now you are online");
    await t.drainJobs();
    expect(notifies().map((n) => n.gcm_payload.zulip_message_id)).toEqual([online]);
    expectSuccess(await t.delete("hamlet", "/api/v1/events", { queue_id: queue }));
  });

  it("pushes mentions and followed topics in channels, nothing else, and honours the settings", async () => {
    received.length = 0;
    await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "plain", content: "no mention here" });
    await t.drainJobs();
    expect(notifies()).toEqual([]);

    const mentionId = expectSuccess(
      await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "plain", content: "hi @**King Hamlet**" }),
    ).id;
    await t.drainJobs();
    expect(notifies()).toEqual([
      expect.objectContaining({
        gcm_payload: expect.objectContaining({ zulip_message_id: mentionId, recipient_type: "stream", stream: "Denmark", topic: "plain" }),
        apns_payload: expect.objectContaining({
          alert: expect.objectContaining({ title: "#Denmark > plain", subtitle: "Othello, the Moor of Venice mentioned you:" }),
        }),
      }),
    ]);

    const denmark = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "Denmark" })).stream_id;
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: denmark, topic: "followed", visibility_policy: 3 }));
    received.length = 0;
    await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "followed", content: "news in a followed topic" });
    await t.drainJobs();
    expect(notifies().map((n) => n.gcm_payload.topic)).toEqual(["followed"]);

    expectSuccess(await t.patch("hamlet", "/api/v1/settings", { enable_offline_push_notifications: false }));
    received.length = 0;
    await sendDm("othello", "hamlet", "muted by settings");
    await t.drainJobs();
    expect(notifies()).toEqual([]);
    expectSuccess(await t.patch("hamlet", "/api/v1/settings", { enable_offline_push_notifications: true }));
  });
});

describe("push notifications to a guest restricted by can_access_all_users_group", () => {
  it("name a channel message's sender he may not access as Zulip's Unknown user (can_access_sender=False)", async () => {
    const prospero = await t.user("prospero");
    const polonius = await t.user("polonius");
    // Prospero shares no channel with the guest Polonius, yet may post to Verona, where Polonius is.
    expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]) }));
    expectSuccess(await t.post("polonius", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-polonius" }));
    expectSuccess(await t.post("polonius", "/api/v1/users/me/apns_device_token", { token: "beef" + "cd".repeat(30), appid: "org.zulip.Zulip" }));
    await t.drainJobs();
    const mention = async () => {
      received.length = 0;
      const id = expectSuccess(
        await t.post("prospero", "/api/v1/messages", { type: "stream", to: "Verona", topic: "from outside", content: "hello @**Polonius**" }),
      ).id;
      await t.drainJobs();
      const pushes = notifies().filter((n) => n.user_id === polonius.id);
      expect(pushes).toHaveLength(1);
      return { id, push: pushes[0] };
    };

    const members = await t.systemGroupId("role:members");
    const { id, push } = await t.withRealmSettings({ can_access_all_users_group: members }, mention);
    const hidden = {
      sender_id: prospero.id,
      sender_email: `user${prospero.id}@localhost`,
      sender_full_name: "Unknown user",
      sender_avatar_url: expect.stringContaining("unknown-user-avatar"),
    };
    expect(push.gcm_payload).toMatchObject({ ...hidden, zulip_message_id: id, recipient_type: "stream", stream: "Verona" });
    expect(push.apns_payload.alert).toEqual({ title: "#Verona > from outside", subtitle: "Unknown user mentioned you:", body: "hello @Polonius" });
    expect(push.apns_payload.custom.zulip).toMatchObject({ ...hidden, message_ids: [id] });
    expect(JSON.stringify(push)).not.toContain("Prospero");
    expect(JSON.stringify(push)).not.toContain("prospero@");

    // Without the restriction the sender is named.
    const open = await mention();
    expect(open.push.gcm_payload).toMatchObject({ sender_full_name: "Prospero from The Tempest", sender_email: prospero.email });
    expect(open.push.apns_payload.alert.subtitle).toBe("Prospero from The Tempest mentioned you:");
  });
});

describe("POST /mobile_push/test_notification", () => {
  it("sends a test notification to the device named, or to all the user's devices", async () => {
    expectSuccess(await t.post("prospero", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-prospero-1" }));
    expectSuccess(await t.post("prospero", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-prospero-2" }));
    await t.drainJobs();
    received.length = 0;
    expectSuccess(await t.post("prospero", "/api/v1/mobile_push/test_notification", { token: "fcm-prospero-2" }));
    const [one] = notifies();
    expect(one.gcm_payload).toMatchObject({ event: "test", realm_name: expect.any(String), user_id: (await t.user("prospero")).id });
    expect(JSON.stringify(one)).toContain("fcm-prospero-2");
    expect(JSON.stringify(one)).not.toContain("fcm-prospero-1");
    received.length = 0;
    expectSuccess(await t.post("prospero", "/api/v1/mobile_push/test_notification"));
    expect(JSON.stringify(notifies())).toContain("fcm-prospero-1");
    expectError(
      await t.post("prospero", "/api/v1/mobile_push/test_notification", { token: "not-mine" }),
      400,
      "Device not recognized",
      "INVALID_PUSH_DEVICE_TOKEN",
    );
  });
});
