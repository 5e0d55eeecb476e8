import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, createContext } from "../../src/app.js";
import type { AppContext } from "../../src/appContext.js";
import { writeRealmExport } from "../../src/lib/export/realmExport.js";
import { ExportType } from "../../src/models/realmExport.js";
import { PARLEY_CLI, REPO_ROOT } from "../support/process.js";
import { type FreshDatabase, freshDatabase } from "../support/testDb.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";
import { at } from "../support/at.js";

// `parley import zulip`: an organization built through the API, exported (lib/export/), imported
// into a fresh database by the command line, and compared through the API of both servers; an
// interrupted import continued without duplicates; damaged archives refused with nothing visible.

const t = useTestServer();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "parley-import-test-"));

let target: FreshDatabase;
let ctx2: AppContext;
let app2: FastifyInstance;
let base2 = "";
let env2: Record<string, string> = {};
let tarball = "";

beforeAll(async () => {
  target = await freshDatabase();
  env2 = target.database.kind === "sqlite" ? { ...target.env, PARLEY_DATABASE_URL: `sqlite:${target.database.file}` } : target.env;
});

afterAll(async () => {
  if (app2) await app2.close();
  if (ctx2) await ctx2.db.close();
  await target?.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

function parley(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [...PARLEY_CLI, ...args],
      { cwd: REPO_ROOT, env: { ...base, ...env2, PARLEY_LOG_LEVEL: "warn", ...extraEnv } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** The imported organization's server: the same fresh database, in this process. */
async function startTarget(): Promise<void> {
  const config = { ...t.config, database: target.database, dataDir: target.dataDir };
  ctx2 = await createContext(config, pino({ level: "silent" }));
  app2 = await buildApp(ctx2);
  await app2.listen({ host: "127.0.0.1", port: 0 });
  base2 = `http://127.0.0.1:${(app2.server.address() as AddressInfo).port}`;
}

async function get2(email: string, urlPath: string, params: Record<string, unknown> = {}): Promise<any> {
  const user = await ctx2.db.kysely
    .selectFrom("users")
    .innerJoin("realms", "realms.id", "users.realm_id")
    .select(["users.email", "users.api_key"])
    .where("users.delivery_email", "=", email)
    .where("realms.string_id", "=", "zulip")
    .executeTakeFirstOrThrow();
  const url = new URL(base2 + urlPath);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const res = await fetch(url, { headers: { Authorization: basicAuth(user.email, user.api_key) } });
  return { status: res.status, body: res.headers.get("content-type")?.includes("json") ? await res.json() : Buffer.from(await res.arrayBuffer()) };
}

const send = async (who: string, params: Record<string, string>) => expectSuccess(await t.post(who, "/api/v1/messages", params)).id as number;
let uploadUrl = "";
let importedRealmId = 0;
const ctx2Realm = () => importedRealmId;

describe("parley import zulip", { timeout: 120_000 }, () => {
  it("builds and exports an organization", async () => {
    // Channels old enough for their weekly traffic to be counted (the import must count it too).
    await t.ctx.db.kysely
      .updateTable("streams")
      .set({ date_created: Math.floor(Date.now() / 1000) - 40 * 86400 })
      .where("name", "in", ["Denmark", "Verona"])
      .execute();
    expectSuccess(
      await t.post("iago", "/api/v1/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "imported room", description: "A **room**" }]),
        principals: JSON.stringify(["hamlet@zulip.com", "othello@zulip.com"]),
      }),
    );
    const form = new FormData();
    form.append("filename", new Blob(["imported file contents"], { type: "text/plain" }), "notes.txt");
    const res = await fetch(`${t.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: await t.authHeader("hamlet") }, body: form });
    uploadUrl = (await res.json()).url;
    const first = await send("hamlet", {
      type: "stream",
      to: "imported room",
      topic: "greetings",
      content: `hello @**Othello, the Moor of Venice** see [notes](${uploadUrl})`,
    });
    expectSuccess(await t.post("othello", `/api/v1/messages/${first}/reactions`, { emoji_name: "octopus" }));
    const edited = await send("othello", { type: "stream", to: "imported room", topic: "greetings", content: "first version" });
    expectSuccess(await t.patch("othello", `/api/v1/messages/${edited}`, { content: "second version" }));
    for (let i = 0; i < 5; i++) await send("iago", { type: "stream", to: "Denmark", topic: `topic ${i % 2}`, content: `message ${i}` });
    await send("othello", { type: "direct", to: JSON.stringify([(await t.user("hamlet")).id]), content: "a direct message" });
    expectSuccess(
      await t.post("hamlet", "/api/v1/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([
          {
            stream_id: (await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", "imported room").executeTakeFirstOrThrow()).id,
            property: "color",
            value: "#123456",
          },
        ]),
      }),
    );

    const hamlet = await t.user("hamlet");
    const othello = await t.user("othello");
    const roomId = (await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", "imported room").executeTakeFirstOrThrow()).id;
    expectSuccess(
      await t.post("iago", "/api/v1/user_groups/create", { name: "importers", description: "They import", members: JSON.stringify([hamlet.id, othello.id]) }),
    );
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: roomId, topic: "greetings", visibility_policy: 1 }));
    const field = expectSuccess(await t.post("iago", "/api/v1/realm/profile_fields", { name: "Team", field_type: 1 })).id;
    expectSuccess(await t.patch("iago", `/api/v1/users/${hamlet.id}`, { profile_data: JSON.stringify([{ id: field, value: "core" }]) }));
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
    const emojiForm = new FormData();
    emojiForm.append("f0", new Blob([new Uint8Array(png)], { type: "image/png" }), "img.png");
    expect(
      (
        await fetch(`${t.baseUrl}/api/v1/realm/emoji/import_party`, {
          method: "POST",
          headers: { Authorization: await t.authHeader("hamlet") },
          body: emojiForm,
        })
      ).status,
    ).toBe(200);
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${first}/reactions`, { emoji_name: "import_party" }));
    // An uploaded avatar and organization icon (a red 2×1 PNG), cropped and resized by the server.
    const image = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAD0lEQVQImWP4z8Dwn4EBAAj+Af/KOtJRAAAAAElFTkSuQmCC",
      "base64",
    );
    for (const [who, url] of [
      ["hamlet", "/api/v1/users/me/avatar"],
      ["iago", "/api/v1/realm/icon"],
    ] as const) {
      const imageForm = new FormData();
      imageForm.append("file", new Blob([new Uint8Array(image)], { type: "image/png" }), "picture.png");
      const uploaded = await fetch(`${t.baseUrl}${url}`, { method: "POST", headers: { Authorization: await t.authHeader(who) }, body: imageForm });
      expect(uploaded.status).toBe(200);
    }

    tarball = path.join(scratch, "export.tar.gz");
    const realm = await t.ctx.db.kysely.selectFrom("realms").select("id").where("string_id", "=", "zulip").executeTakeFirstOrThrow();
    await writeRealmExport(
      { q: t.ctx.db.kysely, blobs: t.ctx.blobs, dataDir: t.config.dataDir },
      realm.id,
      ExportType.FULL_WITHOUT_CONSENT,
      tarball,
      path.join(scratch, "work"),
    );
  });

  it("refuses a truncated or incomplete archive with a clear error, importing nothing", async () => {
    const truncated = path.join(scratch, "truncated.tar.gz");
    const bytes = fs.readFileSync(tarball);
    fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const bad = await parley(["import", "zulip", truncated]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/cannot import: .* is not a complete \.tar\.gz archive.*Nothing was imported/);

    const dir = path.join(scratch, "norealm", "export");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "messages-000001.json"), '{"zerver_message": [], "zerver_usermessage": []}');
    const noRealm = path.join(scratch, "norealm.tar.gz");
    await tar.create({ gzip: true, file: noRealm, cwd: path.join(scratch, "norealm") }, ["export"]);
    const missing = await parley(["import", "zulip", noRealm]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("the export has no realm.json");

    const usage = await parley(["import", "slackish", tarball]);
    expect(usage.code).toBe(2);
  });

  it("imports into a fresh database; the API answers as the original server's", async () => {
    const done = await parley(["import", "zulip", tarball]);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/messages: \d+\/\d+ \(\d+ messages\/s\)/);
    expect(done.stdout).toContain('Imported organization "zulip"');
    expect(done.stdout).toMatch(/zerver_realmauditlog \(\d+\): the audit log starts afresh/);
    await startTarget();
    importedRealmId = (await ctx2.db.kysely.selectFrom("realms").select("id").where("string_id", "=", "zulip").executeTakeFirstOrThrow()).id;

    // Nothing was left by the refused imports: one organization besides the system bots'.
    const realms = await ctx2.db.kysely.selectFrom("realms").select(["string_id", "deactivated"]).execute();
    expect(realms.filter((r) => r.string_id !== "zulipinternal")).toEqual([{ string_id: "zulip", deactivated: 0 }]);

    const simplifyUser = (u: any) => ({ email: u.email, full_name: u.full_name, role: u.role, is_bot: u.is_bot, is_active: u.is_active, timezone: u.timezone });
    const users1 = expectSuccess(await t.get("hamlet", "/api/v1/users")).members.map(simplifyUser);
    const users2 = await get2("hamlet@zulip.com", "/api/v1/users");
    expect(users2.status).toBe(200);
    expect(users2.body.members.map(simplifyUser)).toEqual(users1);

    const simplifyStream = (s: any) => ({
      name: s.name,
      description: s.description,
      rendered_description: s.rendered_description,
      invite_only: s.invite_only,
      color: s.color,
      is_muted: s.is_muted,
      stream_weekly_traffic: s.stream_weekly_traffic,
      is_recently_active: s.is_recently_active,
    });
    const subs1 = expectSuccess(await t.get("hamlet", "/api/v1/users/me/subscriptions")).subscriptions.map(simplifyStream);
    const subs2 = (await get2("hamlet@zulip.com", "/api/v1/users/me/subscriptions")).body.subscriptions.map(simplifyStream);
    expect(subs2).toEqual(subs1);
    expect(subs2).toContainEqual(expect.objectContaining({ name: "imported room", color: "#123456" }));
    const streams1 = expectSuccess(await t.get("iago", "/api/v1/streams")).streams.map(simplifyStream);
    expect((await get2("iago@zulip.com", "/api/v1/streams")).body.streams.map(simplifyStream)).toEqual(streams1);

    const narrow = { anchor: "newest", num_before: 200, num_after: 0, apply_markdown: true };
    const simplifyMessage = (m: any) => ({
      sender_email: m.sender_email,
      subject: m.subject,
      content: m.content.replaceAll(/data-user-id="\d+"/g, "data-user-id"),
      timestamp: m.timestamp,
      flags: [...m.flags].sort(),
      reactions: m.reactions.map((r: any) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, email: r.user?.email })),
      edit_history: (m.edit_history ?? []).length,
      display_recipient: typeof m.display_recipient === "string" ? m.display_recipient : m.display_recipient.map((u: any) => u.email),
    });
    const messages1 = expectSuccess(await t.get("hamlet", "/api/v1/messages", narrow)).messages.map(simplifyMessage);
    const messages2 = (await get2("hamlet@zulip.com", "/api/v1/messages", narrow)).body.messages.map(simplifyMessage);
    expect(messages2.length).toBeGreaterThan(5);
    expect(messages2).toEqual(messages1);

    // Mentions point at the imported user; the upload downloads from the new storage.
    const othello2 = await ctx2.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", "othello@zulip.com").executeTakeFirstOrThrow();
    const mention = (await get2("hamlet@zulip.com", "/api/v1/messages", { ...narrow, narrow: [{ operator: "search", operand: "hello" }] })).body.messages[0];
    expect(mention.content).toContain(`data-user-id="${othello2.id}"`);
    const link = at(/href="(\/user_uploads\/[^"]+)"/.exec(mention.content)!, 1);
    const file = await get2("hamlet@zulip.com", link);
    expect(file.status).toBe(200);
    expect(file.body.toString()).toBe("imported file contents");
  });

  it("keeps uploaded avatars and the organization icon, byte for byte", async () => {
    const image = async (fetched: Response) => ({ status: fetched.status, bytes: Buffer.from(await fetched.arrayBuffer()) });
    const me1 = expectSuccess(await t.get("hamlet", "/api/v1/users/me"));
    const me2 = (await get2("hamlet@zulip.com", "/api/v1/users/me")).body;
    expect(me1.avatar_url).toMatch(/^\/user_avatars\//);
    expect(me2.avatar_url).toMatch(new RegExp(`^/user_avatars/${ctx2Realm()}/\\d+\\.png`));
    const avatar1 = await image(await fetch(new URL(me1.avatar_url, t.baseUrl), { headers: { Authorization: await t.authHeader("othello") } }));
    const avatar2 = await get2("othello@zulip.com", me2.avatar_url);
    expect(avatar1.status).toBe(200);
    expect(avatar2.status).toBe(200);
    expect(Buffer.compare(avatar2.body, avatar1.bytes)).toBe(0);

    const icon1 = expectSuccess(await t.get("hamlet", "/api/v1/server_settings")).realm_icon;
    const icon2 = (await get2("hamlet@zulip.com", "/api/v1/server_settings")).body.realm_icon;
    expect(icon2).toMatch(new RegExp(`^/user_avatars/${ctx2Realm()}/realm/icon\\.png`));
    const served1 = await image(await fetch(new URL(icon1, t.baseUrl)));
    const served2 = await image(await fetch(new URL(icon2, base2)));
    expect(served2.status).toBe(200);
    expect(Buffer.compare(served2.bytes, served1.bytes)).toBe(0);
  });

  it("keeps user groups, topic visibility, custom profile fields and custom emoji", async () => {
    const groups = (body: any) =>
      body.user_groups.filter((g: any) => !g.is_system_group).map((g: any) => ({ name: g.name, description: g.description, members: g.members.length }));
    const groups1 = groups(expectSuccess(await t.get("hamlet", "/api/v1/user_groups")));
    expect(groups1).toContainEqual({ name: "importers", description: "They import", members: 2 });
    expect(groups((await get2("hamlet@zulip.com", "/api/v1/user_groups")).body)).toEqual(groups1);
    const systemGroups = (body: any) => body.user_groups.filter((g: any) => g.is_system_group).map((g: any) => [g.name, g.members.length]);
    expect(systemGroups((await get2("hamlet@zulip.com", "/api/v1/user_groups")).body)).toEqual(
      systemGroups(expectSuccess(await t.get("hamlet", "/api/v1/user_groups"))),
    );

    const fields = (body: any) => body.custom_fields.map((f: any) => ({ name: f.name, type: f.type }));
    const fields1 = fields(expectSuccess(await t.get("hamlet", "/api/v1/realm/profile_fields")));
    expect(fields((await get2("hamlet@zulip.com", "/api/v1/realm/profile_fields")).body)).toEqual(fields1);
    const profile = (body: any) =>
      body.members.filter((u: any) => u.email === "hamlet@zulip.com").map((u: any) => Object.values(u.profile_data ?? {}).map((v: any) => v.value));
    const profile1 = profile(expectSuccess(await t.get("hamlet", "/api/v1/users", { include_custom_profile_fields: true })));
    expect(profile1[0]).toContain("core");
    expect(profile((await get2("hamlet@zulip.com", "/api/v1/users", { include_custom_profile_fields: true })).body)).toEqual(profile1);

    const emoji = (await get2("hamlet@zulip.com", "/api/v1/realm/emoji")).body.emoji;
    const party = Object.values(emoji).find((e: any) => e.name === "import_party") as any;
    expect(party).toBeDefined();
    const image = await fetch(base2 + party.source_url);
    expect(image.status).toBe(200);
    const reacted = (
      await get2("hamlet@zulip.com", "/api/v1/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "search", operand: "hello" }] })
    ).body.messages[0];
    expect(reacted.reactions).toContainEqual(
      expect.objectContaining({ emoji_name: "import_party", emoji_code: String(party.id), reaction_type: "realm_emoji" }),
    );

    const topics = async (db: AppContext["db"]["kysely"], realmId: number) =>
      (
        await db
          .selectFrom("user_topics")
          .innerJoin("streams", "streams.id", "user_topics.stream_id")
          .innerJoin("users", "users.id", "user_topics.user_id")
          .select(["users.delivery_email", "streams.name", "user_topics.topic_name", "user_topics.visibility_policy"])
          .where("streams.realm_id", "=", realmId)
          .execute()
      ).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const sourceRealm = (await t.ctx.db.kysely.selectFrom("realms").select("id").where("string_id", "=", "zulip").executeTakeFirstOrThrow()).id;
    const topics1 = await topics(t.ctx.db.kysely, sourceRealm);
    expect(topics1).toContainEqual({ delivery_email: "hamlet@zulip.com", name: "imported room", topic_name: "greetings", visibility_policy: 1 });
    expect(await topics(ctx2.db.kysely, ctx2Realm())).toEqual(topics1);
  });

  it("continues an interrupted import without duplicating anything", async () => {
    const interrupted = await parley(["import", "zulip", tarball, "--string-id", "resumed", "--batch-size", "2"], {
      PARLEY_IMPORT_TEST_FAIL_AFTER_BATCHES: "3",
    });
    expect(interrupted.code).toBe(1);
    const realm = await ctx2.db.kysely.selectFrom("realms").select(["id", "deactivated"]).where("string_id", "=", "resumed").executeTakeFirstOrThrow();
    expect(realm.deactivated).toBe(1);
    const count = async () =>
      Number(
        (
          await ctx2.db.kysely
            .selectFrom("messages")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("realm_id", "=", realm.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count()).toBe(6);

    const again = await parley(["import", "zulip", tarball, "--string-id", "resumed", "--batch-size", "2"]);
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("Continuing the interrupted import");
    const original = await ctx2.db.kysely.selectFrom("realms").select("id").where("string_id", "=", "zulip").executeTakeFirstOrThrow();
    const total = Number(
      (
        await ctx2.db.kysely
          .selectFrom("messages")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("realm_id", "=", original.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(await count()).toBe(total);
    const reactions = (id: number) =>
      ctx2.db.kysely
        .selectFrom("reactions")
        .innerJoin("messages", "messages.id", "reactions.message_id")
        .select("reactions.emoji_name")
        .where("messages.realm_id", "=", id)
        .execute();
    expect((await reactions(realm.id)).length).toBe((await reactions(original.id)).length);
    const active = await ctx2.db.kysely.selectFrom("realms").select("deactivated").where("id", "=", realm.id).executeTakeFirstOrThrow();
    expect(active.deactivated).toBe(0);

    // A process killed (SIGKILL) in the middle of the messages: the run continues just as well.
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
    const child = spawn(process.execPath, [...PARLEY_CLI, "import", "zulip", tarball, "--string-id", "killed", "--batch-size", "1"], {
      cwd: REPO_ROOT,
      env: { ...base, ...env2, PARLEY_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (d) => {
        out += d;
        if (/messages: 4\//.test(out)) {
          child.kill("SIGKILL");
          resolve();
        }
      }),
    );
    expect(await exited).toBe("SIGKILL");
    const killed = await ctx2.db.kysely.selectFrom("realms").select(["id", "deactivated"]).where("string_id", "=", "killed").executeTakeFirstOrThrow();
    expect(killed.deactivated).toBe(1);
    const resumedKilled = await parley(["import", "zulip", tarball, "--string-id", "killed", "--batch-size", "3"]);
    expect(resumedKilled.stderr).toBe("");
    expect(resumedKilled.stdout).toContain("Continuing the interrupted import");
    const killedCount = Number(
      (
        await ctx2.db.kysely
          .selectFrom("messages")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("realm_id", "=", killed.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(killedCount).toBe(total);

    const twice = await parley(["import", "zulip", tarball, "--string-id", "resumed"]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('organization "resumed" has been imported already');
  });
});
