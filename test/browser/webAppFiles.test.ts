import { createHash, randomBytes } from "node:crypto";
import { group } from "../../src/util/defined.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page, Request } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp, openCompose } from "../support/webApp.js";

// Files in the web app, in a real Chromium: uploads from the compose box (paperclip, paste,
// drag and drop; multipart for small files, tus in chunks for large ones, resumed after a
// dropped connection), image previews from thumbnails with a lightbox, and avatar upload.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const HAMLET_ID = 10;
const MAX_MIB = 7;
const shots = process.env.PARLEY_SCREENSHOTS;
/** Polls wait this long: uploads and thumbnails take a while on a busy machine. */
const SLOW = { timeout: 15_000 };
const TOPIC_URL = "/#narrow/channel/1-Verona/topic/files";

/**
 * A file on disk holding `data`, for setInputFiles: a buffer of megabytes goes to the browser
 * base64-encoded over the DevTools protocol, which took over 15 s on a loaded machine; a path does not.
 */
function fileOnDisk(name: string, data: Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-upload-")), name);
  fs.writeFileSync(file, data);
  return file;
}

/** A `width`×`height` PNG of two colours side by side. */
function png(width: number, height: number, left: string, right: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: left } })
    .composite([{ input: { create: { width: Math.floor(width / 2), height, channels: 3, background: right } }, left: Math.floor(width / 2), top: 0 }])
    .png()
    .toBuffer();
}

const textarea = (page: Page) => page.locator(".compose textarea");
const composeText = (page: Page) => textarea(page).inputValue();

/** Sends what the compose box holds and waits for the message to be acknowledged. */
async function send(page: Page): Promise<void> {
  await page.click(".compose .send");
  await expect.poll(() => composeText(page), SLOW).toBe("");
  await expect.poll(() => page.locator(".message.local").count(), SLOW).toBe(0);
}

/** Waits until the server has made the upload's thumbnail (a job after the upload). */
async function thumbnailReady(page: Page, uploadPath: string): Promise<void> {
  const url = uploadPath.replace("/user_uploads/", "/user_uploads/thumbnail/") + "/840x560.webp";
  await expect.poll(() => page.evaluate(async (u) => (await fetch(u)).status, url), { timeout: 15_000 }).toBe(200);
}

/** The /user_uploads/... path of the first Markdown link to `name` in `text`. */
function linkedPath(text: string, name: string): string {
  const match = new RegExp(`\\[${name.replace(".", "\\.")}\\]\\((/user_uploads/[^)]+)\\)`).exec(text);
  if (!match) throw new Error(`no link to ${name} in ${JSON.stringify(text)}`);
  return group(match, 1);
}

/** Dispatches a paste or drop event carrying one file on the element `selector` matches. */
/** The SHA-256 (hex) of the file at `url` as the page downloads it, with its session. */
function storedSha256(page: Page, url: string): Promise<string> {
  return page.evaluate(async (u) => {
    const bytes = new Uint8Array(await (await fetch(u)).arrayBuffer());
    return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
  }, url);
}

async function dispatchFile(page: Page, selector: string, kind: "paste" | "drop", name: string, data: Buffer, type: string): Promise<void> {
  await page.evaluate(
    ([sel, k, n, b64, t]) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], n, { type: t }));
      const target = document.querySelector(sel)!;
      if (k === "paste") {
        target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
      } else {
        target.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    [selector, kind, name, data.toString("base64"), type] as const,
  );
}

