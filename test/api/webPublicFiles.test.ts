import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { makeChannel, sendChannelMessage, sendDirectMessage, uploadFile } from "../support/factories.js";
import { seedChannels } from "../support/seed.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Files for visitors (issue 38; Zulip's validate_attachment_request for an anonymous user): with
 * enable_spectator_access on, a request without credentials may fetch a file, its download and its
 * thumbnail when a message in a web-public channel links it, and nothing else; with it off,
 * nothing. The access follows the links as they are now: moving the message out of the
 * channel, deleting it or editing the link out ends it.
 */
const t = useTestServer();

let webPublic: number;
let privateChannel: number;
const url = { web: "", image: "", verona: "", private: "", dm: "", unlinked: "", both: "" };
const DATA = { web: "web-public data", verona: "members data", private: "subscribers data", dm: "dm data", unlinked: "unsent data", both: "shared data" };

const thumbnailOf = (fileUrl: string) => fileUrl.replace("/user_uploads/", "/user_uploads/thumbnail/") + "/840x560.webp";
const downloadOf = (fileUrl: string) => fileUrl.replace("/user_uploads/", "/user_uploads/download/");
/** A visitor's GET, its answer read to the end at once, as a browser reads it. */
async function visitorGet(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(t.baseUrl + path, { headers });
  return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
}
const setSpectatorAccess = async (on: boolean) => expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: on }));

/** The visitor's answer: 200 with the data, or the 401 every other file gets. */
async function expectVisitorReads(path: string, data: string): Promise<void> {
  const res = await visitorGet(path);
  expect(res.status, path).toBe(200);
  expect(await res.text()).toBe(data);
}
async function expectVisitorRefused(path: string): Promise<void> {
  const res = await visitorGet(path);
  expect(res.status, path).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
  expect(await res.json()).toMatchObject({ result: "error", code: "UNAUTHORIZED", msg: "Not logged in: API authentication or user session required" });
}

/** Uploads `data` as hamlet and links it from a new message in `channel`; returns the file URL. */
async function linkedFile(name: string, data: string, channel: number | string, topic = "files"): Promise<{ url: string; messageId: number }> {
  const fileUrl = await uploadFile(t, "hamlet", name, data);
  const messageId = await sendChannelMessage(t, "hamlet", channel, topic, `[${name}](${fileUrl})`);
  return { url: fileUrl, messageId };
}

beforeAll(async () => {
  await setSpectatorAccess(true);
  webPublic = await makeChannel(t, { name: "public square", by: "desdemona", subscribers: ["desdemona", "hamlet"], extra: { is_web_public: true } });
  privateChannel = await makeChannel(t, { name: "vault", by: "iago", invite_only: true, subscribers: ["iago", "hamlet"] });
  url.web = (await linkedFile("web.txt", DATA.web, webPublic)).url;
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#cc6633" } })
    .png()
    .toBuffer();
  url.image = await uploadFile(t, "hamlet", "picture.png", png, "image/png");
  await sendChannelMessage(t, "hamlet", webPublic, "pictures", `[picture](${url.image})`);
  await t.drainJobs();
  url.verona = (await linkedFile("verona.txt", DATA.verona, "Verona")).url;
  url.private = (await linkedFile("private.txt", DATA.private, privateChannel)).url;
  url.dm = await uploadFile(t, "hamlet", "dm.txt", DATA.dm);
  await sendDirectMessage(t, "hamlet", ["iago"], `[dm](${url.dm})`);
  url.unlinked = await uploadFile(t, "hamlet", "unlinked.txt", DATA.unlinked);
  url.both = (await linkedFile("both.txt", DATA.both, privateChannel)).url;
  await sendChannelMessage(t, "hamlet", webPublic, "files", `again: [both](${url.both})`);
});

