import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importZulipArchive } from "../../src/actions/import/zulip.js";
import { ImportArchiveError, readZulipArchive } from "../../src/lib/import/zulipArchive.js";
import { STRING_ID, writeZulipExport } from "../../scripts/zulip-export-fixture.mjs";
import { useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";
import { at } from "../support/at.js";

// An export in the exact layout of Zulip's `manage.py export` (scripts/zulip-export-fixture.mjs:
// float times, foreign keys without "_id", usergroup_ptr, SHA-1 huddle hashes, flags_mask
// bitmasks, uploads/avatars/emoji records, scheduled messages, several message files), imported
// with every JSON file streamed (PARLEY_IMPORT_STREAM_ABOVE_BYTES=0) into the test server, and
// read back through the API as the imported users.

const t = useTestServer();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-zulip-layout-"));
let fixture: ReturnType<typeof writeZulipExport>;
let report: Awaited<ReturnType<typeof importZulipArchive>>;
const saved = process.env.PARLEY_IMPORT_STREAM_ABOVE_BYTES;

beforeAll(async () => {
  fixture = writeZulipExport(dir, { messages: 25, perFile: 10 });
  process.env.PARLEY_IMPORT_STREAM_ABOVE_BYTES = "0";
  const archive = await readZulipArchive(dir);
  report = await importZulipArchive(t.ctx, archive, { batchSize: 4 });
});

afterAll(() => {
  if (saved === undefined) delete process.env.PARLEY_IMPORT_STREAM_ABOVE_BYTES;
  else process.env.PARLEY_IMPORT_STREAM_ABOVE_BYTES = saved;
  fs.rmSync(dir, { recursive: true, force: true });
});

const email = (oldId: number) => `user${oldId}@example.org`;

async function get(oldUserId: number, urlPath: string, params: Record<string, unknown> = {}, method = "GET"): Promise<any> {
  const user = await t.ctx.db.kysely.selectFrom("users").select(["email", "api_key"]).where("delivery_email", "=", email(oldUserId)).executeTakeFirstOrThrow();
  const url = new URL(t.baseUrl + urlPath);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const res = await fetch(url, { method, headers: { Authorization: basicAuth(user.email, user.api_key) } });
  if (res.status !== 200) throw new Error(`${method} ${urlPath}: ${res.status} ${await res.text()}`);
  return res.headers.get("content-type")?.includes("json") ? await res.json() : Buffer.from(await res.arrayBuffer());
}

describe("import of an export in Zulip's layout", () => {
  it("imports every message file, user message, reaction and scheduled message, and reports what it skipped", () => {
    expect(fixture.messageFiles).toBe(3);
    expect(report.imported).toMatchObject({
      messages: 25,
      user_messages: fixture.userMessages,
      reactions: fixture.reactions,
      scheduled_messages: 1,
      attachments: 1,
      avatars: 1,
      emoji_files: 1,
    });
    const skipped = Object.fromEntries(report.skipped.map((s) => [s.what, s.count]));
    expect(skipped).toMatchObject({ zerver_realmauditlog: fixture.userIds.length, zerver_userpresence: fixture.userIds.length, zerver_scheduledmessage: 1 });
    expect(skipped.avatars).toBeUndefined();
  });

  it("keeps users, roles, the bot and the uploaded avatar", async () => {
    const [owner, second] = [at(fixture.userIds, 0), at(fixture.userIds, 1)];
    const { members } = await get(owner, "/api/v1/users", { client_gravatar: false });
    expect(members).toHaveLength(fixture.userIds.length + 1);
    const byEmail = new Map(members.map((u: any) => [u.email, u]));
    expect(byEmail.get(email(owner))).toMatchObject({ role: 100, is_owner: true, is_active: true });
    expect(byEmail.get(email(at(fixture.userIds, -1)))).toMatchObject({ is_active: false });
    const bot: any = byEmail.get(fixture.botEmail);
    expect(bot).toMatchObject({ is_bot: true, bot_type: 1 });
    expect(bot.bot_owner_id).toBe((byEmail.get(email(owner)) as any).user_id);
    const withAvatar: any = byEmail.get(email(second));
    expect(withAvatar.timezone).toBe("Europe/Paris");
    expect(withAvatar.date_joined).toMatch(/^2023-11-14T22:13:21/);
    expect(withAvatar.avatar_url).toMatch(/^\/user_avatars\/\d+\/\d+\.png\?version=3$/);
    // Served to the organization's users only (the file names are user ids: enumerable), and to
    // visitors of an organization that lets them in: not to a visitor of the server's default one.
    expect((await fetch(t.baseUrl + withAvatar.avatar_url)).status).toBe(404);
    const [path, query] = withAvatar.avatar_url.split("?");
    const image: Buffer = await get(owner, path, Object.fromEntries(new URLSearchParams(query)));
    expect(image.subarray(1, 4).toString()).toBe("PNG");
    expect((byEmail.get(email(owner)) as any).avatar_url).toContain("gravatar.com");
  });

  it("keeps channels, subscription properties, messages with their flags, DM groups, reactions and uploads", async () => {
    const [owner, second, third] = [at(fixture.userIds, 0), at(fixture.userIds, 1), at(fixture.userIds, 2)];
    const { subscriptions } = await get(second, "/api/v1/users/me/subscriptions");
    const general = subscriptions.find((s: any) => s.name === "general");
    expect(general).toMatchObject({ color: "#76ce90", is_muted: true, pin_to_top: true, description: "Everyone **here**" });

    const narrow = { anchor: "oldest", num_before: 0, num_after: 100, apply_markdown: true };
    const mine = (await get(third, "/api/v1/messages", narrow)).messages;
    const first = mine.find((m: any) => m.content.includes("hello"));
    expect(first.flags).toEqual(expect.arrayContaining(["read", "mentioned"]));
    expect(first.timestamp).toBe(1700001000);
    const thirdId = (await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", email(third)).executeTakeFirstOrThrow()).id;
    expect(first.content).toContain(`data-user-id="${thirdId}"`);
    expect(first.reactions.map((r: any) => r.emoji_name).sort()).toEqual(["fixture_party", "octopus"]);
    const starred = mine.find((m: any) => m.content === "<p>message 2 about things</p>");
    expect(starred.flags).toContain("starred");

    const group = mine.find((m: any) => m.content === "<p>message 5 about things</p>");
    expect(group.type).toBe("private");
    expect(group.display_recipient.map((u: any) => u.email).sort()).toEqual(fixture.huddleMembers.map(email).sort());
    const groupMessages = (await get(owner, "/api/v1/messages", { ...narrow, narrow: [{ operator: "dm", operand: fixture.huddleMembers.map(email) }] }))
      .messages;
    expect(groupMessages.map((m: any) => m.content)).toEqual(["<p>message 5 about things</p>", "<p>message 15 about things</p>"]);
    const edited = mine.find((m: any) => m.content === "<p>message 1 about things</p>");
    expect(edited.last_edit_timestamp).toBe(1700005000);
    expect(edited.edit_history).toHaveLength(1);

    const notification = mine.find((m: any) => m.content === "<p>message 3 about things</p>");
    expect(notification.sender_email).toBe("notification-bot@zulip.com");

    const link = at(/href="(\/user_uploads\/[^"]+)"/.exec(first.content)!, 1);
    expect(link).not.toContain("/user_uploads/2/");
    expect((await get(third, link)).toString()).toBe(fixture.fileText);

    const { scheduled_messages } = await get(owner, "/api/v1/scheduled_messages");
    expect(scheduled_messages).toEqual([expect.objectContaining({ content: "a scheduled message", topic: "later", scheduled_delivery_timestamp: 1710000000 })]);

    const emoji = Object.values((await get(owner, "/api/v1/realm/emoji")).emoji) as any[];
    const party = emoji.find((e) => e.name === "fixture_party");
    expect((await fetch(t.baseUrl + party.source_url)).status).toBe(200);
  });

  it("keeps user groups, topic visibility, profile fields and realm settings", async () => {
    const [owner, second] = [at(fixture.userIds, 0), at(fixture.userIds, 1)];
    const groups = (await get(owner, "/api/v1/user_groups")).user_groups;
    expect(groups.find((g: any) => g.name === "backend")).toMatchObject({ description: "The **backend** team", members: expect.any(Array) });
    expect(groups.find((g: any) => g.name === "backend").members).toHaveLength(2);
    expect(groups.find((g: any) => g.name === "role:owners").members).toHaveLength(1);

    const { user_topics } = await get(second, "/api/v1/register", { fetch_event_types: ["user_topic"] }, "POST");
    expect(user_topics).toEqual([expect.objectContaining({ topic_name: "topic 0", visibility_policy: 2, last_updated: 1700003001 })]);

    const realm = await get(owner, "/api/v1/register", { fetch_event_types: ["realm"] }, "POST");
    const general = (await get(owner, "/api/v1/get_stream_id", { stream: "general" })).stream_id;
    expect(realm.realm_name).toBe("Fixture Organization");
    expect(realm.realm_new_stream_announcements_stream_id).toBe(general);
    const fields = (await get(owner, "/api/v1/realm/profile_fields")).custom_fields;
    expect(fields.map((f: any) => f.name)).toEqual(["Team"]);
    const org = await t.ctx.db.kysely.selectFrom("realms").select(["deactivated", "string_id"]).where("string_id", "=", STRING_ID).executeTakeFirstOrThrow();
    expect(org.deactivated).toBe(0);
  });

  it("refuses a truncated or non-object file, streamed", async () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), "parley-zulip-layout-bad-"));
    try {
      writeZulipExport(bad, { messages: 4, perFile: 2 });
      const file = path.join(bad, "messages-000002.json");
      const text = fs.readFileSync(file, "utf8");
      fs.writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
      await expect(readZulipArchive(bad)).rejects.toThrow(new ImportArchiveError("messages-000002.json is not valid JSON — is the export truncated?").message);
      fs.writeFileSync(file, "[]");
      await expect(readZulipArchive(bad)).rejects.toThrow("messages-000002.json is not an object of tables");
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  });
});
