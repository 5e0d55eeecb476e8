import { describe, expect, it } from "vitest";
import { NATS_URL, POSTGRES_URL, soon, twoProcesses } from "./support/multiProcess.js";
import { apiCaller, useServerProcesses } from "./support/process.js";

/**
 * The authentication cache across processes (issue 18): each process caches who a credential
 * is, and a change committed in one process (new API key, deactivation) is published on the bus
 * so that the others refuse the credential at once (db/authCache.ts, events/bus.ts).
 */
const servers = useServerProcesses();

describe.skipIf(!NATS_URL || !POSTGRES_URL)("authentication cache across processes", () => {
  it("refuses a regenerated key and a deactivated user on the other process at once", async () => {
    const { a, b, owner } = await twoProcesses(servers);
    const adminOnA = apiCaller(() => a.baseUrl, owner);

    const email = "cached@example.com";
    const password = "a long enough password";
    expect((await adminOnA("POST", "/users", { email, password, full_name: "Cached User" })).status).toBe(200);
    const fetched = await apiCaller(() => a.baseUrl, owner)("POST", "/fetch_api_key", { username: email, password });
    expect(fetched.status).toBe(200);
    const userId: number = fetched.body.user_id;
    const first = { email: fetched.body.email as string, apiKey: fetched.body.api_key as string };

    // B has authenticated the key (and would answer from its cache from now on).
    const oldOnB = apiCaller(() => b.baseUrl, first);
    for (let i = 0; i < 3; i++) expect((await oldOnB("GET", "/users/me")).status).toBe(200);

    // The key is regenerated through A: B refuses the old one and takes the new one.
    const regenerated = await apiCaller(() => a.baseUrl, first)("POST", "/users/me/api_key/regenerate");
    expect(regenerated.status).toBe(200);
    expect(
      await soon(
        async () => (await oldOnB("GET", "/users/me")).status,
        (status) => status === 401,
      ),
    ).toBe(401);
    expect((await oldOnB("GET", "/users/me")).body.msg).toBe("Invalid API key");
    const newOnB = apiCaller(() => b.baseUrl, { email: first.email, apiKey: regenerated.body.api_key });
    for (let i = 0; i < 3; i++) expect((await newOnB("GET", "/users/me")).status).toBe(200);

    // Deactivated through A: B refuses the (cached) key.
    expect((await adminOnA("DELETE", `/users/${userId}`)).status).toBe(200);
    expect(
      await soon(
        async () => (await newOnB("GET", "/users/me")).status,
        (status) => status === 401,
      ),
    ).toBe(401);
    expect((await newOnB("GET", "/users/me")).body.msg).toBe("Account is deactivated");
  }, 120_000);
});
