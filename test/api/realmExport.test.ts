import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tar from "tar";
import { afterAll, describe, expect, it } from "vitest";
import { ExportStatus, ExportType } from "../../src/models/realmExport.js";
import { PARLEY_CLI, REPO_ROOT } from "../support/process.js";
import { addRealmEmoji, PNG, uploadFile } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { defined } from "../../src/util/defined.js";

// Data exports (Zulip's /export/realm): the API, the durable job and its tarball in the layout of
// Zulip's `manage.py export`, the admin-only download, and `parley export`.

const t = useTestServer();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "parley-export-test-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The tables of an export file that the tests read (JSON.parse's rows; a missing one fails at its use). */
type Tables<Name extends string> = Record<Name, any[]>;
type RealmTable =
  | "zerver_realm"
  | "zerver_reaction"
  | "zerver_realmemoji"
  | "zerver_stream"
  | "zerver_usergroupmembership"
  | "zerver_userprofile"
  | "zerver_userprofile_crossrealm";
interface Extracted {
  root: string;
  realm: Tables<RealmTable>;
  messages: Tables<"zerver_message" | "zerver_usermessage">;
  attachment: Tables<"zerver_attachment">;
  file: (relative: string) => string;
}

/** Extracts a tarball with the tar library; the export is its one directory. */
async function extract(tarball: string): Promise<Extracted> {
  const dir = fs.mkdtempSync(path.join(scratch, "x-"));
  await tar.extract({ file: tarball, cwd: dir });
  const [top, ...more] = fs.readdirSync(dir);
  expect(more).toEqual([]);
  const root = path.join(dir, defined(top, "the export's directory"));
  const json = (name: string) => JSON.parse(fs.readFileSync(path.join(root, name), "utf8"));
  const messageFiles = fs
    .readdirSync(root)
    .filter((f) => /^messages-\d{6}\.json$/.test(f))
    .sort();
  const messages: Extracted["messages"] = { zerver_message: [], zerver_usermessage: [] };
  for (const f of messageFiles) {
    const data = json(f);
    messages.zerver_message.push(...data.zerver_message);
    messages.zerver_usermessage.push(...data.zerver_usermessage);
  }
  return { root, realm: json("realm.json"), messages, attachment: json("attachment.json"), file: (relative) => path.join(root, relative) };
}

async function download(who: string | null, url: string): Promise<Response> {
  const headers: Record<string, string> = who === null ? {} : { Authorization: await t.authHeader(who) };
  return fetch(url.replace("http://localhost:9991", t.baseUrl), { headers });
}

