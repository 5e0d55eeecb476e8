import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yazl from "yazl";
import { buildApp, createContext } from "../../src/app.js";
import type { AppContext } from "../../src/appContext.js";
import { loadConfig } from "../../src/config.js";
import { importSlackArchive } from "../../src/actions/import/slack.js";
import { closeSlackArchive, readSlackArchive } from "../../src/lib/import/slackArchive.js";
import { PARLEY_CLI, REPO_ROOT, runParley } from "../support/process.js";
import { type FreshDatabase, freshDatabase } from "../support/testDb.js";
import { basicAuth } from "../support/auth.js";
import { at } from "../support/at.js";

// `parley import slack`: exports in Slack's layout, generated here (users.json, channels.json,
// <channel>/<YYYY-MM-DD>.json, __uploads/<file id>/<name>), imported by the command line into a
// fresh database and checked through the API; damaged exports refused with nothing imported; an
// interrupted import (test hook, then kill -9) continued without duplicates.

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "parley-slack-import-"));
let target: FreshDatabase;
let env: Record<string, string> = {};
let ctx: AppContext;
let app: FastifyInstance;
let baseUrl = "";

const ts = (date: string, seconds: number) => `${Date.parse(`${date}T10:00:00Z`) / 1000 + seconds}.000100`;
const ROOT_TS = ts("2024-05-20", 60);

const users = [
  {
    id: "U01",
    name: "alice",
    real_name: "Alice Adams",
    is_primary_owner: true,
    is_owner: true,
    is_admin: true,
    tz: "Europe/Paris",
    profile: { email: "alice@example.com", real_name: "Alice Adams" },
  },
  { id: "U02", name: "bob", real_name: "Bob Builder", is_admin: true, profile: { email: "bob@example.com", real_name: "Bob Builder" } },
  { id: "U03", name: "carol", real_name: "Carol Guest", is_restricted: true, profile: { email: "carol@example.com" } },
  { id: "U04", name: "dave", real_name: "Dave Gone", deleted: true, profile: { email: "dave@example.com" } },
  { id: "U05", name: "deploybot", real_name: "Deploy Bot", is_bot: true, profile: { bot_id: "B05", real_name: "Deploy Bot" } },
];
const channels = [
  {
    id: "C01",
    name: "general",
    is_general: true,
    created: 1700000000,
    creator: "U01",
    members: ["U01", "U02", "U03", "U04"],
    purpose: { value: "Company-wide" },
  },
  { id: "C02", name: "random", created: 1700000100, creator: "U02", members: ["U01", "U02"], purpose: { value: "Anything goes" } },
];
const general20 = [
  {
    type: "message",
    user: "U01",
    ts: ts("2024-05-20", 1),
    text: "Hi *team*, _please_ ~ignore~ <@U02> and see <#C02|random> or <https://example.com|the site> &amp; <!here>",
  },
  { type: "message", subtype: "channel_join", user: "U03", ts: ts("2024-05-20", 2), text: "<@U03> has joined the channel" },
  { type: "message", user: "U01", ts: ROOT_TS, thread_ts: ROOT_TS, reply_count: 2, text: "Deploy plan for today" },
  {
    type: "message",
    user: "U02",
    ts: ts("2024-05-20", 120),
    text: "Looks great",
    reactions: [
      { name: "thumbsup", users: ["U01", "U03"], count: 2 },
      { name: "thumbsup::skin-tone-2", users: ["U01"], count: 1 },
      { name: "tada", users: ["U02"], count: 1 },
      { name: "custom_party", users: ["U01"], count: 1 },
    ],
  },
  {
    type: "message",
    user: "U03",
    ts: ts("2024-05-20", 180),
    text: "Notes attached",
    files: [
      {
        id: "F01",
        name: "notes.txt",
        title: "Meeting notes",
        mimetype: "text/plain",
        size: 22,
        url_private: "https://files.slack.com/files-pri/T1-F01/notes.txt",
      },
      { id: "F02", name: "photo.png", title: "Photo", mimetype: "image/png", size: 100, url_private: "https://files.slack.com/files-pri/T1-F02/photo.png" },
    ],
  },
  { type: "message", subtype: "bot_message", bot_id: "B99", username: "ci", ts: ts("2024-05-20", 240), text: "Build *passed*" },
  { type: "message", subtype: "bot_message", bot_id: "B05", ts: ts("2024-05-20", 300), text: "Deployed v2" },
];
const general21 = [
  { type: "message", user: "U02", ts: ts("2024-05-21", 1), thread_ts: ROOT_TS, parent_user_id: "U01", text: "Sounds good" },
  { type: "message", user: "U04", ts: ts("2024-05-21", 2), text: "`*not bold*` in code" },
];
const random21 = Array.from({ length: 12 }, (_, i) => ({ type: "message", user: i % 2 ? "U01" : "U02", ts: ts("2024-05-21", 10 + i), text: `random ${i}` }));

