import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./support/testDb.js";
import { startServerProcess } from "./support/process.js";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanups) await fn();
});

async function databaseEnv(): Promise<Record<string, string>> {
  const db = await freshDatabase();
  cleanups.push(db.drop);
  return db.env;
}

function basic(email: string, key: string) {
  return { Authorization: "Basic " + Buffer.from(`${email}:${key}`).toString("base64") };
}

describe("first start (npm start on an empty database)", () => {
  it("creates the organization and owner, prints the credentials once, and they work", async () => {
    const env = await databaseEnv();
    const first = await startServerProcess(env);
    const out = first.output();
    const email = /email:\s+(\S+)/.exec(out)?.[1];
    const password = /password:\s+(\S+)/.exec(out)?.[1];
    const apiKey = /API key:\s+(\S+)/.exec(out)?.[1];
    expect(email).toBe("owner@parley.example");
    expect(password).toMatch(/^\S{12,}$/);
    expect(apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(out).toMatch(/Open http:\/\/\S+\/ in a browser and log in with this email and password\./);

    const me = await (await fetch(`${first.baseUrl}/api/v1/users/me`, { headers: basic(email!, apiKey!) })).json();
    expect(me).toMatchObject({ result: "success", email, role: 100, is_owner: true });

    const login = await fetch(`${first.baseUrl}/api/v1/fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: email!, password: password! }),
    });
    expect(await login.json()).toMatchObject({ result: "success", api_key: apiKey, email });
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess(env);
    expect(second.output()).not.toContain("API key:");
    const again = await fetch(`${second.baseUrl}/api/v1/users/me`, { headers: basic(email!, apiKey!) });
    expect(again.status).toBe(200);
    await second.stop();
  }, 60_000);

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
    await expect(startServerProcess({ PARLEY_DATA_DIR: dataDir, PARLEY_SQLITE_SYNCHRONOUS: "OFF" })).rejects.toThrow(
      /PARLEY_SQLITE_SYNCHRONOUS/,
    );
  }, 30_000);
});