async function downloadTo(url: string): Promise<string> {
  const res = await download("iago", url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/gzip");
  const file = path.join(scratch, `dl-${Date.now()}-${Math.random().toString(36).slice(2)}.tar.gz`);
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

const send = async (who: string, params: Record<string, string>) => expectSuccess(await t.post(who, "/api/v1/messages", params)).id as number;
const listExports = async () => expectSuccess(await t.get("iago", "/api/v1/export/realm")).exports as any[];

/** Requests an export as iago and runs its job; returns the export's id and events. */
async function exportAs(type: number) {
  const { result: id, events } = await t.captureEvents(async () => {
    const body = expectSuccess(await t.post("iago", "/api/v1/export/realm", { export_type: type }));
    await t.drainJobs();
    return body.id as number;
  });
  return { id, events };
}

let publicMessage = 0;
let privateChannelMessage = 0;
let directToConsenting = 0;
let directBetweenOthers = 0;
let uploadPath = "";

describe("data exports", () => {
  it("only administrators may export, list, delete exports or read consents", async () => {
    expectError(await t.post("hamlet", "/api/v1/export/realm", {}), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.get("hamlet", "/api/v1/export/realm"), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.delete("hamlet", "/api/v1/export/realm/1"), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.get("hamlet", "/api/v1/export/realm/consents"), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.post("iago", "/api/v1/export/realm", { export_type: 3 }), 400, "Invalid export_type");
    expect(await listExports()).toEqual([]);
  });

  it("lists each active human's consent, and follows changes", async () => {
    const hamlet = await t.user("hamlet");
    expectSuccess(await t.patch("hamlet", "/api/v1/settings", { allow_private_data_export: true }));
    const consents = expectSuccess(await t.get("iago", "/api/v1/export/realm/consents")).export_consents as Array<{ user_id: number; consented: boolean }>;
    expect(consents).toContainEqual({ user_id: hamlet.id, consented: true });
    expect(consents).toContainEqual({ user_id: (await t.user("othello")).id, consented: false });
    const bots = await t.ctx.db.kysely.selectFrom("users").select("id").where("is_bot", "=", 1).execute();
    expect(consents.filter((c) => bots.some((b) => b.id === c.user_id))).toEqual([]);
  });

  it("a public export has the public channels' messages, their reactions and uploads, and no private data", async () => {
    expectSuccess(await t.patch("hamlet", "/api/v1/settings", { allow_private_data_export: true }));
    uploadPath = await uploadFile(t, "hamlet", "notes.txt", "exported file contents");
    await addRealmEmoji(t, "export_party", { who: "hamlet" });
    publicMessage = await send("hamlet", { type: "stream", to: "Denmark", topic: "export", content: `public words [notes.txt](${uploadPath})` });
    expectSuccess(await t.post("othello", `/api/v1/messages/${publicMessage}/reactions`, { emoji_name: "octopus" }));
    privateChannelMessage = await send("iago", { type: "stream", to: "core team", topic: "export", content: "private channel words" });
    const hamlet = await t.user("hamlet");
    const othello = await t.user("othello");
    const cordelia = await t.user("cordelia");
    directToConsenting = await send("othello", { type: "direct", to: JSON.stringify([hamlet.id]), content: "direct words to hamlet" });
    directBetweenOthers = await send("othello", { type: "direct", to: JSON.stringify([cordelia.id]), content: "direct words to cordelia" });

    const { id, events } = await exportAs(ExportType.PUBLIC);
    const exportEvents = events.filter((e) => e.event.type === "realm_export");
    // Requested (pending), then completed: each time the whole list, to the administrators only.
    expect(exportEvents.map((e) => (e.event as any).exports.at(-1).pending)).toEqual([true, false]);
    const iago = await t.user("iago");
    for (const e of exportEvents) {
      expect(e.users).toContain(iago.id);
      expect(e.users).not.toContain(hamlet.id);
    }
    // The requester is told by the Notification Bot.
    const notices = events.filter((e) => e.event.type === "message" && (e.event as any).message.content.includes("Your data export is complete"));
    expect(notices.flatMap((e) => e.users)).toContain(iago.id);

    const [listed] = (await listExports()).filter((e) => e.id === id);
    expect(listed).toMatchObject({
      id,
      acting_user_id: iago.id,
      pending: false,
      deleted_timestamp: null,
      failed_timestamp: null,
      export_type: ExportType.PUBLIC,
    });
    expect(listed.export_url).toMatch(/^http:\/\/localhost:9991\/user_avatars\/exports\/\d+\/[A-Za-z0-9_-]+\/zulip-export-[0-9a-f]+\.tar\.gz$/);

    const x = await extract(await downloadTo(listed.export_url));
    expect(x.realm.zerver_realm).toEqual([expect.objectContaining({ string_id: "zulip" })]);
    const users = x.realm.zerver_userprofile;
    expect(users.map((u) => u.delivery_email)).toEqual(expect.arrayContaining(["hamlet@zulip.com", "iago@zulip.com"]));
    for (const u of users) {
      expect(u).not.toHaveProperty("api_key");
      expect(u).not.toHaveProperty("password_hash");
    }
    expect(users.find((u) => u.id === hamlet.id).allow_private_data_export).toBe(true);
    expect(x.realm.zerver_stream.map((s) => s.name)).toEqual(expect.arrayContaining(["Denmark", "core team"]));
    for (const table of [
      "zerver_recipient",
      "zerver_subscription",
      "zerver_usergroup",
      "zerver_namedusergroup",
      "zerver_usergroupmembership",
      "zerver_defaultstream",
      "zerver_customprofilefield",
      "zerver_realmemoji",
      "zerver_usertopic",
      "zerver_client",
      "zerver_huddle",
      "zerver_realmauditlog",
    ]) {
      expect(x.realm, table).toHaveProperty(table);
    }
    expect(x.realm.zerver_usergroupmembership.length).toBeGreaterThan(0);
    expect(x.realm.zerver_userprofile_crossrealm.map((b) => b.email)).toContain("notification-bot@zulip.com");

    const messageIds = x.messages.zerver_message.map((m) => m.id);
    expect(messageIds).toContain(publicMessage);
    expect(messageIds).not.toContain(privateChannelMessage);
    expect(messageIds).not.toContain(directToConsenting);
    expect(messageIds).not.toContain(directBetweenOthers);
    expect(messageIds).toEqual([...messageIds].sort((a, b) => a - b));
    const exported = x.messages.zerver_message.find((m) => m.id === publicMessage);
    expect(exported).toMatchObject({ sender: hamlet.id, subject: "export", content: expect.stringContaining("public words") });
    // Every receiver's copy of a public message, with Zulip's flags bitmask.
    expect(x.messages.zerver_usermessage.filter((um) => um.message === publicMessage).map((um) => um.user_profile)).toEqual(
      expect.arrayContaining([hamlet.id, othello.id]),
    );
    expect(x.realm.zerver_reaction).toContainEqual(expect.objectContaining({ message: publicMessage, user_profile: othello.id, emoji_name: "octopus" }));
    expect(x.realm.zerver_reaction.every((r) => messageIds.includes(r.message))).toBe(true);

    const pathId = uploadPath.replace("/user_uploads/", "");
    expect(x.attachment.zerver_attachment).toEqual([expect.objectContaining({ path_id: pathId, owner: hamlet.id, messages: [publicMessage] })]);
    const records = JSON.parse(fs.readFileSync(x.file("uploads/records.json"), "utf8"));
    expect(records).toEqual([expect.objectContaining({ path: pathId, user_profile_id: hamlet.id, realm_id: hamlet.realm_id })]);
    expect(fs.readFileSync(x.file(`uploads/${pathId}`), "utf8")).toBe("exported file contents");
    const [emoji] = x.realm.zerver_realmemoji.filter((e) => e.name === "export_party");
    expect(emoji).toMatchObject({ author: hamlet.id, realm: hamlet.realm_id, deactivated: false });
    const emojiPath = `${hamlet.realm_id}/emoji/images/${emoji.file_name}`;
    expect(JSON.parse(fs.readFileSync(x.file("emoji/records.json"), "utf8"))).toEqual([
      expect.objectContaining({ path: emojiPath, name: "export_party", author: hamlet.id }),
    ]);
    expect(fs.readFileSync(x.file(`emoji/${emojiPath}`))).toEqual(PNG);
    for (const folder of ["avatars", "realm_icons"]) expect(JSON.parse(fs.readFileSync(x.file(`${folder}/records.json`), "utf8"))).toEqual([]);
    const stats = JSON.parse(fs.readFileSync(x.file("stats.json"), "utf8"));
    expect(stats.realm.zerver_userprofile).toBe(users.length);
  });

  it("the download URL serves the tarball to the organization's administrators only", async () => {
    const [listed] = (await listExports()).filter((e) => e.export_url !== null);
    expect((await download("hamlet", listed.export_url)).status).toBe(403);
    expect((await download("polonius", listed.export_url)).status).toBe(403);
    expect((await download(null, listed.export_url)).status).toBe(401);
    expect((await download("desdemona", listed.export_url)).status).toBe(200);
    expect((await download("iago", listed.export_url.replace(/[^/]+\.tar\.gz$/, "zulip-export-000000000000.tar.gz"))).status).toBe(404);
  });

  it("a full export with consent adds what consenting users could read, and their direct messages", async () => {
    const hamlet = await t.user("hamlet");
    const { id } = await exportAs(ExportType.FULL_WITH_CONSENT);
    const [listed] = (await listExports()).filter((e) => e.id === id);
    expect(listed).toMatchObject({ pending: false, export_type: ExportType.FULL_WITH_CONSENT });
    const x = await extract(await downloadTo(listed.export_url));
    const messageIds = x.messages.zerver_message.map((m) => m.id);
    expect(messageIds).toEqual(expect.arrayContaining([publicMessage, privateChannelMessage, directToConsenting]));
    expect(messageIds).not.toContain(directBetweenOthers);
    // Only consenting users' message flags are exported.
    expect(new Set(x.messages.zerver_usermessage.map((um) => um.user_profile))).toEqual(new Set([hamlet.id]));
  });

  it("deletes a finished export and its file; refuses what cannot be deleted", async () => {
    const [listed] = (await listExports()).filter((e) => e.export_type === ExportType.PUBLIC);
    const row = await t.ctx.db.kysely.selectFrom("realm_exports").selectAll().where("id", "=", listed.id).executeTakeFirstOrThrow();
    expect(await t.ctx.blobs.get(row.export_path!)).toBeDefined();
    const { events } = await t.captureEvents(async () => {
      expectSuccess(await t.delete("iago", `/api/v1/export/realm/${listed.id}`));
      await t.drainJobs();
    });
    expect(events.filter((e) => e.event.type === "realm_export")).toHaveLength(1);
    const [after] = (await listExports()).filter((e) => e.id === listed.id);
    expect(after).toMatchObject({ export_url: null, pending: false });
    expect(after.deleted_timestamp).toEqual(expect.any(Number));
    expect(await t.ctx.blobs.get(row.export_path!)).toBeUndefined();
    expect((await download("iago", listed.export_url)).status).toBe(404);

    expectError(await t.delete("iago", `/api/v1/export/realm/${listed.id}`), 400, "Export already deleted");
    expectError(await t.delete("iago", "/api/v1/export/realm/99999"), 400, "Invalid data export ID");
    const realmId = (await t.user("iago")).realm_id;
    const insert = (status: number) =>
      t.ctx.db.kysely
        .insertInto("realm_exports")
        .values({ realm_id: realmId, acting_user_id: null, type: ExportType.PUBLIC, status, date_requested: 0 })
        .returning("id")
        .executeTakeFirstOrThrow();
    expectError(await t.delete("iago", `/api/v1/export/realm/${(await insert(ExportStatus.STARTED)).id}`), 400, "Export still in progress");
    expectError(await t.delete("iago", `/api/v1/export/realm/${(await insert(ExportStatus.FAILED)).id}`), 400, "Export failed, nothing to delete");
    // Exports without an acting user (made by the command line) are not listed.
    expect(await listExports()).toHaveLength(2);
  });

  it("an export whose process died is run again by its job", async () => {
    const iago = await t.user("iago");
    await t.ctx.jobs.stop();
    let id = 0;
    try {
      id = expectSuccess(await t.post("iago", "/api/v1/export/realm", {})).id;
      // As a killed process leaves it: started, its job claimed with a lease that has run out.
      await t.ctx.db.kysely.updateTable("realm_exports").set({ status: ExportStatus.STARTED }).where("id", "=", id).execute();
      await t.ctx.db.kysely
        .updateTable("jobs")
        .set({ status: "running", attempts: 1, locked_until: 1 })
        .where("kind", "=", "realm_export")
        .where("status", "=", "pending")
        .execute();
    } finally {
      t.ctx.jobs.start();
    }
    await t.drainJobs();
    const [listed] = (await listExports()).filter((e) => e.id === id);
    expect(listed).toMatchObject({ acting_user_id: iago.id, pending: false, failed_timestamp: null });
    expect(listed.export_url).not.toBeNull();
  });

  it("a failed export is listed with its time of failure and leaves no file behind", async () => {
    const blobs = t.ctx.blobs;
    const putFile = blobs.putFile;
    blobs.putFile = async () => {
      throw new Error("storage unavailable");
    };
    let result;
    try {
      result = await exportAs(ExportType.PUBLIC);
    } finally {
      blobs.putFile = putFile;
    }
    const [listed] = (await listExports()).filter((e) => e.id === result.id);
    expect(listed).toMatchObject({ pending: false, export_url: null, deleted_timestamp: null });
    expect(listed.failed_timestamp).toEqual(expect.any(Number));
    const last = result.events.filter((e) => e.event.type === "realm_export").at(-1)!.event as any;
    expect(last.exports.find((e: any) => e.id === result.id).failed_timestamp).toBe(listed.failed_timestamp);
    expect(fs.readdirSync(path.join(t.config.dataDir, "uploads", "tmp")).filter((f) => f.startsWith("export-"))).toEqual([]);
    expectError(await t.delete("iago", `/api/v1/export/realm/${result.id}`), 400, "Export failed, nothing to delete");
  });

  it("refuses organizations too large for an export by the API, as Zulip", async () => {
    const hamlet = await t.user("hamlet");
    const huge = await t.ctx.db.kysely
      .insertInto("attachments")
      .values({
        realm_id: hamlet.realm_id,
        owner_id: hamlet.id,
        file_name: "huge.bin",
        path_id: `${hamlet.realm_id}/aa/huge/huge.bin`,
        size: 21 * 1024 ** 3,
        content_type: null,
        create_time: 0,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    try {
      expectError(
        await t.post("iago", "/api/v1/export/realm", { export_type: ExportType.FULL_WITH_CONSENT }),
        400,
        "Please request a manual export from the server administrator.",
      );
    } finally {
      await t.ctx.db.kysely.deleteFrom("attachments").where("id", "=", huge.id).execute();
    }
  });

  it("allows 5 exports a week, as Zulip", async () => {
    // The requests so far, topped up to 4 this week; rows dated long ago do not count.
    const realmId = (await t.user("iago")).realm_id;
    const recent = await t.ctx.db.kysely.selectFrom("realm_exports").select("id").where("date_requested", ">", 0).execute();
    const week = Math.floor(Date.now() / 1000) - 7 * 86400;
    const rows = (date: number) => ({ realm_id: realmId, acting_user_id: null, type: ExportType.PUBLIC, status: ExportStatus.SUCCEEDED, date_requested: date });
    await t.ctx.db.kysely
      .insertInto("realm_exports")
      .values(rows(week - 60))
      .execute();
    for (let n = recent.length; n < 4; n++)
      await t.ctx.db.kysely
        .insertInto("realm_exports")
        .values(rows(week + 3600))
        .execute();
    await t.ctx.jobs.stop();
    try {
      expectSuccess(await t.post("iago", "/api/v1/export/realm", {}));
      expectError(await t.post("iago", "/api/v1/export/realm", {}), 400, "Exceeded rate limit.");
    } finally {
      t.ctx.jobs.start();
    }
    await t.drainJobs();
  });

  it("`parley export` writes the same tarball from the command line", async () => {
    const output = path.join(scratch, "cli", "everything.tar.gz");
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [...PARLEY_CLI, "export", ...args],
          { cwd: REPO_ROOT, env: { ...base, ...t.processEnv, PARLEY_LOG_LEVEL: "warn" } },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const bad = await run(["--type", "secret", "--realm", "zulip"]);
    expect(bad.code).toBe(2);
    const done = await run(["--output", output, "--realm", "zulip"]);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(output);
    const x = await extract(output);
    const messageIds = x.messages.zerver_message.map((m) => m.id);
    // The command line's default is the full export: every message, private ones included.
    expect(messageIds).toEqual(expect.arrayContaining([publicMessage, privateChannelMessage, directToConsenting, directBetweenOthers]));
    expect(x.realm.zerver_userprofile.map((u) => u.delivery_email)).toContain("cordelia@zulip.com");
    expect((await run(["--output", output, "--realm", "zulip"])).code).toBe(1);
  }, 60_000);
});
