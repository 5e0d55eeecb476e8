import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { multiProcessEnv, NATS_URL, POSTGRES_URL } from "./support/multiProcess.js";
import { apiCaller, firstStartCredentials, useServerProcesses } from "./support/process.js";

/**
 * Push notifications with several processes (PARLEY_BUS_URL): whether a receiver is on Zulip is
 * decided over every process's queues, not only those of the process that runs the push job, and
 * the queue going away in its own process still sends what it held (Zulip's missedmessage_hook).
 */
const servers = useServerProcesses();

/** A stand-in for Zulip's push notification service, recording the notifications it receives. */
const notified: Array<{ user_id: number; gcm_payload: { zulip_message_id: number } }> = [];
const bouncer = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/api/v1/remotes/push/notify") notified.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ result: "success", msg: "" }));
  });
});
await new Promise<void>((resolve) => bouncer.listen(0, "127.0.0.1", resolve));
afterAll(async () => {
  bouncer.closeAllConnections();
  await new Promise((resolve) => bouncer.close(resolve));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!NATS_URL || !POSTGRES_URL)("push notifications across processes", () => {
  it("holds a push while the receiver's queue lives in another process, and sends it when that queue goes", async () => {
    const env = {
      ...(await multiProcessEnv(servers)),
      PARLEY_PUSH_BOUNCER_URL: `http://127.0.0.1:${(bouncer.address() as AddressInfo).port}`,
      PARLEY_PUSH_ORG_ID: "org-id",
      PARLEY_PUSH_ORG_KEY: "org-key",
      PARLEY_OUTGOING_HTTP_ALLOW_HOSTS: "127.0.0.1",
    };
    const a = await servers.start(env);
    const owner = await firstStartCredentials(a);
    const b = await servers.start(env);
    const asOwner = apiCaller(() => a.baseUrl, owner);
    const created = await asOwner("POST", "/users", { email: "phone@parley.test", password: "phone-pass-1", full_name: "Phone User" });
    expect(created.status).toBe(200);
    const key = await fetch(`${a.baseUrl}/api/v1/fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: "phone@parley.test", password: "phone-pass-1" }),
    });
    const receiver = { email: "phone@parley.test", apiKey: ((await key.json()) as { api_key: string }).api_key };
    const onA = apiCaller(() => a.baseUrl, receiver);
    const onB = apiCaller(() => b.baseUrl, receiver);
    expect((await onA("POST", "/users/me/android_gcm_reg_id", { token: "fcm-token-phone" })).status).toBe(200);
    expect((await onA("PATCH", "/settings", { enable_online_push_notifications: "false" })).status).toBe(200);

    // The web app open on B: its queue lives there, and it reports activity.
    const queueId: string = (await onB("POST", "/register", {})).body.queue_id;
    expect((await onB("POST", "/users/me/presence", { status: "active", new_user_input: "true" })).status).toBe(200);

    // Messages sent through A; whichever process runs their push jobs asks B too.
    const sent: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await asOwner("POST", "/messages", { type: "direct", to: JSON.stringify([created.body.user_id]), content: `ping ${i}` });
      expect(res.status).toBe(200);
      sent.push(res.body.id);
    }
    await sleep(3000);
    expect(notified).toEqual([]);

    // The tab closes (DELETE /events through A, forwarded to B): what B's queue held is pushed.
    expect((await onA("DELETE", "/events", { queue_id: queueId })).status).toBe(200);
    for (let i = 0; i < 100 && notified.length < sent.length; i++) await sleep(100);
    expect(notified.map((n) => n.gcm_payload.zulip_message_id).sort((x, y) => x - y)).toEqual(sent);
    expect(new Set(notified.map((n) => n.user_id))).toEqual(new Set([created.body.user_id]));
  }, 120_000);
});
