import { readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer({ uploads: { maxFileSizeMib: 1, unclaimedDays: 21 } });

const b64 = (s: string) => Buffer.from(s).toString("base64");

async function tus(who: string | null, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Response> {
  const all: Record<string, string> = { "Tus-Resumable": "1.0.0", ...headers };
  if (who !== null) all.Authorization = await t.authHeader(who);
  if (body) all["Content-Type"] = "application/offset+octet-stream";
  return fetch(t.baseUrl + path, { method, headers: all, body: body ? new Uint8Array(body) : undefined });
}

async function create(who: string, size: number, name = "big.txt", type = "text/plain"): Promise<string> {
  const res = await tus(who, "POST", "/api/v1/tus", { "Upload-Length": String(size), "Upload-Metadata": `filename ${b64(name)},filetype ${b64(type)}` });
  expect(res.status).toBe(201);
  const location = res.headers.get("location")!;
  expect(location).toMatch(/^\/api\/v1\/tus\/[0-9a-f]+$/);
  return location;
}

/** A PATCH whose connection drops after `sent` bytes of a body that claims to be `claimed` long. */
async function droppedPatch(who: string, location: string, offset: number, data: Buffer, claimed: number): Promise<void> {
  const url = new URL(t.baseUrl + location);
  await new Promise<void>((resolve) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "PATCH",
      agent: false,
      headers: {
        "Tus-Resumable": "1.0.0",
        Authorization: "",
        "Upload-Offset": String(offset),
        "Content-Type": "application/offset+octet-stream",
        "Content-Length": String(claimed),
      },
    });
    void t.authHeader(who).then((auth) => {
      req.setHeader("Authorization", auth);
      req.on("error", () => resolve());
      req.on("response", (res) => {
        res.resume();
        req.destroy();
        resolve();
      });
      req.write(data, () => setTimeout(() => (req.destroy(), resolve()), 300));
    });
  });
}

async function headOffset(who: string, location: string): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const res = await tus(who, "HEAD", location);
    expect(res.status).toBe(200);
    const offset = Number(res.headers.get("upload-offset"));
    if (offset > 0) return offset;
    await new Promise((r) => setTimeout(r, 50));
  }
  return 0;
}

