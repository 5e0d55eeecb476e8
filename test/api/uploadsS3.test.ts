import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { AwsClient } from "aws4fetch";
// s3rver: a local S3-compatible server (Signature V4 checked), standing in for a bucket.
import S3rver from "s3rver";
import sharp from "sharp";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { LocalBlobStorage } from "../../src/blobs/local.js";
import { S3BlobStorage } from "../../src/blobs/s3.js";
import type { BlobStorage } from "../../src/blobs/storage.js";
import { ExportType } from "../../src/models/realmExport.js";
import { freePort } from "../support/process.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

const port = await freePort();
const directory = mkdtempSync(path.join(os.tmpdir(), "parley-s3-"));
const s3server = new S3rver({ port, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "parley-uploads", configs: [] }] });
await s3server.run();
/** s3rver's built-in credentials, which Parley and the test's own bucket client sign with. */
const credentials = { region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
const bucketClient = new AwsClient({ ...credentials, service: "s3", retries: 0 });

/**
 * The bucket's front door: a plain HTTP proxy to s3rver that logs every request, answers
 * AbortMultipartUpload (which s3rver lacks: it drops the upload's parts) and can fail one part
 * number with a 500, as a bucket that breaks mid-upload. Every other request, signature
 * included, is checked by s3rver.
 *
 * It also passes on s3rver's answer to a write (an object, a part, CompleteMultipartUpload) only
 * once s3rver's file holds every byte, as a bucket answers once the data is stored: s3rver 3.7
 * answers when it has hashed the body, before its file stream has written it, so a read of an
 * object (or a completion reading its parts) right after could come back short on a busy machine.
 */
const requests: Array<{ method: string; query: string }> = [];
let failPart: number | undefined;
const uploadsDirectory = path.join(directory, "parley-uploads", "._S3rver_uploads");
const partSizes = new Map<string, number[]>();
const front = http.createServer((req, res) => {
  const url = new URL(req.url!, "http://bucket");
  requests.push({ method: req.method!, query: url.search });
  const uploadId = url.searchParams.get("uploadId");
  if (req.method === "DELETE" && uploadId) {
    rmSync(path.join(uploadsDirectory, path.basename(uploadId)), { recursive: true, force: true });
    req.resume().on("end", () => res.writeHead(204).end());
    return;
  }
  if (req.method === "PUT" && uploadId && Number(url.searchParams.get("partNumber")) === failPart) {
    req.resume().on("end", () => res.writeHead(500, { "Content-Type": "application/xml" }).end("<Error><Code>InternalError</Code></Error>"));
    return;
  }
  let received = 0;
  req.on("data", (chunk: Buffer) => (received += chunk.length));
  const forwarded = http.request({ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    const stored = answer.statusCode === 200 ? untilStored(req.method!, url, received) : Promise.resolve();
    void stored.then(() => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
  });
  forwarded.on("error", () => res.destroy());
  req.pipe(forwarded);
});

/** Resolves once s3rver's file for the write `method url` of `received` body bytes holds all it should. */
async function untilStored(method: string, url: URL, received: number): Promise<void> {
  const uploadId = url.searchParams.get("uploadId");
  const partNumber = Number(url.searchParams.get("partNumber"));
  if (method === "PUT" && uploadId && partNumber) {
    const sizes = partSizes.get(uploadId) ?? [];
    partSizes.set(uploadId, sizes);
    sizes[partNumber - 1] = received;
    const file = path.join(uploadsDirectory, path.basename(uploadId), String(partNumber));
    await until(async () => existsSync(file) && statSync(file).size === received);
  } else if (method === "PUT" && url.search === "") {
    await until(async () => (await storedSize(url.pathname)) === received);
  } else if (method === "POST" && uploadId) {
    const total = (partSizes.get(uploadId) ?? []).reduce((sum, size) => sum + size, 0);
    partSizes.delete(uploadId);
    await until(async () => (await storedSize(url.pathname)) === total);
  }
}

/** The size s3rver gives for the object at `pathname` (HEAD, straight to s3rver), or -1. */
async function storedSize(pathname: string): Promise<number> {
  const res = await bucketClient.fetch(`http://127.0.0.1:${port}${pathname}`, { method: "HEAD" });
  return res.ok ? Number(res.headers.get("content-length")) : -1;
}

/** Waits until `done` holds, up to 5 s (then the answer goes on and the test shows what it got). */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 500 && !(await done()); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
}

await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
afterAll(async () => {
  await new Promise((resolve) => front.close(resolve));
  await s3server.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Parts of 64 KiB (S3's own minimum is 5 MiB; s3rver has none), so small files take several. */
const PART_SIZE = 64 * 1024;
const s3 = {
  endpoint: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
  bucket: "parley-uploads",
  ...credentials,
  partSize: PART_SIZE,
};
const t = useTestServer({ uploads: { maxFileSizeMib: 1, unclaimedDays: 21, s3 } });
const scratch = mkdtempSync(path.join(os.tmpdir(), "parley-s3-files-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeEach(() => {
  requests.length = 0;
  failPart = undefined;
});

/** The multipart requests the bucket saw, by kind. */
function multipartRequests() {
  const kinds = requests.map(({ method, query }) =>
    query === "?uploads"
      ? "create"
      : query.includes("partNumber=")
        ? `part ${new URLSearchParams(query).get("partNumber")}`
        : query.includes("uploadId=")
          ? `${method === "DELETE" ? "abort" : "complete"}`
          : `${method} object`,
  );
  return kinds.filter((k) => k !== "GET object");
}

/** Random bytes that no part boundary can hide a reordering in. */
const randomData = (size: number) => {
  const data = Buffer.alloc(size);
  for (let i = 0; i < size; i += 32) createHash("sha256").update(String(i)).digest().copy(data, i);
  return data;
};

/** What the bucket holds under `key` (read with the bucket's own credentials), or null. */
async function inBucket(key: string): Promise<Buffer | null> {
  const res = await bucketClient.fetch(`${s3.endpoint}/${s3.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function upload(who: string, name: string, data: Buffer, type = "text/plain") {
  return expectSuccess(await t.upload(who, "/api/v1/user_uploads", [{ field: "filename", data, type, filename: name }]));
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

  it("stores a file larger than a part as a multipart upload that reads back byte for byte", async () => {
    const data = randomData(5 * PART_SIZE + 123);
    const { url } = await upload("hamlet", "parts.bin", data, "application/octet-stream");
    expect(multipartRequests()).toEqual(["create", "part 1", "part 2", "part 3", "part 4", "part 5", "part 6", "complete"]);
    const pathId = url.slice("/user_uploads/".length);
    expect((await inBucket(pathId))?.equals(data)).toBe(true);
    const served = await fetchFile("hamlet", url);
    expect(Buffer.from(await served.arrayBuffer()).equals(data)).toBe(true);
  });

  it("aborts a multipart upload whose part fails, and keeps no attachment", async () => {
    const before = expectSuccess(await t.get("hamlet", "/api/v1/attachments")).attachments.length;
    failPart = 2;
    const form = new FormData();
    form.append("filename", new Blob([new Uint8Array(randomData(3 * PART_SIZE))], { type: "application/octet-stream" }), "broken.bin");
    const res = await fetch(`${t.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: await t.authHeader("hamlet") }, body: form });
    expect(res.status).toBe(500);
    // Part 2 is sent three times, then the upload is aborted; part 3 is never sent.
    expect(multipartRequests()).toEqual(["create", "part 1", "part 2", "part 2", "part 2", "abort"]);
    const aborted = new URLSearchParams(requests.at(-1)!.query).get("uploadId")!;
    expect(existsSync(path.join(directory, "parley-uploads", "._S3rver_uploads", aborted))).toBe(false);
    expect(expectSuccess(await t.get("hamlet", "/api/v1/attachments")).attachments.length).toBe(before);
  });

  it("stores a data export larger than a part in parts; its download is the tarball it made", async () => {
    const { url } = await upload("hamlet", "in-export.bin", randomData(3 * PART_SIZE), "application/octet-stream");
    expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "export", content: `[file](${url})` }));
    requests.length = 0;
    const { id } = expectSuccess(await t.post("iago", "/api/v1/export/realm", { export_type: ExportType.PUBLIC }));
    await t.drainJobs();
    const row = await t.ctx.db.kysely.selectFrom("realm_exports").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.tarball_size_bytes).toBeGreaterThan(3 * PART_SIZE);
    const kinds = multipartRequests();
    expect([kinds[0], kinds.at(-1), kinds.filter((k) => k.startsWith("part")).length]).toEqual([
      "create",
      "complete",
      Math.ceil(row.tarball_size_bytes! / PART_SIZE),
    ]);
    const listed = expectSuccess(await t.get("iago", "/api/v1/export/realm")).exports.find((e: any) => e.id === id);
    const res = await fetch(listed.export_url.replace(/^https?:\/\/[^/]+/, t.baseUrl), { headers: { Authorization: await t.authHeader("iago") } });
    const tarball = Buffer.from(await res.arrayBuffer());
    expect([res.status, tarball.length, createHash("sha256").update(tarball).digest("hex")]).toEqual([200, row.tarball_size_bytes, row.sha256sum_hex]);
  });
});

/** putFile stores a copy: the caller's file is left as it was, for the caller to remove. */
describe.each<[string, () => BlobStorage]>([
  ["S3BlobStorage", () => new S3BlobStorage(s3)],
  ["LocalBlobStorage", () => new LocalBlobStorage(path.join(scratch, "local"))],
])("%s.putFile", (_name, storage) => {
  it.each([
    ["a one-request file", 1000],
    ["a file in parts", 2 * PART_SIZE + 1],
  ])("keeps the caller's file (%s)", async (_what, size) => {
    const blobs = storage();
    const source = path.join(scratch, `source-${size}`);
    const data = randomData(size);
    writeFileSync(source, data);
    const key = `1/ab/c/keep-${size}.bin`;
    await blobs.putFile(key, source);
    expect(readFileSync(source).equals(data)).toBe(true);
    // The length first, so a failure tells a short copy from a wrong one.
    const stored = async () => {
      const copy = await blobs.readAll(key);
      return [copy?.length, copy?.equals(data)];
    };
    expect(await stored()).toEqual([size, true]);
    rmSync(source);
    expect(await stored()).toEqual([size, true]);
  });
});
