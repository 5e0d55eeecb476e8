import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { doAddRealmEmoji } from "../../src/actions/realmEmoji.js";
import { transaction } from "../../src/appContext.js";
import { seedIds } from "../support/seed.js";
import { type ApiResponse, expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

/** A 1×1 PNG and the smallest GIF header: the server checks signatures, not pixels. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

interface Part {
  field?: string;
  data: Buffer;
  type?: string;
  filename?: string;
}

/** POST /realm/emoji/{name} with a real multipart body holding `parts` as files. */
async function upload(who: string | null, name: string, parts: Part[] = [{ data: PNG }]): Promise<ApiResponse> {
  const files = parts.map((part, i) => ({
    field: part.field ?? `f${i}`,
    data: part.data,
    type: part.type ?? "image/png",
    filename: part.filename ?? "img.png",
  }));
  return t.upload(who, `/api/v1/realm/emoji/${name}`, files);
}

async function emojiList(): Promise<Record<string, any>> {
  return expectSuccess(await t.get("cordelia", "/api/v1/realm/emoji")).emoji;
}

async function emojiNamed(name: string) {
  return Object.values(await emojiList()).find((e: any) => e.name === name && !e.deactivated);
}

const emojiDir = async () => path.join(t.config.dataDir, "uploads", "emoji", String((await t.user("hamlet")).realm_id));
const storedFiles = async () => (existsSync(await emojiDir()) ? readdirSync(await emojiDir()).sort() : []);

async function setAddEmojiGroup(groupName: string | null): Promise<void> {
  const realmId = (await t.user("hamlet")).realm_id;
  const realm = await t.ctx.db.kysely.selectFrom("realms").select("settings").where("id", "=", realmId).executeTakeFirstOrThrow();
  const settings = JSON.parse(realm.settings);
  if (groupName === null) delete settings.can_add_custom_emoji_group;
  else {
    const group = await t.ctx.db.kysely
      .selectFrom("user_groups")
      .select("id")
      .where("realm_id", "=", realmId)
      .where("name", "=", groupName)
      .executeTakeFirstOrThrow();
    settings.can_add_custom_emoji_group = group.id;
  }
  await t.ctx.db.kysely
    .updateTable("realms")
    .set({ settings: JSON.stringify(settings) })
    .where("id", "=", realmId)
    .execute();
}

describe("GET /realm/emoji", () => {
  it("is empty in a new realm and requires authentication", async () => {
    expect(await emojiList()).toEqual({});
    expectError(await t.get(null, "/api/v1/realm/emoji"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("POST /realm/emoji/{emoji_name}", () => {
  it("stores the image, lists the emoji and tells the realm", async () => {
    const { result, events } = await t.captureEvents(() => upload("hamlet", "green_tick"));
    expectSuccess(result);
    const hamlet = await t.user("hamlet");
    const row = await t.ctx.db.kysely.selectFrom("realm_emoji").selectAll().where("name", "=", "green_tick").executeTakeFirstOrThrow();
    const expected = {
      id: String(row.id),
      name: "green_tick",
      source_url: `/user_avatars/${hamlet.realm_id}/emoji/images/${row.file_name}`,
      still_url: null,
      deactivated: false,
      author_id: hamlet.id,
    };
    expect(await emojiList()).toEqual({ [String(row.id)]: expected });
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toEqual({ type: "realm_emoji", op: "update", realm_emoji: { [String(row.id)]: expected } });
    expect(at(events, 0).users).toEqual(expect.arrayContaining(seedIds("aaron", "cordelia", "desdemona", "hamlet", "iago", "polonius")));
    expect(row.file_name).toMatch(/^[A-Za-z0-9_-]{24}\.png$/);
    expect(await storedFiles()).toEqual([row.file_name]);
    const audit = await t.ctx.db.kysely.selectFrom("audit_log").select("acting_user_id").where("event_type", "=", "realm_emoji_added").execute();
    expect(audit).toEqual([{ acting_user_id: hamlet.id }]);
  });

  it("serves the image read-only with a safe content type", async () => {
    const emoji = await emojiNamed("green_tick");
    const res = await fetch(t.baseUrl + emoji.source_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const realmId = (await t.user("hamlet")).realm_id;
    const file = emoji.source_url.split("/").pop();
    for (const bad of [
      `/user_avatars/${realmId}/emoji/images/AAAAAAAAAAAAAAAAAAAAAAAA.png`,
      `/user_avatars/${realmId + 1}/emoji/images/${file}`,
      `/user_avatars/${realmId}/emoji/images/..%2F..%2F..%2Fparley.sqlite3`,
      `/user_avatars/${realmId}/emoji/images/${file?.replace(".png", ".svg")}`,
      `/user_avatars/x/emoji/images/${file}`,
    ]) {
      expect((await fetch(t.baseUrl + bad)).status).toBe(404);
    }
    expect((await fetch(t.baseUrl + emoji.source_url, { method: "PUT" })).status).toBe(404);
  });

  it("turns spaces into underscores and keeps the sniffed image type", async () => {
    expectSuccess(await upload("othello", "party%20parrot", [{ data: GIF, type: "image/png", filename: "x.png" }]));
    const emoji = await emojiNamed("party_parrot");
    expect(emoji.source_url).toMatch(/\.gif$/);
    const res = await fetch(t.baseUrl + emoji.source_url);
    expect(res.headers.get("content-type")).toBe("image/gif");
  });

  it("rejects bad names with Zulip's texts", async () => {
    const letters = "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.";
    expectError(await upload("iago", "my_EMoji"), 400, letters);
    expectError(await upload("iago", "my_em*oji"), 400, letters);
    expectError(await upload("iago", "caf%C3%A9"), 400, letters);
    expectError(await upload("iago", "my_emoji_"), 400, "Emoji names must end with either a letter or digit.");
    expectError(await upload("iago", "my-emoji-"), 400, "Emoji names must end with either a letter or digit.");
    expectError(await upload("iago", "%20"), 400, "Emoji name is missing");
  });

  it("rejects a taken name, file counts other than one, large files and non-images", async () => {
    const before = await storedFiles();
    expectError(await upload("iago", "green_tick"), 400, "A custom emoji with this name already exists.");
    expectError(await upload("iago", "two_files", [{ data: PNG }, { data: PNG }]), 400, "You must upload exactly one file.");
    expectError(await upload("iago", "no_file", []), 400, "You must upload exactly one file.");
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    expectError(await upload("iago", "too_big", [{ data: big }]), 400, "Uploaded file is larger than the allowed limit of 5 MiB");
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expectError(await upload("iago", "vector", [{ data: svg, type: "image/svg+xml", filename: "x.svg" }]), 400, "Invalid image format");
    expectError(await upload("iago", "text", [{ data: Buffer.from("hello"), type: "image/png" }]), 400, "Invalid image format");
    expect(await storedFiles()).toEqual(before);
  });

  it("keeps one active emoji per name even when the early check is raced (unique partial index)", async () => {
    const iago = await t.user("iago");
    const realm = await t.ctx.db.kysely.selectFrom("realms").selectAll().where("id", "=", iago.realm_id).executeTakeFirstOrThrow();
    await expect(transaction(t.ctx, (tx) => doAddRealmEmoji(tx, realm, iago, "green_tick", "raceAAAAAAAAAAAAAAAAAAAA.png"))).rejects.toThrow(
      "A custom emoji with this name already exists.",
    );
  });

  it("lets only administrators override default emoji", async () => {
    expectError(await upload("hamlet", "laughing"), 400, "Only administrators can override default emoji.");
    expectSuccess(await upload("iago", "smile"));
  });

  it("follows can_add_custom_emoji_group and refuses guests", async () => {
    expectError(await upload("polonius", "guest_emoji"), 400, "Not allowed for guest users");
    await setAddEmojiGroup("role:administrators");
    try {
      expectError(await upload("shiva", "mod_emoji"), 400, "Insufficient permission");
      expectSuccess(await upload("iago", "admin_emoji"));
    } finally {
      await setAddEmojiGroup(null);
    }
    expectSuccess(await upload("shiva", "mod_emoji"));
    expectError(await upload(null, "anon_emoji"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("DELETE /realm/emoji/{emoji_name}", () => {
  it("lets the author deactivate their emoji, keeps it listed as deactivated and tells the realm", async () => {
    const emoji = await emojiNamed("party_parrot");
    const { result, events } = await t.captureEvents(() => t.delete("othello", "/api/v1/realm/emoji/party_parrot"));
    expectSuccess(result);
    expect((await emojiList())[emoji.id]).toEqual({ ...emoji, deactivated: true });
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toMatchObject({ type: "realm_emoji", op: "update" });
    expect((at(events, 0).event.realm_emoji as any)[emoji.id].deactivated).toBe(true);
    expect((await fetch(t.baseUrl + emoji.source_url)).status).toBe(200);
  });

  it("frees the name for a new upload", async () => {
    expectSuccess(await upload("cordelia", "party_parrot"));
    const all = Object.values(await emojiList()).filter((e: any) => e.name === "party_parrot");
    expect(all.map((e: any) => e.deactivated).sort()).toEqual([false, true]);
  });

  it("lets administrators deactivate anyone's emoji, and nobody else", async () => {
    expectError(await t.delete("hamlet", "/api/v1/realm/emoji/party_parrot"), 400, "Must be an organization administrator or emoji author");
    expectSuccess(await t.delete("iago", "/api/v1/realm/emoji/party_parrot"));
  });

  it("answers 404 for an emoji that does not exist or is already deactivated", async () => {
    expectError(await t.delete("iago", "/api/v1/realm/emoji/invalid_emoji"), 404, "Emoji 'invalid_emoji' does not exist");
    expectError(await t.delete("iago", "/api/v1/realm/emoji/party_parrot"), 404, "Emoji 'party_parrot' does not exist");
    expectError(await t.delete(null, "/api/v1/realm/emoji/green_tick"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });

  it("makes a deactivated emoji unusable for new reactions", async () => {
    const id = (await t.ctx.db.kysely.selectFrom("messages").select("id").where("content", "=", "Testing, one two three.").executeTakeFirstOrThrow()).id;
    expectError(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, { emoji_name: "party_parrot" }), 400, "Emoji 'party_parrot' does not exist");
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, { emoji_name: "green_tick" }));
  });
});