describe("tus resumable uploads at /api/v1/tus", () => {
  it("creates, is interrupted, resumes from the stored offset and finishes as an attachment", async () => {
    const data = Buffer.alloc(300_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 251;
    const location = await create("hamlet", data.length, "resumed file.bin", "application/octet-stream");
    // Someone else cannot see or touch the upload.
    expect((await tus("othello", "HEAD", location)).status).toBe(404);

    await droppedPatch("hamlet", location, 0, data.subarray(0, 120_000), data.length);
    const offset = await headOffset("hamlet", location);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(120_000);

    // A PATCH at the wrong offset is refused (409).
    expect((await tus("hamlet", "PATCH", location, { "Upload-Offset": String(offset + 1) }, data.subarray(offset + 1))).status).toBe(409);
    const done = await tus("hamlet", "PATCH", location, { "Upload-Offset": String(offset) }, data.subarray(offset));
    expect(done.status).toBe(200);
    const body = await done.json();
    const hamlet = await t.user("hamlet");
    expect(body.filename).toBe("resumed file.bin");
    expect(body.url).toMatch(new RegExp(`^/user_uploads/${hamlet.realm_id}/[0-9a-f]{2}/[A-Za-z0-9_-]{24}/resumed-file\\.bin$`));

    const served = await fetch(t.baseUrl + body.url, { headers: { Authorization: await t.authHeader("hamlet") } });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(data)).toBe(true);
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/attachments")).attachments;
    expect(listed.find((a: any) => `/user_uploads/${a.path_id}` === body.url)).toMatchObject({ name: "resumed file.bin", size: data.length });
    // The staging copy is gone once the upload became an attachment (HEAD now answers from the
    // finished upload's record, below).
    const id = location.split("/").pop()!;
    expect(readdirSync(path.join(t.config.dataDir, "uploads", "tus")).filter((f) => f.startsWith(id))).toEqual([]);
  });

  it("answers a finished upload's HEAD and final PATCH again, for a client whose last answer was lost", async () => {
    const data = Buffer.from("the last answer went missing");
    const location = await create("hamlet", data.length, "lost answer.txt");
    const attachments = async () => expectSuccess(await t.get("hamlet", "/api/v1/attachments")).attachments.length;
    const before = await attachments();
    // The final PATCH reaches the server, whose answer the client never reads.
    const first = await tus("hamlet", "PATCH", location, { "Upload-Offset": "0" }, data);
    expect(first.status).toBe(200);
    const answer = await first.json();
    // The client asks where the upload stands: complete.
    const head = await tus("hamlet", "HEAD", location);
    expect(head.status).toBe(200);
    expect([head.headers.get("upload-offset"), head.headers.get("upload-length")]).toEqual([String(data.length), String(data.length)]);
    expect(head.headers.get("cache-control")).toBe("no-store");
    // The final (empty) PATCH again: the same link, and the file was stored once.
    const again = await tus("hamlet", "PATCH", location, { "Upload-Offset": String(data.length), "Content-Type": "application/offset+octet-stream" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(answer);
    expect(await attachments()).toBe(before + 1);
    expect((await tus("hamlet", "PATCH", location, { "Upload-Offset": "0" }, data)).status).toBe(409);
    // Nobody else learns anything about it; without credentials it is refused.
    expect((await tus("othello", "HEAD", location)).status).toBe(404);
    const stranger = await tus("othello", "PATCH", location, { "Upload-Offset": String(data.length), "Content-Type": "application/offset+octet-stream" });
    expect(stranger.status).toBe(404);
    expect(await stranger.text()).not.toContain("user_uploads");
    expect((await tus(null, "HEAD", location)).status).toBe(401);
  });

  it("terminates an unfinished upload", async () => {
    const location = await create("hamlet", 1000);
    expect((await tus("hamlet", "PATCH", location, { "Upload-Offset": "0" }, Buffer.alloc(10))).status).toBe(204);
    expect((await tus("othello", "DELETE", location)).status).toBe(404);
    expect((await tus("hamlet", "DELETE", location)).status).toBe(204);
    expect((await tus("hamlet", "HEAD", location)).status).toBe(404);
  });

  it("refuses missing credentials, deferred lengths and files over the limit with Zulip's messages", async () => {
    const anonymous = await tus(null, "POST", "/api/v1/tus", { "Upload-Length": "10" });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: "Unauthenticated upload" });
    const deferred = await tus("hamlet", "POST", "/api/v1/tus", { "Upload-Defer-Length": "1" });
    expect(deferred.status).toBe(411);
    expect(await deferred.json()).toEqual({ message: "SizeIsDeferred is not supported" });
    const big = await tus("hamlet", "POST", "/api/v1/tus", { "Upload-Length": String(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ message: "Uploaded file is larger than the allowed limit of 1 MiB" });
    const badKey = await fetch(`${t.baseUrl}/api/v1/tus`, {
      method: "POST",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Length": "10", Authorization: "Basic " + b64("hamlet@zulip.com:" + "x".repeat(32)) },
    });
    expect(badKey.status).toBe(401);
    // Files are never served from the tus endpoint.
    expect((await tus("hamlet", "GET", "/api/v1/tus/abc")).status).toBe(404);
  });

  it("finishes a small upload in the creation request itself (creation-with-upload)", async () => {
    const res = await tus("hamlet", "POST", "/api/v1/tus", { "Upload-Length": "5", "Upload-Metadata": `filename ${b64("hi.txt")}` }, Buffer.from("hello"));
    expect(res.status).toBe(200);
    const { url, filename } = await res.json();
    expect(filename).toBe("hi.txt");
    const served = await fetch(t.baseUrl + url, { headers: { Authorization: await t.authHeader("hamlet") } });
    expect(await served.text()).toBe("hello");
    expect(served.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });
});
