import { existsSync, readdirSync } from "node:fs";
import { group } from "../../src/util/defined.js";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { sendChannelMessage } from "../support/factories.js";
import { type ApiResponse, expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";
import { at } from "../support/at.js";

const t = useTestServer({ uploads: { maxFileSizeMib: 1, unclaimedDays: 21 } });

/** POST /user_uploads with a real multipart body. */
async function upload(who: string | null, files: { name: string; data: Buffer | string; type?: string }[]): Promise<ApiResponse> {
  const parts = files.map((file, i) => ({ field: i === 0 ? "filename" : `file${i}`, data: file.data, type: file.type ?? "text/plain", filename: file.name }));
  return t.upload(who, "/api/v1/user_uploads", parts);
}

/** GET of a file URL as `who` (raw response). */
async function fetchFile(who: string | null, url: string): Promise<Response> {
  const headers: Record<string, string> = who === null ? {} : { Authorization: await t.authHeader(who) };
  return fetch(t.baseUrl + url, { headers });
}

const storageRoot = () => path.join(t.config.dataDir, "uploads", "files");
function storedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(storageRoot(), full));
    }
  };
  walk(storageRoot());
  return out.sort();
}
const spoolFiles = () => (existsSync(path.join(t.config.dataDir, "uploads", "tmp")) ? readdirSync(path.join(t.config.dataDir, "uploads", "tmp")) : []);

async function attachments(who: string) {
  const res = await t.get(who, "/api/v1/attachments");
  return expectSuccess(res);
}

async function sendToVerona(who: string, content: string, stream = "Verona"): Promise<number> {
  return await sendChannelMessage(t, who, stream, "files", content);
}