function zip(file: string, entries: Record<string, string | Buffer>): Promise<void> {
  return new Promise((resolve, reject) => {
    const z = new yazl.ZipFile();
    for (const [name, data] of Object.entries(entries)) z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
    z.outputStream.pipe(fs.createWriteStream(file)).on("close", resolve).on("error", reject);
    z.end();
  });
}

const json = (value: unknown) => JSON.stringify(value, null, 1);
const GOOD: Record<string, string> = {
  "users.json": json(users),
  "channels.json": json(channels),
  "groups.json": json([{ id: "G01", name: "secret", created: 1700000200, creator: "U01", members: ["U01", "U02"], purpose: { value: "Plans" } }]),
  "dms.json": json([{ id: "D01", members: ["U01", "U02"] }]),
  "mpims.json": json([{ id: "G02", name: "mpdm-alice--bob--carol-1", members: ["U01", "U02", "U03"] }]),
  "D01/2024-05-21.json": json([{ type: "message", user: "U01", ts: ts("2024-05-21", 40), text: "Just between <@U02> and me" }]),
  "mpdm-alice--bob--carol-1/2024-05-21.json": json([{ type: "message", user: "U03", ts: ts("2024-05-21", 50), text: "Hello both" }]),
  "integration_logs.json": "[]",
  "general/2024-05-20.json": json(general20),
  "general/2024-05-21.json": json(general21),
  "random/2024-05-21.json": json(random21),
  "secret/2024-05-21.json": json([{ type: "message", user: "U02", ts: ts("2024-05-21", 30), text: "Between us, see <#C01|general>" }]),
  "__uploads/F01/notes.txt": "imported file contents",
};
const good = path.join(scratch, "Acme Slack export.zip");

beforeAll(async () => {
  target = await freshDatabase();
  env = target.database.kind === "sqlite" ? { ...target.env, PARLEY_DATABASE_URL: `sqlite:${target.database.file}` } : target.env;
  env = { ...env, PARLEY_LOG_LEVEL: "warn", PARLEY_EXTERNAL_URL: "http://parley.test" };
  await zip(good, GOOD);
});

