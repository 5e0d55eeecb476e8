import fs from "node:fs";
import { defined } from "../src/util/defined.js";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./support/testDb.js";
import { firstStartCredentials, freePort, runParley, startServerProcess } from "./support/process.js";
import { basicAuth } from "./support/auth.js";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanups) await fn();
});

async function databaseEnv(): Promise<Record<string, string>> {
  const db = await freshDatabase();
  cleanups.push(db.drop);
  return db.env;
}

/**
 * What Zulip 10.2 gives a new organization: its system bots, the default channels "Zulip",
 * "sandbox" and "general" (which takes new-channel announcements) with their descriptions, the
 * owner subscribed, and Welcome Bot's messages; so a first message and the Notification Bot's
 * notices work.
 */
async function expectZulipsNewOrganization(baseUrl: string, auth: Record<string, string>) {
  const api = async (method: string, path: string, params: Record<string, string> = {}) => {
    const query = method === "GET" ? `?${new URLSearchParams(params)}` : "";
    const res = await fetch(`${baseUrl}/api/v1${path}${query}`, { method, headers: auth, body: method === "GET" ? undefined : new URLSearchParams(params) });
    const body = await res.json();
    expect(body).toMatchObject({ result: "success" });
    return body;
  };
  const state = await api("POST", "/register", { fetch_event_types: JSON.stringify(["subscription", "default_streams", "realm", "realm_user"]) });
  const channels = Object.fromEntries(state.subscriptions.map((s: any) => [s.name, s]));
  expect(Object.keys(channels).sort()).toEqual(["Zulip", "general", "sandbox"]);
  expect(channels.Zulip.description).toBe("Questions and discussion about using Zulip.");
  expect(channels.general.description).toBe("For team-wide conversations");
  expect(channels.sandbox.rendered_description).toContain(
    '<span aria-label="test tube" class="emoji emoji-1f9ea" role="img" title="test tube">:test_tube:</span>',
  );
  expect([...state.realm_default_streams].sort()).toEqual(
    Object.values(channels)
      .map((s: any) => s.stream_id)
      .sort(),
  );
  expect(state.realm_new_stream_announcements_stream_id).toBe(channels.general.stream_id);
  expect(state.realm_zulip_update_announcements_stream_id).toBe(channels.general.stream_id);
  expect(state.cross_realm_bots.map((b: any) => b.email)).toEqual(expect.arrayContaining(["notification-bot@zulip.com", "welcome-bot@zulip.com"]));
  // Invitations are required, so read receipts start on (Zulip's do_create_realm).
  expect(state).toMatchObject({ realm_invite_required: true, realm_enable_read_receipts: true });

  const { messages } = await api("GET", "/messages", { anchor: "oldest", num_before: "0", num_after: "50", narrow: "[]" });
  expect(messages.map((m: any) => `${m.display_recipient} > ${m.subject}`)).toEqual([
    ...Array(2).fill("Zulip > moving messages"),
    ...Array(2).fill("sandbox > experiments"),
    ...Array(3).fill("sandbox > start a conversation"),
    ...Array(2).fill("general > greetings"),
    ...Array(3).fill("Zulip > welcome to Zulip!"),
  ]);
  expect(new Set(messages.map((m: any) => m.sender_email))).toEqual(new Set(["welcome-bot@zulip.com"]));
  expect(messages[7].reactions).toMatchObject([{ emoji_name: "wave", user_id: messages[7].sender_id }]);

  const first = await api("POST", "/messages", { type: "stream", to: "general", topic: "hello", content: "First!" });
  expect((await api("GET", `/messages/${first.id}/read_receipts`)).user_ids).toEqual([]);
  await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "brand new" }]), announce: "true" });
  const notices = await api("GET", "/messages", {
    anchor: "newest",
    num_before: "5",
    num_after: "0",
    narrow: JSON.stringify([
      { operator: "channel", operand: "general" },
      { operator: "topic", operand: "new channels" },
    ]),
  });
  expect(notices.messages.map((m: any) => m.sender_email)).toEqual(["notification-bot@zulip.com"]);
}

function basic(email: string, key: string) {
  return { Authorization: basicAuth(email, key) };
}