describe("POST /user_uploads", () => {
  it("stores the file, answers url, uri and filename, and tells the uploader", async () => {
    const { result, events } = await t.captureEvents(() => upload("hamlet", [{ name: "zulip notes.txt", data: "hello, world" }]));
    const body = expectSuccess(result);
    const hamlet = await t.user("hamlet");
    expect(body.url).toMatch(new RegExp(`^/user_uploads/${hamlet.realm_id}/[0-9a-f]{2}/[A-Za-z0-9_-]{24}/zulip-notes\\.txt$`));
    expect(body.uri).toBe(body.url);
    expect(body.filename).toBe("zulip notes.txt");
    const pathId = body.url.slice("/user_uploads/".length);
    expect(storedFiles()).toContain(pathId);
    expect(spoolFiles()).toEqual([]);

    const listed = await attachments("hamlet");
    const mine = listed.attachments.find((a: any) => a.path_id === pathId);
    expect(mine).toMatchObject({ name: "zulip notes.txt", size: 12, messages: [] });
    expect(mine.create_time).toBeGreaterThan(Date.now() - 60_000);
    expect(listed.upload_space_used).toBeGreaterThanOrEqual(12);
    expect(events.map((e) => e.event)).toEqual([{ type: "attachment", op: "add", attachment: mine, upload_space_used: listed.upload_space_used }]);
    expect(at(events, 0).users).toEqual([hamlet.id]);
  });

  it("refuses no file, two files, a file over the limit and no credentials, storing nothing", async () => {
    const before = storedFiles();
    const form = new FormData();
    form.append("note", "no file here");
    const res = await fetch(`${t.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: await t.authHeader("hamlet") }, body: form });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ result: "error", msg: "You must specify a file to upload", code: "BAD_REQUEST" });
    expectError(
      await upload("hamlet", [
        { name: "a.txt", data: "a" },
        { name: "b.txt", data: "b" },
      ]),
      400,
      "You may only upload one file at a time",
    );
    expectError(
      await upload("hamlet", [{ name: "big.bin", data: Buffer.alloc(1024 * 1024 + 1), type: "application/octet-stream" }]),
      400,
      "Uploaded file is larger than the allowed limit of 1 MiB",
    );
    expectError(await upload(null, [{ name: "a.txt", data: "a" }]), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
    expect(storedFiles()).toEqual(before);
    expect(spoolFiles()).toEqual([]);
    // Exactly the limit is fine.
    expectSuccess(await upload("hamlet", [{ name: "limit.bin", data: Buffer.alloc(1024 * 1024), type: "application/octet-stream" }]));
  });

  it("sanitises the stored name and keeps directories out of it", async () => {
    const body = expectSuccess(await upload("hamlet", [{ name: "../../etc/pass wd<script>.txt", data: "x" }]));
    expect(body.url).toMatch(/\/pass-wdscript\.txt$/);
    expect(body.filename).toBe("pass wd<script>.txt");
    const unicode = expectSuccess(await upload("hamlet", [{ name: "Ünïcode файл.txt", data: "x" }]));
    expect(unicode.url.endsWith(`/${encodeURIComponent("Ünïcode-файл.txt")}`)).toBe(true);
    expect((await fetchFile("hamlet", unicode.url)).status).toBe(200);
  });
});

describe("serving /user_uploads", () => {
  it("serves the uploader only, until a message another user can read links the file", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "plan.txt", data: "the plan" }]));
    const own = await fetchFile("hamlet", url);
    expect(own.status).toBe(200);
    expect(await own.text()).toBe("the plan");
    expect(own.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(own.headers.get("content-disposition")).toBe('inline; filename="plan.txt"');
    expect(own.headers.get("x-content-type-options")).toBe("nosniff");
    expect(own.headers.get("content-security-policy")).toContain("default-src 'none'");

    const denied = await fetchFile("othello", url);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ result: "error", msg: "You are not authorized to view this file." });
    expect((await fetchFile(null, url)).status).toBe(401);

    // Linked in a private channel othello is not in: still denied; iago (subscribed) may read.
    await sendToVerona("hamlet", `[plan](${url})`, "core team");
    expect((await fetchFile("othello", url)).status).toBe(403);
    expect((await fetchFile("iago", url)).status).toBe(200);
    // Linked in a public channel: every member may read it.
    const { result, events } = await t.captureEvents(() => sendToVerona("hamlet", `see [plan](${url})`));
    const messageId = result;
    expect((await fetchFile("othello", url)).status).toBe(200);
    const update = events.find((e) => e.event.type === "attachment");
    expect(update?.event).toMatchObject({ op: "update", attachment: { messages: expect.arrayContaining([expect.objectContaining({ id: messageId })]) } });
    const message = expectSuccess(await t.get("othello", `/api/v1/messages/${messageId}`)).message;
    expect(message.content).toContain(url);
    const narrowed = expectSuccess(
      await t.get("othello", "/api/v1/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "has", operand: "attachment" }] }),
    );
    expect(narrowed.messages.map((m: any) => m.id)).toContain(messageId);
  });

  it("does not let a user claim someone else's file by linking it", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "secret.txt", data: "secret" }]));
    const id = await sendToVerona("othello", `stolen [link](${url})`);
    expect((await fetchFile("othello", url)).status).toBe(403);
    expect((await fetchFile("cordelia", url)).status).toBe(403);
    const narrowed = expectSuccess(
      await t.get("othello", "/api/v1/messages", { anchor: id, num_before: 0, num_after: 0, narrow: [{ operator: "has", operand: "attachment" }] }),
    );
    expect(narrowed.messages).toEqual([]);
  });

  it("keeps direct-message files to the conversation", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "dm.txt", data: "just us" }]));
    const othello = await t.user("othello");
    expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: [othello.id], content: `[dm](${url})` }));
    expect((await fetchFile("othello", url)).status).toBe(200);
    expect((await fetchFile("cordelia", url)).status).toBe(403);
  });

  it("never serves anything outside the storage root, whatever the path says", async () => {
    const hamlet = await t.user("hamlet");
    const attempts = [
      `/user_uploads/${hamlet.realm_id}/../../parley.sqlite3`,
      `/user_uploads/${hamlet.realm_id}/%2e%2e/%2e%2e/parley.sqlite3`,
      `/user_uploads/${hamlet.realm_id}/ab/..%2f..%2f..%2fserver-secret`,
      `/user_uploads/${hamlet.realm_id}/ab/cdefghijklmnopqrstuvwxyz/..%2F..%2F..%2F..%2Fparley.sqlite3`,
      `/user_uploads/../server-secret`,
      `/user_uploads/download/${hamlet.realm_id}/..%2f..%2fparley.sqlite3`,
      `/user_uploads/thumbnail/${hamlet.realm_id}/..%2f..%2f..%2fparley.sqlite3/840x560.webp`,
    ];
    for (const attempt of attempts) {
      const res = await fetch(t.baseUrl + attempt, { headers: { Authorization: await t.authHeader("hamlet") } });
      expect([400, 404], attempt).toContain(res.status);
      const text = await res.text();
      expect(text).not.toContain("SQLite format");
    }
  });

  it("serves HTML and SVG only as downloads", async () => {
    const html = expectSuccess(await upload("hamlet", [{ name: "page.html", data: "<script>alert(1)</script>", type: "text/html" }]));
    const res = await fetchFile("hamlet", html.url);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="page.html"');
    const svg = expectSuccess(await upload("hamlet", [{ name: "x.svg", data: "<svg onload='alert(1)'/>", type: "image/svg+xml" }]));
    expect((await fetchFile("hamlet", svg.url)).headers.get("content-disposition")).toMatch(/^attachment;/);
    const download = await fetchFile("hamlet", html.url.replace("/user_uploads/", "/user_uploads/download/"));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/);
  });

  it("gives a temporary URL that works without credentials", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "temp.txt", data: "temporary" }]));
    const apiPath = `/api/v1${url}`;
    const res = await t.get("hamlet", apiPath);
    const body = expectSuccess(res);
    expect(body.url).toMatch(/^\/user_uploads\/temporary\/[^/]+\/temp\.txt$/);
    const served = await fetch(t.baseUrl + body.url);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("temporary");
    expect((await fetch(t.baseUrl + body.url.replace(/\/temp\.txt$/, "/other.txt"))).status).toBe(400);
    const [, , , token] = body.url.split("/");
    const tampered = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
    expect((await fetch(`${t.baseUrl}/user_uploads/temporary/${tampered}/temp.txt`)).status).toBe(400);
    expect((await t.get("othello", apiPath)).status).toBe(403);
  });

  it("makes a WebP thumbnail for images", async () => {
    const png = await sharp({ create: { width: 1200, height: 900, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const { url } = expectSuccess(await upload("hamlet", [{ name: "photo.png", data: png, type: "image/png" }]));
    await t.drainJobs();
    const thumb = await fetchFile("hamlet", url.replace("/user_uploads/", "/user_uploads/thumbnail/") + "/840x560.webp");
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 747, 560]);
    expect((await fetchFile("othello", url.replace("/user_uploads/", "/user_uploads/thumbnail/") + "/840x560.webp")).status).toBe(403);
  });
});

describe("attachments", () => {
  it("DELETE /attachments/{id}: owner only, removes row and file, tells the owner", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "gone.txt", data: "bye" }]));
    const pathId = url.slice("/user_uploads/".length);
    const id = (await attachments("hamlet")).attachments.find((a: any) => a.path_id === pathId).id;
    expectError(await t.delete("othello", `/api/v1/attachments/${id}`), 400, "Invalid attachment");
    expectError(await t.delete("hamlet", "/api/v1/attachments/999999"), 400, "Invalid attachment");
    expectError(await t.delete("hamlet", "/api/v1/attachments/abc"), 400, "attachment_id is not an integer");
    expect(storedFiles()).toContain(pathId);
    const { result, events } = await t.captureEvents(() => t.delete("hamlet", `/api/v1/attachments/${id}`));
    expectSuccess(result);
    expect(events.map((e) => e.event)).toEqual([{ type: "attachment", op: "remove", attachment: { id }, upload_space_used: expect.any(Number) }]);
    await t.drainJobs();
    expect(storedFiles()).not.toContain(pathId);
    expect((await fetchFile("hamlet", url)).status).toBe(404);
    expect((await attachments("hamlet")).attachments.some((a: any) => a.id === id)).toBe(false);
  });

  it("deletes the file with the last message that links it", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "shared.txt", data: "shared" }]));
    const pathId = url.slice("/user_uploads/".length);
    const first = await sendToVerona("hamlet", `[a](${url})`);
    const second = await sendToVerona("hamlet", `[b](${url})`);
    const mine = async () => (await attachments("hamlet")).attachments.find((a: any) => a.path_id === pathId);
    expect((await mine()).messages.map((m: any) => m.id)).toEqual([first, second]);
    expectSuccess(await t.delete("hamlet", `/api/v1/messages/${first}`));
    await t.drainJobs();
    expect((await mine()).messages.map((m: any) => m.id)).toEqual([second]);
    expect(storedFiles()).toContain(pathId);
    expectSuccess(await t.delete("iago", `/api/v1/messages/${second}`));
    await t.drainJobs();
    expect(await mine()).toBeUndefined();
    expect(storedFiles()).not.toContain(pathId);
  });

  it("an edit that drops the link reports the file in detached_uploads", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "draft.txt", data: "draft" }]));
    const id = await sendToVerona("hamlet", `[draft](${url})`);
    const res = expectSuccess(await t.patch("hamlet", `/api/v1/messages/${id}`, { content: "never mind" }));
    const pathId = url.slice("/user_uploads/".length);
    expect(res.detached_uploads).toEqual([expect.objectContaining({ path_id: pathId, name: "draft.txt", messages: [] })]);
    const relinked = expectSuccess(await t.patch("hamlet", `/api/v1/messages/${id}`, { content: `again [draft](${url})` }));
    expect(relinked.detached_uploads).toEqual([]);
    expect((await attachments("hamlet")).attachments.find((a: any) => a.path_id === pathId).messages.map((m: any) => m.id)).toEqual([id]);
  });

  it("deletes uploads never linked once the unclaimed period has passed, by a durable job", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "orphan.txt", data: "orphan" }]));
    const pathId = url.slice("/user_uploads/".length);
    const job = await t.ctx.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("kind", "=", "unclaimed_upload_check")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(job.run_at - job.created_at).toBe(21 * 86400);
    // Time passes: make the job due, with the upload as old as the period.
    const attachment = await t.ctx.db.kysely.selectFrom("attachments").selectAll().where("path_id", "=", pathId).executeTakeFirstOrThrow();
    const past = attachment.create_time - 21 * 86400 - 1;
    await t.ctx.db.kysely
      .updateTable("jobs")
      .set({ run_at: 0, payload: JSON.stringify({ attachmentId: attachment.id, since: past }) })
      .where("id", "=", job.id)
      .execute();
    await t.drainJobs();
    expect(storedFiles()).not.toContain(pathId);
    expect((await attachments("hamlet")).attachments.some((a: any) => a.path_id === pathId)).toBe(false);
  });
});

describe("web sessions (POST /accounts/login/) for file URLs and tus", () => {
  async function login(email: string, password: string): Promise<Response> {
    return postLoginForm(t.baseUrl, email, password);
  }
  const cookieOf = (res: Response) => /sessionid=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

  it("logs in with a password, serves files to the session's user, and logs out", async () => {
    const { url } = expectSuccess(await upload("hamlet", [{ name: "session.txt", data: "via cookie" }]));
    const res = await login("hamlet@zulip.com", DEV_PASSWORD);
    expect(res.status).toBe(302);
    expect(res.headers.get("set-cookie")).toMatch(/HttpOnly/i);
    expect(res.headers.get("set-cookie")).toMatch(/SameSite=Lax/i);
    const hamletCookie = cookieOf(res)!;
    const served = await fetch(t.baseUrl + url, { headers: { Cookie: `sessionid=${hamletCookie}` } });
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("via cookie");

    const othelloCookie = cookieOf(await login("othello@zulip.com", DEV_PASSWORD))!;
    expect((await fetch(t.baseUrl + url, { headers: { Cookie: `sessionid=${othelloCookie}` } })).status).toBe(403);
    expect((await fetch(t.baseUrl + url, { headers: { Cookie: "sessionid=not-a-session" } })).status).toBe(401);

    const bad = await login("hamlet@zulip.com", "wrong password");
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ code: "AUTHENTICATION_FAILED" });

    // tus with the session cookie and the session's CSRF token (the page's; test/api/webSession.test.ts refuses it without).
    const page = await (await fetch(`${t.baseUrl}/`, { headers: { Cookie: `sessionid=${hamletCookie}` } })).text();
    const csrfToken = group(/<meta name="parley-csrf-token" content="([^"]+)">/.exec(page)!, 1);
    const created = await fetch(`${t.baseUrl}/api/v1/tus`, {
      method: "POST",
      headers: { Cookie: `sessionid=${hamletCookie}`, "X-CSRFToken": csrfToken, "Tus-Resumable": "1.0.0", "Upload-Length": "3" },
    });
    expect(created.status).toBe(201);

    const out = await fetch(`${t.baseUrl}/accounts/logout/`, { method: "POST", redirect: "manual", headers: { Cookie: `sessionid=${hamletCookie}` } });
    expect(out.status).toBe(302);
    expect((await fetch(t.baseUrl + url, { headers: { Cookie: `sessionid=${hamletCookie}` } })).status).toBe(401);
  });
});
