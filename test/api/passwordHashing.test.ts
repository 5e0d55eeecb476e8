import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

/** Issue 17: production-strength scrypt, and weaker stored hashes upgraded at the next login. */
const t = useTestServer({ fastPasswordHashing: false });

/** A hash in Parley's stored format made with the given scrypt cost (as an older Parley did). */
function scryptHash(password: string, N: number): string {
  const salt = crypto.randomBytes(16);
  const key = crypto.scryptSync(password.normalize("NFKC"), salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 });
  return ["scrypt", N, 8, 1, salt.toString("base64"), key.toString("base64")].join("$");
}

const storedHash = async (name: string) => (await t.user(name)).password_hash!;
const login = (username: string, password: string) => t.post(null, "/api/v1/fetch_api_key", { username, password });

describe("password hashing", () => {
  it("hashes with scrypt N=2^17, r=8, p=1", async () => {
    expect((await storedHash("othello")).split("$").slice(0, 4)).toEqual(["scrypt", "131072", "8", "1"]);
    expectSuccess(await login("othello@zulip.com", "parleydev"));
  });

  it("replaces a weaker stored hash at the next successful login, not at a failed one", async () => {
    const hamlet = await t.user("hamlet");
    const legacy = scryptHash("parleydev", 2 ** 15);
    await t.ctx.db.kysely.updateTable("users").set({ password_hash: legacy }).where("id", "=", hamlet.id).execute();
    expect((await login("hamlet@zulip.com", "wrong password")).status).toBe(401);
    expect(await storedHash("hamlet")).toBe(legacy);

    expectSuccess(await login("hamlet@zulip.com", "parleydev"));
    const upgraded = await storedHash("hamlet");
    expect(upgraded.split("$").slice(0, 4)).toEqual(["scrypt", "131072", "8", "1"]);
    expectSuccess(await login("hamlet@zulip.com", "parleydev"));
    expect(await storedHash("hamlet")).toBe(upgraded);
  });
});