describe("first start (npm start on an empty database)", () => {
  it("creates the organization and owner, prints the credentials once, and they work", async () => {
    const env = await databaseEnv();
    const first = await startServerProcess(env);
    const out = first.output();
    const email = /email:\s+(\S+)/.exec(out)?.[1];
    // Standard output is not a terminal here: the password is in a file only the owner may read.
    const passwordFile = path.join(defined(env.PARLEY_DATA_DIR, "PARLEY_DATA_DIR"), "first-start-password");
    expect(out).toContain(`password: written to ${passwordFile} (readable by this user only; delete it once saved)`);
    expect(fs.statSync(passwordFile).mode & 0o777).toBe(0o600);
    const password = fs.readFileSync(passwordFile, "utf8").trim();
    expect(out).not.toContain(password);
    expect(email).toBe("owner@parley.example");
    expect(password).toMatch(/^\S{12,}$/);
    expect(out).toMatch(/Open http:\/\/\S+\/ in a browser and log in with this email and password\./);

    // Nor the API key (a log keeps it, others may read it): the output says how to get it.
    expect(out).not.toContain("API key:");
    expect(out).toContain("`parley api-key --email owner@parley.example` prints it");
    const login = await fetch(`${first.baseUrl}/api/v1/fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: email!, password: password! }),
    });
    const { api_key: apiKey } = await login.json();
    expect(apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(out).not.toContain(apiKey);

    expect((await runParley(["api-key", "--email", email!], env)).stdout.trim()).toBe(apiKey);

    const me = await (await fetch(`${first.baseUrl}/api/v1/users/me`, { headers: basic(email!, apiKey!) })).json();
    expect(me).toMatchObject({ result: "success", email, role: 100, is_owner: true });

    await expectZulipsNewOrganization(first.baseUrl, basic(email!, apiKey!));
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess(env);
    expect(second.output()).not.toContain("Created the organization");
    const again = await fetch(`${second.baseUrl}/api/v1/users/me`, { headers: basic(email!, apiKey!) });
    expect(again.status).toBe(200);
    await second.stop();
  }, 120_000);

  it("creates nothing while the port or the metrics port is taken: the start that listens shows the credentials", async () => {
    const env = await databaseEnv();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const onTakenPort = await runParley(["serve"], { ...env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: String(port) });
      expect(onTakenPort.code, onTakenPort.stderr).toBe(1);
      expect(onTakenPort.stderr).toContain(`PARLEY_HOST/PARLEY_PORT: 127.0.0.1:${port} is in use by another process`);
      const free = String(await freePort());
      const onTakenMetricsPort = await runParley(["serve"], { ...env, PARLEY_HOST: "127.0.0.1", PARLEY_PORT: free, PARLEY_METRICS_PORT: String(port) });
      expect(onTakenMetricsPort.code, onTakenMetricsPort.stderr).toBe(1);
      expect(onTakenMetricsPort.stderr).toContain(`PARLEY_METRICS_HOST/PARLEY_METRICS_PORT: 127.0.0.1:${port} is in use by another process`);
      expect(onTakenPort.stdout + onTakenMetricsPort.stdout).not.toContain("Created the organization");
    } finally {
      taken.close();
    }
    const server = await startServerProcess(env);
    expect(server.output()).toContain("Created the organization");
    const owner = await firstStartCredentials(server);
    const me = await fetch(`${server.baseUrl}/api/v1/users/me`, { headers: basic(owner.email, owner.apiKey) });
    expect(me.status).toBe(200);
    await server.stop();
  }, 90_000);

  it("takes the owner from PARLEY_ADMIN_EMAIL and PARLEY_ADMIN_PASSWORD", async () => {
    const env = { ...(await databaseEnv()), PARLEY_ADMIN_EMAIL: "boss@example.com", PARLEY_ADMIN_PASSWORD: "correct horse" };
    const server = await startServerProcess(env);
    expect(server.output()).toContain("boss@example.com");
    expect(server.output()).not.toContain("password:");
    const login = await fetch(`${server.baseUrl}/api/v1/fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: "boss@example.com", password: "correct horse" }),
    });
    expect((await login.json()).result).toBe("success");
    await server.stop();
  }, 60_000);

  it("refuses to start with an invalid setting and names it", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-badconf-"));
    await expect(startServerProcess({ PARLEY_DATA_DIR: dataDir, PARLEY_SQLITE_SYNCHRONOUS: "OFF" })).rejects.toThrow(/PARLEY_SQLITE_SYNCHRONOUS/);
  }, 30_000);
});
