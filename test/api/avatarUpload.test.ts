import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { avatarBlobKey } from "../../src/lib/avatarFiles.js";
import { type ApiResponse, expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

/** A 300×200 JPEG: red on the left half, blue on the right (cropping to a square keeps both). */
const photo = () =>
  sharp({ create: { width: 300, height: 200, channels: 3, background: "#ff0000" } })
    .composite([{ input: { create: { width: 150, height: 200, channels: 3, background: "#0000ff" } }, left: 150, top: 0 }])
    .jpeg()
    .toBuffer();

/** POST `path` as `who` with a real multipart body of `files`. */
async function upload(who: string, path: string, files: Array<{ data: Buffer; type?: string; name?: string }>): Promise<ApiResponse> {
  return t.upload(
    who,
    path,
    files.map((file, i) => ({ field: `file-${i}`, data: file.data, type: file.type ?? "image/jpeg", filename: file.name ?? "me.jpg" })),
  );
}

/** GET an avatar or icon URL (relative to the server) as `who`: status, type and bytes. */
async function fetchImage(who: string | null, url: string) {
  const headers: Record<string, string> = who ? { Authorization: await t.authHeader(who) } : {};
  const res = await fetch(new URL(url, t.baseUrl), { headers });
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("POST /users/me/avatar", () => {
  it("stores a square PNG, changes the URL with a new version and tells everyone", async () => {
    const hamlet = await t.user("hamlet");
    const { result: res, events } = await t.captureEvents(async () => upload("hamlet", "/api/v1/users/me/avatar", [{ data: await photo() }]));
    const body = expectSuccess(res);
    expect(body.avatar_url).toBe(`/user_avatars/${hamlet.realm_id}/${hamlet.id}.png?version=${hamlet.avatar_version + 1}`);

    const update = events.find((e) => e.event.type === "realm_user");
    expect(update?.event).toMatchObject({
      op: "update",
      person: { user_id: hamlet.id, avatar_source: "U", avatar_url: body.avatar_url, avatar_version: hamlet.avatar_version + 1 },
    });
    expect(update?.users).toContain((await t.user("othello")).id);

    // Another user of the organization gets the PNG, square, at both sizes.
    const served = await fetchImage("othello", body.avatar_url);
    expect(served).toMatchObject({ status: 200, type: "image/png" });
    const meta = await sharp(served.bytes).metadata();
    expect(meta).toMatchObject({ format: "png", width: 100, height: 100 });
    const medium = await fetchImage("othello", (update!.event as any).person.avatar_url_medium);
    expect(await sharp(medium.bytes).metadata()).toMatchObject({ format: "png", width: 500, height: 500 });
    // Cropped at the centre: red on the left, blue on the right (JPEG colours are approximate).
    const { data, info } = await sharp(served.bytes).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * 100 + x) * info.channels, (y * 100 + x) * info.channels + 3)];
    const [left, right] = [pixel(5, 50), pixel(95, 50)];
    expect(at(left, 0) > 200 && at(left, 2) < 50 && at(right, 0) < 50 && at(right, 2) > 200).toBe(true);

    // The user list and /users/me carry the new URL.
    const me = expectSuccess(await t.get("hamlet", "/api/v1/users/me"));
    expect(me).toMatchObject({ avatar_url: body.avatar_url, avatar_version: hamlet.avatar_version + 1 });

    // A second upload changes the version again, so browsers fetch the new image.
    const again = expectSuccess(await upload("hamlet", "/api/v1/users/me/avatar", [{ data: await photo() }]));
    expect(again.avatar_url).toContain(`version=${hamlet.avatar_version + 2}`);
  });

  it("refuses anything but one decodable image within the size limit", async () => {
    expectError(await upload("cordelia", "/api/v1/users/me/avatar", []), 400, "You must upload exactly one avatar.");
    const two = [{ data: await photo() }, { data: await photo() }];
    expectError(await upload("cordelia", "/api/v1/users/me/avatar", two), 400, "You must upload exactly one avatar.");
    const text = { data: Buffer.from("not an image at all"), type: "image/png", name: "fake.png" };
    expectError(await upload("cordelia", "/api/v1/users/me/avatar", [text]), 400, "Could not decode image; did you upload an image file?");
    const svg = { data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), type: "image/svg+xml", name: "a.svg" };
    expectError(await upload("cordelia", "/api/v1/users/me/avatar", [svg]), 400, "Could not decode image; did you upload an image file?");
    const big = { data: Buffer.concat([await photo(), Buffer.alloc(5 * 1024 * 1024)]) };
    expectError(await upload("cordelia", "/api/v1/users/me/avatar", [big]), 400, "Uploaded file is larger than the allowed limit of 5 MiB");
    expect((await t.user("cordelia")).avatar_source).toBe("G");
  });

  it("is refused to members when avatar changes are disabled, not to administrators", async () => {
    await t.withRealmSettings({ avatar_changes_disabled: true }, async () => {
      expectError(await upload("othello", "/api/v1/users/me/avatar", [{ data: await photo() }]), 400, "Avatar changes are disabled in this organization.");
      expectError(await t.delete("othello", "/api/v1/users/me/avatar"), 400, "Avatar changes are disabled in this organization.");
      expectSuccess(await upload("iago", "/api/v1/users/me/avatar", [{ data: await photo() }]));
    });
    expect((await t.user("othello")).avatar_source).toBe("G");
  });

  it("serves the 100 px image for the medium size when only that one is stored (imported avatars)", async () => {
    const desdemona = await t.user("desdemona");
    const uploaded = expectSuccess(await upload("desdemona", "/api/v1/users/me/avatar", [{ data: await photo() }]));
    await t.ctx.blobs.delete(avatarBlobKey(desdemona.realm_id, desdemona.id, true));
    const medium = await fetchImage("hamlet", uploaded.avatar_url.replace(".png?", "-medium.png?"));
    expect(medium).toMatchObject({ status: 200, type: "image/png" });
    expect(await sharp(medium.bytes).metadata()).toMatchObject({ width: 100, height: 100 });
    expect((await fetchImage("hamlet", `/user_avatars/${desdemona.realm_id}/999999-medium.png`)).status).toBe(404);
  });

  it("DELETE goes back to the gravatar and the uploaded file is gone", async () => {
    const uploaded = expectSuccess(await upload("prospero", "/api/v1/users/me/avatar", [{ data: await photo() }]));
    expect((await fetchImage("hamlet", uploaded.avatar_url)).status).toBe(200);
    const { result: res, events } = await t.captureEvents(() => t.delete("prospero", "/api/v1/users/me/avatar"));
    const body = expectSuccess(res);
    expect(body.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=\d+$/);
    expect(events.find((e) => e.event.type === "realm_user")?.event).toMatchObject({ person: { avatar_source: "G", avatar_url: body.avatar_url } });
    expect((await fetchImage("hamlet", uploaded.avatar_url)).status).toBe(404);
  });
});

