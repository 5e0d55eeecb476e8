import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AwsClient } from "aws4fetch";
// s3rver: a local S3-compatible server (Signature V4 checked), standing in for a bucket.
import S3rver from "s3rver";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/process.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

const port = await freePort();
const directory = mkdtempSync(path.join(os.tmpdir(), "parley-s3-"));
const s3server = new S3rver({ port, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "parley-uploads", configs: [] }] });
await s3server.run();
afterAll(async () => {
  await s3server.close();
  rmSync(directory, { recursive: true, force: true });
});

const s3 = { endpoint: `http://127.0.0.1:${port}`, bucket: "parley-uploads", region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
const t = useTestServer({ uploads: { maxFileSizeMib: 1, unclaimedDays: 21, s3 } });
const bucketClient = new AwsClient({ accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, region: s3.region, service: "s3", retries: 0 });

/** What the bucket holds under `key` (read with the bucket's own credentials), or null. */
async function inBucket(key: string): Promise<Buffer | null> {
  const res = await bucketClient.fetch(`${s3.endpoint}/${s3.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function upload(who: string, name: string, data: Buffer, type = "text/plain") {
  const form = new FormData();
  form.append("filename", new Blob([new Uint8Array(data)], { type }), name);
  const res = await fetch(`${t.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: await t.authHeader(who) }, body: form });
  return expectSuccess({ status: res.status, headers: res.headers, body: await res.json() });
}

const fetchFile = async (who: string, url: string) => fetch(t.baseUrl + url, { headers: { Authorization: await t.authHeader(who) } });

describe("uploads stored in an S3-compatible bucket", () => {
  it("stores the file in the bucket, serves it with the same access rules and deletes it", async () => {
    const { url } = await upload("hamlet", "bucket.txt", Buffer.from("in the bucket"));
    const pathId = url.slice("/user_uploads/".length);
    expect((await inBucket(pathId))?.toString()).toBe("in the bucket");
    const served = await fetchFile("hamlet", url);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("in the bucket");
    expect((await fetchFile("othello", url)).status).toBe(403);

    const id = expectSuccess(await t.get("hamlet", "/api/v1/attachments")).attachments.find((a: any) => a.path_id === pathId).id;
    expectSuccess(await t.delete("hamlet", `/api/v1/attachments/${id}`));
    await t.drainJobs();
    expect(await inBucket(pathId)).toBe(null);
    expect((await fetchFile("hamlet", url)).status).toBe(404);
  });

  it("makes thumbnails in the bucket", async () => {
    const png = await sharp({ create: { width: 900, height: 600, channels: 3, background: "#aa3300" } })
      .png()
      .toBuffer();
    const { url } = await upload("hamlet", "red.png", png, "image/png");
    await t.drainJobs();
    const pathId = url.slice("/user_uploads/".length);
    const thumbnail = await inBucket(`thumbnail/${pathId}/840x560.webp`);
    expect(thumbnail).not.toBe(null);
    expect((await sharp(thumbnail!).metadata()).width).toBe(840);
    const served = await fetchFile("hamlet", `/user_uploads/thumbnail/${pathId}/840x560.webp`);
    expect(served.status).toBe(200);
  });

  it("moves a finished tus upload into the bucket", async () => {
    const auth = await t.authHeader("hamlet");
    const created = await fetch(`${t.baseUrl}/api/v1/tus`, {
      method: "POST",
      headers: {
        Authorization: auth,
        "Tus-Resumable": "1.0.0",
        "Upload-Length": "11",
        "Upload-Metadata": `filename ${Buffer.from("tus.txt").toString("base64")}`,
      },
    });
    expect(created.status).toBe(201);
    const done = await fetch(t.baseUrl + created.headers.get("location")!, {
      method: "PATCH",
      headers: { Authorization: auth, "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      body: "resumed s3!",
    });
    expect(done.status).toBe(200);
    const { url } = await done.json();
    expect((await inBucket(url.slice("/user_uploads/".length)))?.toString()).toBe("resumed s3!");
  });
});
