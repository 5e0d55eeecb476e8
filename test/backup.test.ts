import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiCaller, firstStartCredentials, runParley, useServerProcesses } from "./support/process.js";
import { basicAuth } from "./support/auth.js";

/**
 * `parley backup` of a live server under load, `parley restore` into an empty data directory and
 * database, and a server on the restored copy that answers as the original did: the same users,
 * channels and files, and messages as the original shows them.
 */
const servers = useServerProcesses();
const EXTERNAL_URL = "http://chat.example.test";

describe("backup and restore", () => {
  it("backs up a server under load and restores it into an empty data directory and database", async () => {
    const originalEnv = { ...(await servers.freshEnv()), PARLEY_EXTERNAL_URL: EXTERNAL_URL, PARLEY_RATE_LIMITS: "0" };
    const original = await servers.start(originalEnv);
    const credentials = await firstStartCredentials(original);
    const api = apiCaller(() => original.baseUrl, credentials);
    const authorization = basicAuth(credentials.email, credentials.apiKey);

    const me = (await api("GET", "/users/me")).body;
    expect((await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "backups" }]) })).body.result).toBe("success");
    const file = Buffer.from("the uploaded bytes ".repeat(1000));
    const form = new FormData();
    form.append("file", new Blob([file], { type: "text/plain" }), "notes.txt");
    const uploaded = await (
      await fetch(`${original.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: authorization }, body: form })
    ).json();
    expect(uploaded.result).toBe("success");
    expect((await api("POST", "/messages", { type: "stream", to: "backups", topic: "files", content: `[notes](${uploaded.url})` })).body.result).toBe(
      "success",
    );

    // Load: four senders writing while the backup runs.
    let loading = true;
    let sent = 0;
    const senders = Array.from({ length: 4 }, async (_, n) => {
      while (loading) {
        const res = await api("POST", "/messages", { type: "stream", to: "backups", topic: `load ${n}`, content: `message ${sent}` });
        expect(res.body.result).toBe("success");
        sent += 1;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    const backupFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-backup-test-")), "parley.tar.gz");
    servers.onCleanup(async () => fs.rmSync(path.dirname(backupFile), { recursive: true, force: true }));
    const backup = await runParley(["backup", backupFile], originalEnv, 120_000);
    loading = false;
    await Promise.all(senders);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up the \w+ database \(\d+ migrations\) and \d+ files of .* to .*parley\.tar\.gz$/m);
    expect(sent).toBeGreaterThan(4);
    // It holds password hashes, API keys and private messages: readable by its owner only.
    expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
    expect((await runParley(["backup", backupFile], originalEnv)).stderr).toContain("exists already");

    // Restore into a new data directory and database.
    const restoredEnv = { ...(await servers.freshEnv()), PARLEY_EXTERNAL_URL: EXTERNAL_URL, PARLEY_RATE_LIMITS: "0" };
    const restore = await runParley(["restore", backupFile], restoredEnv, 120_000);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain("Restored the backup of");
    const again = await runParley(["restore", backupFile], restoredEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty/);

    const restored = await servers.start(restoredEnv);
    expect(restored.output()).not.toContain("Created the organization"); // not a first start: the organization came back
    const restoredApi = apiCaller(() => restored.baseUrl, credentials);
    for (const [route, params] of [
      ["/users/me", {}],
      ["/users", {}],
      ["/streams", {}],
      ["/users/me/subscriptions", {}],
      ["/realm/emoji", {}],
    ] as const) {
      const [a, b] = [await api("GET", route, params), await restoredApi("GET", route, params)];
      // Messages sent after the backup are only in the original.
      delete a.body.max_message_id;
      delete b.body.max_message_id;
      expect(b, route).toEqual(a);
    }
    const everything = { anchor: "oldest", num_before: "0", num_after: "5000", apply_markdown: "true" };
    const originalMessages = (await api("GET", "/messages", everything)).body.messages;
    const restoredMessages = (await restoredApi("GET", "/messages", everything)).body.messages;
    expect(restoredMessages.length).toBeGreaterThan(1);
    // Each restored message is the original's, as the original server shows it. (On PostgreSQL
    // concurrent sends may commit out of id order, so the snapshot need not be an id prefix.)
    const byId = new Map(originalMessages.map((m: { id: number }) => [m.id, m]));
    for (const message of restoredMessages) expect(message).toEqual(byId.get(message.id));
    expect(originalMessages.slice(0, 2)).toEqual(restoredMessages.slice(0, 2));
    expect((await restoredApi("GET", "/users/me")).body.max_message_id).toBe(restoredMessages.at(-1).id);

    const download = await fetch(restored.baseUrl + uploaded.url, { headers: { Authorization: authorization } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(file)).toBe(true);
    expect(me.user_id).toBe((await restoredApi("GET", "/users/me")).body.user_id);
  }, 180_000);
});