describe("POST /realm/icon", () => {
  it("lets administrators upload an icon that everyone is told about and anyone can load", async () => {
    const realmId = (await t.user("iago")).realm_id;
    expectError(
      await upload("hamlet", "/api/v1/realm/icon", [{ data: await photo() }]),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(await upload("iago", "/api/v1/realm/icon", []), 400, "You must upload exactly one icon.");
    const { result: res, events } = await t.captureEvents(() => photo().then((data) => upload("iago", "/api/v1/realm/icon", [{ data }])));
    const body = expectSuccess(res);
    expect(body.icon_url).toMatch(new RegExp(`^/user_avatars/${realmId}/realm/icon\\.png\\?version=\\d+$`));
    const update = events.find((e) => e.event.type === "realm");
    expect(update?.event).toEqual({ type: "realm", op: "update_dict", property: "icon", data: { icon_source: "U", icon_url: body.icon_url } });
    expect(update?.users).toContain((await t.user("hamlet")).id);

    const served = await fetchImage(null, body.icon_url);
    expect(served).toMatchObject({ status: 200, type: "image/png" });
    expect(await sharp(served.bytes).metadata()).toMatchObject({ format: "png", width: 100, height: 100 });
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm"] }));
    expect(state).toMatchObject({ realm_icon_url: body.icon_url, realm_icon_source: "U" });

    expectError(await t.delete("hamlet", "/api/v1/realm/icon"), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    const deleted = expectSuccess(await t.delete("iago", "/api/v1/realm/icon"));
    expect(deleted.icon_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/);
    const after = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm"] }));
    expect(after).toMatchObject({ realm_icon_url: deleted.icon_url, realm_icon_source: "G" });
  });
});
