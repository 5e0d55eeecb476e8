import { generateKeyPairSync, type KeyObject, verify } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

// Stand-ins for Apple's and Google's push services, checking what Parley signs and sends.
const dir = mkdtempSync(path.join(os.tmpdir(), "parley-push-"));
const apnsKeys = generateKeyPairSync("ec", { namedCurve: "P-256" });
const fcmKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
writeFileSync(path.join(dir, "AuthKey.p8"), apnsKeys.privateKey.export({ type: "pkcs8", format: "pem" }));

interface Seen {
  headers: Record<string, unknown>;
  body: any;
}
const apnsSeen: Seen[] = [];
const apns = http2.createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c));
  req.on("end", () => {
    apnsSeen.push({ headers: { ...req.headers }, body: JSON.parse(body) });
    const gone = String(req.headers[":path"]).includes("dead");
    res.writeHead(gone ? 410 : 200, { "content-type": "application/json" });
    res.end(gone ? JSON.stringify({ reason: "Unregistered" }) : "");
  });
});
const apnsSessions: http2.ServerHttp2Session[] = [];
apns.on("session", (session) => apnsSessions.push(session));
await new Promise<void>((resolve) => apns.listen(0, "127.0.0.1", resolve));

const fcmSeen: Seen[] = [];
const tokenRequests: URLSearchParams[] = [];
const fcm = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c));
  req.on("end", () => {
    if (req.url === "/token") {
      tokenRequests.push(new URLSearchParams(body));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: "fcm-access-token", expires_in: 3600, token_type: "Bearer" }));
      return;
    }
    fcmSeen.push({ headers: { ...req.headers, path: req.url }, body: JSON.parse(body) });
    const gone = body.includes("gone-token");
    res.writeHead(gone ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(gone ? { error: { status: "NOT_FOUND", details: [{ errorCode: "UNREGISTERED" }] } } : { name: "projects/parley-test/messages/1" }));
  });
});
await new Promise<void>((resolve) => fcm.listen(0, "127.0.0.1", resolve));
const fcmUrl = `http://127.0.0.1:${(fcm.address() as AddressInfo).port}`;
writeFileSync(
  path.join(dir, "service-account.json"),
  JSON.stringify({
    type: "service_account",
    project_id: "parley-test",
    client_email: "push@parley-test.iam.gserviceaccount.com",
    private_key: fcmKeys.privateKey.export({ type: "pkcs8", format: "pem" }),
    token_uri: `${fcmUrl}/token`,
  }),
);

afterAll(async () => {
  for (const session of apnsSessions) session.destroy();
  await new Promise((resolve) => apns.close(resolve));
  fcm.closeAllConnections();
  await new Promise((resolve) => fcm.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const t = useTestServer({
  apns: { endpoint: `http://127.0.0.1:${(apns.address() as AddressInfo).port}`, keyId: "KEY123", teamId: "TEAM456", keyFile: path.join(dir, "AuthKey.p8") },
  fcm: { endpoint: fcmUrl, credentialsFile: path.join(dir, "service-account.json") },
});

function verifyJwt(jwt: string, key: KeyObject, ieee: boolean): { header: any; claims: any } {
  const parts = jwt.split(".");
  expect(parts).toHaveLength(3);
  const [h, c, s] = parts as [string, string, string];
  const ok = verify("sha256", Buffer.from(`${h}.${c}`), ieee ? { key, dsaEncoding: "ieee-p1363" } : key, Buffer.from(s, "base64url"));
  expect(ok).toBe(true);
  return { header: JSON.parse(Buffer.from(h, "base64url").toString()), claims: JSON.parse(Buffer.from(c, "base64url").toString()) };
}

describe("push straight to APNs and FCM", () => {
  it("signs and sends to both services for an offline user", async () => {
    const apnsToken = "0a1b2c3d".repeat(8);
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/apns_device_token", { token: apnsToken, appid: "org.zulip.Zulip" }));
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/android_gcm_reg_id", { token: "fcm-device-hamlet" }));
    const hamlet = await t.user("hamlet");
    const messageId = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [hamlet.id], content: "straight to the phone" })).id;
    await t.drainJobs();

    expect(apnsSeen).toHaveLength(1);
    const apnsRequest = at(apnsSeen, 0);
    expect(apnsRequest.headers[":path"]).toBe(`/3/device/${apnsToken}`);
    expect(apnsRequest.headers["apns-topic"]).toBe("org.zulip.Zulip");
    expect(apnsRequest.headers["apns-push-type"]).toBe("alert");
    const jwt = String(apnsRequest.headers.authorization).replace(/^bearer /, "");
    const { header, claims } = verifyJwt(jwt, apnsKeys.publicKey, true);
    expect(header).toEqual({ alg: "ES256", kid: "KEY123" });
    expect(claims.iss).toBe("TEAM456");
    expect(apnsRequest.body).toMatchObject({
      aps: { alert: { title: "Othello, the Moor of Venice", body: "straight to the phone" }, sound: "default" },
      zulip: { message_ids: [messageId], sender_id: expect.any(Number) },
    });

    expect(tokenRequests).toHaveLength(1);
    expect(at(tokenRequests, 0).get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const assertion = verifyJwt(at(tokenRequests, 0).get("assertion")!, fcmKeys.publicKey, false);
    expect(assertion.claims).toMatchObject({
      iss: "push@parley-test.iam.gserviceaccount.com",
      scope: "https://www.googleapis.com/auth/firebase.messaging",
      aud: `${fcmUrl}/token`,
    });
    expect(fcmSeen).toHaveLength(1);
    expect(at(fcmSeen, 0).headers.path).toBe("/v1/projects/parley-test/messages:send");
    expect(at(fcmSeen, 0).headers.authorization).toBe("Bearer fcm-access-token");
    expect(at(fcmSeen, 0).body.message).toMatchObject({
      token: "fcm-device-hamlet",
      android: { priority: "HIGH" },
      data: { event: "message", zulip_message_id: String(messageId), content: "straight to the phone", recipient_type: "private" },
    });
  });

  it("unregisters devices the services report as gone", async () => {
    const cordelia = await t.user("cordelia");
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/apns_device_token", { token: "dead".repeat(16), appid: "org.zulip.Zulip" }));
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "gone-token" }));
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [cordelia.id], content: "hello?" }));
    await t.drainJobs();
    expectError(await t.delete("cordelia", "/api/v1/users/me/apns_device_token", { token: "dead".repeat(16) }), 400, "Token does not exist");
    expectError(await t.delete("cordelia", "/api/v1/users/me/android_gcm_reg_id", { token: "gone-token" }), 400, "Token does not exist");
  });

  it("sends every APNs notification over one kept HTTP/2 connection", async () => {
    const iago = await t.user("iago");
    expectSuccess(await t.post("iago", "/api/v1/users/me/apns_device_token", { token: "0f1e2d3c".repeat(8), appid: "org.zulip.Zulip" }));
    const before = apnsSeen.length;
    for (const content of ["one", "two", "three"]) {
      expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [iago.id], content }));
      await t.drainJobs();
    }
    expect(apnsSeen.length - before).toBe(3);
    expect(apnsSessions).toHaveLength(1);
  });
});
