import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/process.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

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
  it("registers and removes APNs and FCM tokens, with the bouncer too", async () => {
    received.length = 0;
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "c0ffee" + "ab".repeat(29), appid: "org.zulip.Zulip" }));
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-token-cordelia" }));
    await t.drainJobs();
    const registered = received.filter((r) => r.path === "/api/v1/remotes/push/register").map((r) => Object.fromEntries(new URLSearchParams(r.body)));
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
    expect(received[0].authorization).toBe("Basic " + Buffer.from("org-id:org-key").toString("base64"));

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

describe("push notifications", () => {
  it("pushes a direct message to an offline user, not to an online one, and withdraws it once read", async () => {
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

    // Online (an event queue open): nothing is pushed.
    const queue = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: ["message"] })).queue_id;
    received.length = 0;
    await sendDm("othello", "hamlet", "now you are online");
    await t.drainJobs();
    expect(notifies()).toEqual([]);
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