describe("files for visitors, spectator access on", () => {
  it("serves the file of a web-public message: inline, as a download, and its thumbnail", async () => {
    const res = await visitorGet(url.web);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    expect(await res.text()).toBe(DATA.web);
    const download = await visitorGet(downloadOf(url.web));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(await download.text()).toBe(DATA.web);

    const image = await visitorGet(url.image);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    await image.arrayBuffer();
    const thumbnail = await visitorGet(thumbnailOf(url.image));
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers.get("content-type")).toBe("image/webp");
    expect((await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()).format).toBe("webp");
  });

  it("refuses the files of a public channel, a private channel, a direct message, and unsent ones", async () => {
    for (const fileUrl of [url.verona, url.private, url.dm, url.unlinked]) {
      await expectVisitorRefused(fileUrl);
      await expectVisitorRefused(downloadOf(fileUrl));
      await expectVisitorRefused(thumbnailOf(fileUrl));
    }
  });

  it("answers the same 401 for files that do not exist, malformed paths and wrong thumbnail sizes", async () => {
    const realmId = (await t.user("hamlet")).realm_id;
    await expectVisitorRefused(`/user_uploads/${realmId}/ab/AAAAAAAAAAAAAAAAAAAAAAAA/missing.txt`);
    await expectVisitorRefused(`/user_uploads/${realmId}/..%2f..%2fparley.sqlite3`);
    await expectVisitorRefused(`/user_uploads/${realmId + 1}/${url.web.split("/").slice(3).join("/")}`);
    await expectVisitorRefused(url.image.replace("/user_uploads/", "/user_uploads/thumbnail/") + "/100x100.webp");
  });

  it("serves a file linked from both a web-public and a private message", async () => {
    await expectVisitorReads(url.both, DATA.both);
    await expectVisitorReads(downloadOf(url.both), DATA.both);
  });

  it("gives no temporary URL to a visitor (GET /api/v1/user_uploads/… needs an account)", async () => {
    const res = await visitorGet("/api/v1" + url.web);
    expect(res.status).toBe(401);
  });

  it("treats a session that ended like no credentials, and a bad API key as before", async () => {
    await expectVisitorReads(url.web, DATA.web);
    const stale = await visitorGet(url.web, { Cookie: "sessionid=no-such-session" });
    expect(stale.status).toBe(200);
    expect((await visitorGet(url.private, { Cookie: "sessionid=no-such-session" })).status).toBe(401);
    const badKey = await visitorGet(url.web, { Authorization: `Basic ${Buffer.from("hamlet@zulip.com:wrong").toString("base64")}` });
    expect(badKey.status).toBe(401);
  });

  it("leaves users' access as it was", async () => {
    const asUser = async (who: string, path: string) => {
      const res = await fetch(t.baseUrl + path, { headers: { Authorization: await t.authHeader(who) } });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await asUser("othello", url.web)).toBe(200);
    expect(await asUser("othello", url.private)).toBe(403);
    expect(await asUser("othello", url.both)).toBe(200);
    expect(await asUser("othello", url.dm)).toBe(403);
    expect(await asUser("hamlet", url.unlinked)).toBe(200);
  });
});

describe("files for visitors follow the current links", () => {
  it("ends when the message moves out of the web-public channel, and comes back with it", async () => {
    const { url: fileUrl, messageId } = await linkedFile("moving.txt", "moving data", webPublic, "moves");
    await expectVisitorReads(fileUrl, "moving data");
    expectSuccess(await t.patch("iago", `/api/v1/messages/${messageId}`, { stream_id: seedChannels.verona.id, propagate_mode: "change_one" }));
    await expectVisitorRefused(fileUrl);
    await expectVisitorRefused(downloadOf(fileUrl));
    expectSuccess(await t.patch("iago", `/api/v1/messages/${messageId}`, { stream_id: webPublic, propagate_mode: "change_one" }));
    await expectVisitorReads(fileUrl, "moving data");
  });

  it("ends when the web-public message is deleted, while the file lives on for a private one", async () => {
    const { url: fileUrl, messageId } = await linkedFile("deleted.txt", "deleted data", webPublic, "deletions");
    await sendChannelMessage(t, "hamlet", privateChannel, "deletions", `[copy](${fileUrl})`);
    await expectVisitorReads(fileUrl, "deleted data");
    expectSuccess(await t.delete("iago", `/api/v1/messages/${messageId}`));
    await expectVisitorRefused(fileUrl);
    const owner = await fetch(t.baseUrl + fileUrl, { headers: { Authorization: await t.authHeader("hamlet") } });
    expect(owner.status).toBe(200);
    await owner.arrayBuffer();
  });

  it("ends when an edit takes the link out of the message", async () => {
    const { url: fileUrl, messageId } = await linkedFile("edited.txt", "edited data", webPublic, "edits");
    await expectVisitorReads(fileUrl, "edited data");
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${messageId}`, { content: "no file any more" }));
    await expectVisitorRefused(fileUrl);
  });
});

describe("files for visitors, spectator access off", () => {
  it("refuses every file, web-public ones and their thumbnails included", async () => {
    await setSpectatorAccess(false);
    try {
      for (const fileUrl of [url.web, url.both, url.verona, url.private, url.dm, url.unlinked]) {
        await expectVisitorRefused(fileUrl);
        await expectVisitorRefused(downloadOf(fileUrl));
      }
      await expectVisitorRefused(url.image);
      await expectVisitorRefused(thumbnailOf(url.image));
    } finally {
      await setSpectatorAccess(true);
    }
    await expectVisitorReads(url.web, DATA.web);
  });
});