afterAll(async () => {
  if (app) await app.close();
  if (ctx) await ctx.db.close();
  await target?.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function startServer(): Promise<void> {
  const config = { ...loadConfig({ PARLEY_INSECURE_FAST_HASHING: "1", PARLEY_LOG_LEVEL: "silent" }), database: target.database, dataDir: target.dataDir };
  ctx = await createContext(config, pino({ level: "silent" }));
  app = await buildApp(ctx);
  await app.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function get(email: string, urlPath: string, params: Record<string, unknown> = {}, realm = "acme"): Promise<any> {
  const user = await ctx.db.kysely
    .selectFrom("users")
    .innerJoin("realms", "realms.id", "users.realm_id")
    .select(["users.email", "users.api_key"])
    .where("users.delivery_email", "=", email)
    .where("realms.string_id", "=", realm)
    .executeTakeFirstOrThrow();
  const url = new URL(baseUrl + urlPath);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const res = await fetch(url, { headers: { Authorization: basicAuth(user.email, user.api_key) } });
  const body = res.headers.get("content-type")?.includes("json") ? await res.json() : Buffer.from(await res.arrayBuffer()).toString();
  return { status: res.status, body };
}

const realmMessages = async (stringId: string) =>
  ctx.db.kysely
    .selectFrom("messages")
    .innerJoin("realms", "realms.id", "messages.realm_id")
    .select(["messages.subject", "messages.content", "messages.date_sent"])
    .where("realms.string_id", "=", stringId)
    .orderBy("messages.id")
    .execute();

describe("parley import slack", { timeout: 120_000 }, () => {
  it("refuses damaged or foreign archives with a clear error, importing nothing", async () => {
    const truncated = path.join(scratch, "truncated.zip");
    const bytes = fs.readFileSync(good);
    fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    const cut = await runParley(["import", "slack", truncated, "--string-id", "cut"], env);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/cannot import: .*truncated\.zip is not a complete \.zip archive.*Nothing was imported/);

    // The other checks, in this process (the command line prints them as above).
    const refusal = (file: string) =>
      readSlackArchive(file).then(
        () => "accepted",
        (error: Error) => `${error.constructor.name}: ${error.message}`,
      );
    const noUsers = path.join(scratch, "nousers.zip");
    await zip(noUsers, { "channels.json": "[]" });
    expect(await refusal(noUsers)).toBe("SlackArchiveError: the export has no users.json: is it a Slack export?");
    const badDay = path.join(scratch, "badday.zip");
    await zip(badDay, { ...GOOD, "general/2024-05-21.json": '[{"ts": "1.0", "text": "cut' });
    expect(await refusal(badDay)).toMatch(/^SlackArchiveError: general\/2024-05-21\.json is not valid JSON/);
    const badChannels = path.join(scratch, "badchannels.zip");
    await zip(badChannels, { ...GOOD, "channels.json": json([{ id: "C01" }]) });
    expect(await refusal(badChannels)).toBe('SlackArchiveError: channels.json: entry 0 lacks an "id" and a "name"');
    const badDms = path.join(scratch, "baddms.zip");
    await zip(badDms, { ...GOOD, "dms.json": json([{ id: "D01", members: "U01,U02" }]) });
    expect(await refusal(badDms)).toBe('SlackArchiveError: dms.json: entry 0 lacks an "id" and "members"');
    const badMessage = path.join(scratch, "badmessage.zip");
    await zip(badMessage, { ...GOOD, "random/2024-05-21.json": json([{ text: "no ts" }]) });
    expect(await refusal(badMessage)).toBe('SlackArchiveError: random/2024-05-21.json: entry 0 lacks a "ts"');
    const notZip = path.join(scratch, "notzip.zip");
    fs.writeFileSync(notZip, "this is not a zip file at all");
    expect(await refusal(notZip)).toMatch(/^SlackArchiveError: .*notzip\.zip is not a complete \.zip archive/);
    expect(await refusal(good)).toBe("accepted");
  });

  it("imports users, channels, members, messages, threads, reactions and files; the API answers", async () => {
    const done = await runParley(["import", "slack", good, "--name", "Acme"], env);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("The export holds 5 users, 2 public and 1 private channels, 2 direct-message conversations, 24 messages in 2 days, 1 files.");
    expect(done.stdout).toMatch(/messages: 24\/24 \(\d+ messages\/s\)/);
    expect(done.stdout).toContain('Imported organization "acme-slack-export"');
    expect(done.stdout).not.toMatch(/(groups|dms|mpims)\.json/);
    expect(done.stdout).toContain("messages (1): Slack's channel_join notices");
    expect(done.stdout).toContain("files (1): the export lacks them");
    expect(done.stdout).toContain("reactions (1): custom or unknown emoji");
    await startServer();

    // Nothing was left by the refused imports.
    const realms = await ctx.db.kysely.selectFrom("realms").select(["string_id", "name", "deactivated"]).execute();
    expect(realms).toEqual([{ string_id: "acme-slack-export", name: "Acme", deactivated: 0 }]);
    const realm = "acme-slack-export";

    const members = (await get("alice@example.com", "/api/v1/users", {}, realm)).body.members;
    const person = (name: string) => members.find((u: any) => u.full_name === name);
    expect(person("Alice Adams")).toMatchObject({ email: "alice@example.com", role: 100, is_bot: false, is_active: true, timezone: "Europe/Paris" });
    expect(person("Bob Builder")).toMatchObject({ role: 200, is_active: true });
    expect(person("Carol Guest")).toMatchObject({ role: 600, is_active: true });
    expect(person("Dave Gone")).toMatchObject({ is_active: false });
    expect(person("Deploy Bot")).toMatchObject({ is_bot: true, email: "deploybot-bot@parley.test" });
    expect(person("ci")).toMatchObject({ is_bot: true });

    const streams = (await get("alice@example.com", "/api/v1/streams", {}, realm)).body.streams;
    expect(streams.map((s: any) => [s.name, s.description, s.invite_only, s.history_public_to_subscribers]).sort()).toEqual([
      ["general", "Company-wide", false, true],
      ["random", "Anything goes", false, true],
      ["secret", "Plans", true, true],
    ]);
    const subs = async (email: string) => (await get(email, "/api/v1/users/me/subscriptions", {}, realm)).body.subscriptions.map((s: any) => s.name).sort();
    expect(await subs("bob@example.com")).toEqual(["general", "random", "secret"]);
    expect(await subs("carol@example.com")).toEqual(["general"]);
    // The private channel's messages: its members read them, nobody else sees the channel or them.
    const inSecret = (email: string) =>
      get(email, "/api/v1/messages", { anchor: "oldest", num_before: 0, num_after: 10, narrow: [{ operator: "channel", operand: "secret" }] }, realm);
    const secret = (await inSecret("bob@example.com")).body.messages;
    expect(secret.map((m: any) => [m.sender_full_name, m.content, m.subject])).toEqual([
      ["Bob Builder", expect.stringContaining("Between us, see"), "imported from Slack"],
    ]);
    expect(secret[0].content).toMatch(/class="stream" data-stream-id="\d+"/);
    expect((await get("carol@example.com", "/api/v1/streams", {}, realm)).body.streams.map((s: any) => s.name)).not.toContain("secret");
    const outsider = await inSecret("carol@example.com");
    expect(outsider.status).toBe(400);
    expect(outsider.body.code).toBe("BAD_NARROW");
    const defaults = await ctx.db.kysely
      .selectFrom("default_streams")
      .innerJoin("streams", "streams.id", "default_streams.stream_id")
      .select("streams.name")
      .execute();
    expect(defaults).toEqual([{ name: "general" }]);

    const bob = person("Bob Builder");
    const narrow = (apply_markdown: boolean) => ({
      anchor: "oldest",
      num_before: 0,
      num_after: 100,
      apply_markdown,
      narrow: [{ operator: "channel", operand: "general" }],
    });
    const raw = (await get("bob@example.com", "/api/v1/messages", narrow(false), realm)).body.messages;
    const html = (await get("bob@example.com", "/api/v1/messages", narrow(true), realm)).body.messages;
    expect(raw.map((m: any) => m.content)).toEqual([
      `Hi **team**, *please* ~~ignore~~ @**Bob Builder|${bob.user_id}** and see #**random** or [the site](https://example.com) & @**all**`,
      "Deploy plan for today",
      "Looks great",
      expect.stringMatching(/^Notes attached\n\[Meeting notes\]\(\/user_uploads\/\d+\/[0-9a-f]{2}\/[\w-]{24}\/notes\.txt\)$/),
      "Build **passed**",
      "Deployed v2",
      "Sounds good",
      "`*not bold*` in code",
    ]);
    expect(raw.map((m: any) => m.subject)).toEqual([
      "imported from Slack",
      "2024-05-20 Deploy plan for today",
      "imported from Slack",
      "imported from Slack",
      "imported from Slack",
      "imported from Slack",
      "2024-05-20 Deploy plan for today",
      "imported from Slack",
    ]);
    expect(raw.map((m: any) => m.sender_full_name)).toEqual([
      "Alice Adams",
      "Alice Adams",
      "Bob Builder",
      "Carol Guest",
      "ci",
      "Deploy Bot",
      "Bob Builder",
      "Dave Gone",
    ]);
    expect(raw[0].timestamp).toBe(Math.floor(Number(at(general20, 0).ts)));
    expect(html[0].content).toContain("<strong>team</strong>");
    expect(html[0].content).toContain("<em>please</em>");
    expect(html[0].content).toContain("<del>ignore</del>");
    expect(html[0].content).toContain(`data-user-id="${bob.user_id}"`);
    expect(html[0].content).toMatch(/class="stream" data-stream-id="\d+"/);
    expect(html[0].content).toContain('href="https://example.com"');
    expect(html[0].flags).toEqual(expect.arrayContaining(["read", "mentioned"]));
    expect(html[7].content).toContain("<code>*not bold*</code>");

    const reactions = raw[2].reactions.map((r: any) => [r.emoji_name, r.emoji_code, r.user_id]).sort();
    const alice = person("Alice Adams").user_id;
    const carol = person("Carol Guest").user_id;
    expect(reactions).toEqual(
      [
        ["+1", "1f44d", alice],
        ["+1", "1f44d", carol],
        ["tada", "1f389", bob.user_id],
      ].sort(),
    );

    const link = at(/\((\/user_uploads\/[^)]+)\)/.exec(raw[3].content)!, 1);
    const file = await get("bob@example.com", link, {}, realm);
    expect(file.status).toBe(200);
    expect(file.body).toBe("imported file contents");
    expect(html[3].content).toContain(`href="${link}"`);

    const randomMessages = (
      await get("alice@example.com", "/api/v1/messages", { ...narrow(false), narrow: [{ operator: "channel", operand: "random" }] }, realm)
    ).body.messages;
    expect(randomMessages.map((m: any) => m.content)).toEqual(random21.map((m) => m.text));
    // Direct messages: a 1:1 conversation and a group one, each seen by its people only, read, mentions flagged.
    const dms = async (email: string) =>
      (
        await get(
          email,
          "/api/v1/messages",
          { anchor: "oldest", num_before: 0, num_after: 10, apply_markdown: false, narrow: [{ operator: "is", operand: "dm" }] },
          realm,
        )
      ).body.messages;
    const [aliceId, carolId] = [person("Alice Adams").user_id, person("Carol Guest").user_id];
    const shape = (m: any) => [m.sender_full_name, m.content, m.display_recipient.map((u: any) => u.id).sort((a: number, b: number) => a - b), m.subject];
    const oneToOne = ["Alice Adams", `Just between @**Bob Builder|${bob.user_id}** and me`, [aliceId, bob.user_id].sort((a, b) => a - b), ""];
    const group = ["Carol Guest", "Hello both", [aliceId, bob.user_id, carolId].sort((a, b) => a - b), ""];
    expect((await dms("alice@example.com")).map(shape)).toEqual([oneToOne, group]);
    const bobs = await dms("bob@example.com");
    expect(bobs.map(shape)).toEqual([oneToOne, group]);
    expect(bobs[0].flags).toEqual(expect.arrayContaining(["read", "mentioned"]));
    expect((await dms("carol@example.com")).map(shape)).toEqual([group]);

    const topics = (await get("alice@example.com", `/api/v1/users/me/${streams.find((s: any) => s.name === "general").stream_id}/topics`, {}, realm)).body
      .topics;
    expect(topics.map((t: any) => t.name).sort()).toEqual(["2024-05-20 Deploy plan for today", "imported from Slack"]);
  });

  it("continues an interrupted import (an error, then kill -9) without duplicating anything", async () => {
    // The same messages but for the ids the content names (mentioned users, uploads).
    const normalized = async (stringId: string) =>
      (await realmMessages(stringId)).map((m) => ({ ...m, content: m.content.replace(/\/user_uploads\/\d+\/[^)]+/, "upload").replace(/\|\d+\*\*/g, "|id**") }));
    const expected = await normalized("acme-slack-export");
    const same = async (stringId: string) => expect(await normalized(stringId)).toEqual(expected);

    // Interrupted by an error after three batches (in this process), then continued.
    const archive = await readSlackArchive(good);
    try {
      const run = (batchSize: number, failAfterBatches?: number) => importSlackArchive(ctx, archive, { stringId: "resumed", batchSize, failAfterBatches });
      await expect(run(2, 3)).rejects.toThrow("import interrupted after 3 batches (test hook)");
      const realm = await ctx.db.kysely.selectFrom("realms").select(["id", "deactivated"]).where("string_id", "=", "resumed").executeTakeFirstOrThrow();
      expect(realm.deactivated).toBe(1);
      expect((await realmMessages("resumed")).length).toBe(5);
      expect((await run(5)).resumed).toBe(true);
      await expect(run(5)).rejects.toThrow('organization "resumed" has been imported already');
    } finally {
      closeSlackArchive(archive);
    }
    await same("resumed");
    const reactionCount = async (stringId: string) =>
      Number(
        (
          await ctx.db.kysely
            .selectFrom("reactions")
            .innerJoin("messages", "messages.id", "reactions.message_id")
            .innerJoin("realms", "realms.id", "messages.realm_id")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("realms.string_id", "=", stringId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await reactionCount("resumed")).toBe(3);
    expect((await ctx.db.kysely.selectFrom("realms").select("deactivated").where("string_id", "=", "resumed").executeTakeFirstOrThrow()).deactivated).toBe(0);

    // Killed (SIGKILL) in the middle of the messages: the run continues just as well.
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
    const child = spawn(process.execPath, [...PARLEY_CLI, "import", "slack", good, "--string-id", "killed", "--batch-size", "1"], {
      cwd: REPO_ROOT,
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (d) => {
        out += d;
        if (/messages: 6\//.test(out)) {
          child.kill("SIGKILL");
          resolve();
        }
      }),
    );
    expect(await exited).toBe("SIGKILL");
    const killed = await ctx.db.kysely.selectFrom("realms").select("deactivated").where("string_id", "=", "killed").executeTakeFirstOrThrow();
    expect(killed.deactivated).toBe(1);
    const resumedKilled = await runParley(["import", "slack", good, "--string-id", "killed", "--batch-size", "3"], env);
    expect(resumedKilled.stderr).toBe("");
    expect(resumedKilled.stdout).toContain("Continuing the interrupted import");
    await same("killed");
    expect(await reactionCount("killed")).toBe(3);
  });
});