describe.skipIf(!chromiumFound)("files in the web app in Chromium", () => {
  beforeAll(async () => {
    await web.setUp({ PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: String(MAX_MIB) });
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
    for (const page of [hamlet, othello]) {
      page.setDefaultTimeout(10_000);
      await page.goto(web.server.baseUrl + TOPIC_URL);
      await openCompose(page);
    }
  }, 120_000);
  afterAll(() => web.tearDown());

  it("uploads with the paperclip: placeholder and progress, then the link; the message shows the thumbnail", async () => {
    // The upload's answer is held back a moment, so the placeholder and progress can be seen.
    await hamlet.route("**/json/user_uploads", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.continue();
    });
    const image = await png(1600, 900, "#d04020", "#2050d0");
    await hamlet.locator("input[aria-label='Files to upload']").setInputFiles({ name: "sunset.png", mimeType: "image/png", buffer: image });
    await expect.poll(() => composeText(hamlet), SLOW).toBe("[Uploading sunset.png…]()");
    await expect.poll(() => hamlet.locator(".upload-progress li", { hasText: "sunset.png" }).count(), SLOW).toBe(1);
    await expect.poll(() => composeText(hamlet), SLOW).toMatch(/^\[sunset\.png\]\(\/user_uploads\/\d+\/[^)]+\/sunset\.png\)$/);
    await expect.poll(() => hamlet.locator(".upload-progress li").count()).toBe(0);
    await hamlet.unroute("**/json/user_uploads");

    const path = linkedPath(await composeText(hamlet), "sunset.png");
    await thumbnailReady(hamlet, path);
    await send(hamlet);
    // Othello sees the preview, loaded from the 840×560 thumbnail, not the 1600×900 original.
    const preview = othello.locator(`.message .message_inline_image a[href='${path}'] img`);
    await expect.poll(() => preview.getAttribute("src"), SLOW).toBe(path.replace("/user_uploads/", "/user_uploads/thumbnail/") + "/840x560.webp");
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth]), SLOW).toEqual([true, 840]);
  }, 60_000);

  it("uploads a pasted image and a file dropped on the message area", async () => {
    await dispatchFile(hamlet, ".compose textarea", "paste", "pasted.png", await png(400, 300, "#20a040", "#f0d020"), "image/png");
    await expect.poll(() => composeText(hamlet), SLOW).toMatch(/^\[pasted\.png\]\(\/user_uploads\/[^)]+\)$/);
    await textarea(hamlet).press("End");
    await textarea(hamlet).type(" and ");
    await dispatchFile(hamlet, ".message-list", "drop", "notes.txt", Buffer.from("To be, or not to be"), "text/plain");
    await expect.poll(() => composeText(hamlet), SLOW).toMatch(/^\[pasted\.png\]\(\/user_uploads\/[^)]+\) and \[notes\.txt\]\(\/user_uploads\/[^)]+\)$/);
    const text = await composeText(hamlet);
    const notes = linkedPath(text, "notes.txt");
    expect(await hamlet.evaluate(async (u) => (await fetch(u)).text(), notes)).toBe("To be, or not to be");
    await thumbnailReady(hamlet, linkedPath(text, "pasted.png"));
    await send(hamlet);
    await expect.poll(() => othello.locator(`.message a[href='${notes}']`).textContent(), SLOW).toBe("notes.txt");
  }, 60_000);

  it("sends a large file with tus in chunks and resumes it after the connection drops midway", async () => {
    const data = randomBytes(6 * 1024 * 1024 + 12345);
    const requests: Array<{ method: string; offset: number; bytes: number }> = [];
    let patches = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await hamlet.route("**/api/v1/tus/**", async (route) => {
      const request = route.request();
      const entry = { method: request.method(), offset: Number(request.headers()["upload-offset"] ?? -1), bytes: request.postDataBuffer()?.length ?? 0 };
      requests.push(entry);
      if (request.method() === "PATCH" && ++patches === 3) {
        // The third chunk: held (the progress shows), then the connection is cut.
        await held;
        await route.abort("connectionreset");
        return;
      }
      await route.continue();
    });
    await hamlet.locator("input[aria-label='Files to upload']").setInputFiles(fileOnDisk("archive.bin", data), SLOW);
    const row = hamlet.locator(".upload-progress li[data-method='tus']");
    await expect.poll(() => row.locator(".upload-percent").textContent(), SLOW).toMatch(/^(3\d|4\d)%$/);
    expect(await composeText(hamlet)).toBe("[Uploading archive.bin…]()");
    if (shots) await hamlet.locator(".compose").screenshot({ path: `${shots}/compose-upload-progress.png` });
    release();

    await expect.poll(() => composeText(hamlet), { timeout: 30_000 }).toMatch(/^\[archive\.bin\]\(\/user_uploads\/[^)]+\)$/);
    await hamlet.unroute("**/api/v1/tus/**");
    // After the cut: a HEAD asked where the upload stood, and sending went on from there.
    const cut = requests.findIndex((r, i) => r.method === "PATCH" && requests.slice(0, i + 1).filter((x) => x.method === "PATCH").length === 3);
    expect(requests[cut + 1]?.method).toBe("HEAD");
    expect(requests[cut + 2]).toMatchObject({ method: "PATCH", offset: 2 * 1024 * 1024 });
    const sent = requests.filter((r) => r.method === "PATCH").reduce((sum, r) => sum + r.bytes, 0);
    expect(sent).toBe(data.length + 1024 * 1024); // everything once, and the cut chunk again

    // The stored file has exactly the bytes chosen.
    expect(await storedSha256(hamlet, linkedPath(await composeText(hamlet), "archive.bin"))).toBe(createHash("sha256").update(data).digest("hex"));
    await textarea(hamlet).fill("");
  }, 90_000);

  it("finishes a tus upload whose last PATCH reached the server but whose answer was lost", async () => {
    const data = randomBytes(5 * 1024 * 1024 + 4321);
    const requests: Array<{ method: string; offset: number; bytes: number; status: number | "lost" }> = [];
    await hamlet.route("**/api/v1/tus/**", async (route) => {
      const request = route.request();
      const entry = { method: request.method(), offset: Number(request.headers()["upload-offset"] ?? -1), bytes: request.postDataBuffer()?.length ?? 0 };
      if (entry.method === "PATCH" && entry.bytes > 0 && entry.offset + entry.bytes === data.length) {
        // The last chunk goes to the server, which stores the file; its answer never comes back.
        const response = await route.fetch();
        requests.push({ ...entry, status: response.status() === 200 ? "lost" : response.status() });
        await route.abort("connectionreset");
        return;
      }
      const response = await route.fetch();
      requests.push({ ...entry, status: response.status() });
      await route.fulfill({ response });
    });
    await hamlet.locator("input[aria-label='Files to upload']").setInputFiles(fileOnDisk("lost.bin", data), SLOW);
    await expect.poll(() => composeText(hamlet), { timeout: 30_000 }).toMatch(/^\[lost\.bin\]\(\/user_uploads\/[^)]+\)$/);
    await hamlet.unroute("**/api/v1/tus/**");
    expect(await hamlet.locator(".upload-error").count()).toBe(0);
    // After the lost answer: a HEAD found the upload complete, and the final (empty) PATCH was answered with its link.
    const lost = requests.findIndex((r) => r.status === "lost");
    expect(lost).toBeGreaterThan(0);
    expect(requests.slice(lost + 1)).toEqual([
      { method: "HEAD", offset: -1, bytes: 0, status: 200 },
      { method: "PATCH", offset: data.length, bytes: 0, status: 200 },
    ]);
    expect(await storedSha256(hamlet, linkedPath(await composeText(hamlet), "lost.bin"))).toBe(createHash("sha256").update(data).digest("hex"));
    await textarea(hamlet).fill("");
  }, 90_000);

  it("a tus upload waits while the browser is offline and completes when it is back online", async () => {
    const data = randomBytes(5 * 1024 * 1024 + 777);
    const patches: Array<{ offset: number; status: number | "failed" }> = [];
    let heads = 0;
    const finished = async (request: Request) => {
      if (!request.url().includes("/api/v1/tus/")) return;
      if (request.method() === "HEAD") heads++;
      if (request.method() === "PATCH")
        patches.push({ offset: Number(request.headers()["upload-offset"]), status: (await request.response())?.status() ?? "failed" });
    };
    const failed = (request: Request) => {
      if (request.url().includes("/api/v1/tus/") && request.method() === "PATCH")
        patches.push({ offset: Number(request.headers()["upload-offset"]), status: "failed" });
    };
    hamlet.on("requestfinished", finished);
    hamlet.on("requestfailed", failed);
    // Each chunk is slowed a little so the connection can be cut while the file is on its way.
    await hamlet.route("**/api/v1/tus/**", async (route) => {
      if (route.request().method() === "PATCH") await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue().catch(() => {});
    });
    await hamlet.locator("input[aria-label='Files to upload']").setInputFiles(fileOnDisk("offline.bin", data), SLOW);
    await expect.poll(() => patches.filter((p) => p.status === 204).length, SLOW).toBeGreaterThanOrEqual(2);
    await hamlet.context().setOffline(true);
    await expect.poll(() => patches.some((p) => p.status === "failed"), SLOW).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Still waiting: the placeholder and the progress stay.
    expect(await composeText(hamlet)).toBe("[Uploading offline.bin…]()");
    await expect.poll(() => hamlet.locator(".upload-progress li[data-method='tus']").count()).toBe(1);
    await hamlet.context().setOffline(false);
    await expect.poll(() => composeText(hamlet), { timeout: 30_000 }).toMatch(/^\[offline\.bin\]\(\/user_uploads\/[^)]+\)$/);
    await hamlet.unroute("**/api/v1/tus/**");
    hamlet.off("requestfinished", finished);
    hamlet.off("requestfailed", failed);
    expect(heads).toBeGreaterThanOrEqual(1);
    // Resumed, not restarted: no chunk after the cut starts again from byte 0.
    const cut = patches.findIndex((p) => p.status === "failed");
    expect(patches.slice(cut + 1).every((p) => p.offset > 0)).toBe(true);
    expect(await storedSha256(hamlet, linkedPath(await composeText(hamlet), "offline.bin"))).toBe(createHash("sha256").update(data).digest("hex"));
    await textarea(hamlet).fill("");
  }, 90_000);

  it("cancelling an upload removes its placeholder and shows no error", async () => {
    await hamlet.route("**/json/user_uploads", () => {}); // never answered
    await textarea(hamlet).fill("Here it comes: ");
    await hamlet.locator("input[aria-label='Files to upload']").setInputFiles({ name: "slow.txt", mimeType: "text/plain", buffer: Buffer.from("slow") });
    await expect.poll(() => composeText(hamlet), SLOW).toBe("Here it comes: [Uploading slow.txt…]()");
    await hamlet.click("button[aria-label='Cancel uploading slow.txt']");
    await expect.poll(() => composeText(hamlet), SLOW).toBe("Here it comes: ");
    await expect.poll(() => hamlet.locator(".upload-progress li").count()).toBe(0);
    await expect.poll(() => hamlet.locator(".upload-error").count()).toBe(0);
    await hamlet.unroute("**/json/user_uploads");
    await textarea(hamlet).fill("");
  }, 30_000);

  it("refuses a file over max_file_upload_size_mib with a clear error", async () => {
    // From a file by its path: a buffer this size goes to the browser base64-encoded over the
    // DevTools protocol, which took over 10 s on a loaded machine.
    const tooBig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-upload-")), "huge.iso");
    fs.writeFileSync(tooBig, Buffer.alloc((MAX_MIB + 1) * 1024 * 1024, 1));
    await hamlet.locator("input[aria-label='Files to upload']").setInputFiles(tooBig, SLOW);
    await expect.poll(() => hamlet.locator(".upload-error").textContent(), SLOW).toContain(`huge.iso is larger than the maximum file size of ${MAX_MIB} MiB.`);
    expect(await composeText(hamlet)).toBe("");
    await hamlet.click(".upload-error button");
    fs.rmSync(path.dirname(tooBig), { recursive: true, force: true });
  }, 30_000);

  it("opens images in a lightbox: arrows move between them, Esc and a click beside the image close it", async () => {
    const previews = othello.locator(".message-list .message_inline_image > a");
    await expect.poll(() => previews.count(), SLOW).toBe(2);
    if (shots) await othello.screenshot({ path: `${shots}/message-image-previews.png` });
    const hrefs = await previews.evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    await previews.first().click();
    const box = othello.locator(".lightbox[role=dialog]");
    await expect.poll(() => box.count(), SLOW).toBe(1);
    const shown = async () => new URL((await box.locator(".lightbox-image").getAttribute("src"))!, web.server.baseUrl).pathname;
    expect(await shown()).toBe(hrefs[0]);
    expect(await box.locator(".lightbox-name").textContent()).toBe("sunset.png");
    expect(await box.locator(".lightbox-download").getAttribute("href")).toBe(hrefs[0]!.replace("/user_uploads/", "/user_uploads/download/"));
    await expect.poll(() => box.locator(".lightbox-image").evaluate((img: HTMLImageElement) => img.naturalWidth), SLOW).toBe(1600);
    expect(await box.locator(".lightbox-count").textContent()).toBe("1 / 2");
    if (shots) await othello.screenshot({ path: `${shots}/lightbox.png` });

    await othello.keyboard.press("ArrowRight");
    expect(await shown()).toBe(hrefs[1]);
    expect(await box.locator(".lightbox-count").textContent()).toBe("2 / 2");
    await othello.keyboard.press("ArrowLeft");
    expect(await box.locator(".lightbox-name").textContent()).toBe("sunset.png");
    await othello.keyboard.press("Escape");
    await expect.poll(() => box.count(), SLOW).toBe(0);
    // Esc closed only the viewer: the page stays in the topic.
    expect(await othello.evaluate(() => location.hash)).toContain("topic/files");

    await previews.last().click();
    await expect.poll(() => box.locator(".lightbox-name").textContent(), SLOW).toBe("pasted.png");
    await othello.mouse.click(5, 400); // beside the image
    await expect.poll(() => box.count(), SLOW).toBe(0);
  }, 40_000);

  it("an avatar uploaded in #settings/profile replaces the initial for the others at once", async () => {
    const avatarOf = (page: Page) => page.locator(`.message .sender .avatar[data-user-id='${HAMLET_ID}']`).first();
    await expect.poll(() => avatarOf(othello).locator("img").count()).toBe(0);
    await hamlet.evaluate(() => (location.hash = "#settings/profile"));
    await hamlet.waitForSelector(".settings-section[data-section='profile']");
    await hamlet
      .locator("input[aria-label='New avatar']")
      .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: await png(300, 200, "#6040c0", "#e0a020") });
    await expect.poll(() => hamlet.locator(".image-upload-status").textContent(), SLOW).toBe("Uploaded");
    await expect
      .poll(() => hamlet.locator(".image-upload .avatar img").getAttribute("src"), SLOW)
      .toMatch(/^\/user_avatars\/\d+\/10-medium\.png\?version=\d+$/);
    if (shots) await hamlet.screenshot({ path: `${shots}/settings-avatar.png` });

    await expect.poll(() => avatarOf(othello).locator("img").getAttribute("src"), SLOW).toMatch(/^\/user_avatars\/\d+\/10\.png\?version=\d+$/);
    await expect
      .poll(() =>
        avatarOf(othello)
          .locator("img")
          .evaluate((img: HTMLImageElement) => img.naturalWidth),
      )
      .toBe(100);
    const firstUrl = await avatarOf(othello).locator("img").getAttribute("src");

    // A second image: a new URL, so the browser loads it instead of its cached copy.
    await hamlet
      .locator("input[aria-label='New avatar']")
      .setInputFiles({ name: "me2.png", mimeType: "image/png", buffer: await png(200, 200, "#10a0a0", "#10a0a0") });
    await expect.poll(() => avatarOf(othello).locator("img").getAttribute("src"), SLOW).not.toBe(firstUrl);

    // Deleted: back to the initial.
    await hamlet.click("button:has-text('Delete avatar')");
    await expect.poll(() => avatarOf(othello).locator("img").count(), SLOW).toBe(0);
    expect(await avatarOf(othello).textContent()).toBe("K");
    const me = await call(hamlet, "GET", "/users/me");
    expect(me.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\//);
  }, 40_000);

  it("an administrator uploads and deletes the organization icon in #organization/organization-profile", async () => {
    const iago = await web.signIn("Iago");
    await iago.evaluate(() => (location.hash = "#organization/organization-profile"));
    const icon = iago.locator(".image-upload .realm-icon");
    await expect.poll(() => icon.textContent(), SLOW).toBe("Z");
    await iago
      .locator("input[aria-label='New icon']")
      .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: await png(240, 240, "#202020", "#f0f0f0") });
    await expect.poll(() => icon.locator("img").getAttribute("src"), { timeout: 10_000 }).toMatch(/^\/user_avatars\/\d+\/realm\/icon\.png\?version=\d+$/);
    await expect.poll(() => icon.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth), SLOW).toBe(100);
    const state = await call(hamlet, "POST", "/register", { fetch_event_types: JSON.stringify(["realm"]) });
    expect(state.realm_icon_source).toBe("U");
    await iago.click("button:has-text('Delete icon')");
    await expect.poll(() => icon.locator("img").count(), SLOW).toBe(0);
    await iago.context().close();
  }, 40_000);

  it("at 360 px in the dark theme: upload progress, lightbox and the settings avatar fit", async () => {
    const phone = await web.signIn("King Hamlet", { viewport: { width: 360, height: 740 } });
    phone.setDefaultTimeout(10_000);
    await call(phone, "PATCH", "/settings", { color_scheme: "2" });
    await phone.goto(web.server.baseUrl + TOPIC_URL);
    await openCompose(phone);
    await expect.poll(() => phone.evaluate(() => document.documentElement.dataset.theme), SLOW).toBe("dark");
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await phone.route("**/json/user_uploads", async (route) => {
      await held;
      await route.continue();
    });
    await phone
      .locator("input[aria-label='Files to upload']")
      .setInputFiles({ name: "a-rather-long-file-name-for-a-phone.pdf", mimeType: "application/pdf", buffer: Buffer.alloc(300_000, 7) });
    await expect.poll(() => phone.locator(".upload-progress li").count(), SLOW).toBe(1);
    // Nothing sticks out of the 360 px wide page.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    if (shots) await phone.screenshot({ path: `${shots}/compose-upload-progress-phone-dark.png` });
    release();
    await expect.poll(() => composeText(phone), SLOW).toMatch(/^\[a-rather-long-file-name-for-a-phone\.pdf\]\(\/user_uploads\/[^)]+\)$/);
    await phone.unroute("**/json/user_uploads");
    await textarea(phone).fill("");

    await phone.locator(".message-list .message_inline_image > a").first().click();
    await expect.poll(() => phone.locator(".lightbox").count(), SLOW).toBe(1);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    if (shots) await phone.screenshot({ path: `${shots}/lightbox-phone.png` });
    await phone.keyboard.press("Escape");

    await phone.evaluate(() => (location.hash = "#settings/profile"));
    await phone.waitForSelector(".settings-section[data-section='profile']");
    await phone
      .locator("input[aria-label='New avatar']")
      .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: await png(200, 200, "#c03060", "#3060c0") });
    await expect.poll(() => phone.locator(".image-upload .avatar img").count(), SLOW).toBe(1);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    if (shots) await phone.screenshot({ path: `${shots}/settings-avatar-phone-dark.png` });
    await call(phone, "PATCH", "/settings", { color_scheme: "1" });
    await phone.context().close();
  }, 60_000);
});
