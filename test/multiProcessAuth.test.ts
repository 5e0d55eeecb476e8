import { describe, expect, it } from "vitest";
import { multiProcessEnv, NATS_URL, POSTGRES_URL, soon, twoProcesses } from "./support/multiProcess.js";
import { apiCaller, firstStartCredentials, runParley, useServerProcesses } from "./support/process.js";

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

  it("answers a deactivated organization's parked polls with the event, then drops its queues on every process", async () => {
    const env = await multiProcessEnv(servers);
    const a = await servers.start(env);
    const owner = await firstStartCredentials(a);
    const b = await servers.start(env);
    const onA = apiCaller(() => a.baseUrl, owner);
    const onB = apiCaller(() => b.baseUrl, owner);
    // A queue on each process (its id names the process that holds it), a poll parked on B's.
    const queueA = (await onA("POST", "/register", { event_types: JSON.stringify(["realm"]) })).body;
    const queueB = (await onB("POST", "/register", { event_types: JSON.stringify(["realm"]) })).body;
    expect(queueA.queue_id.split(":")[0]).not.toBe(queueB.queue_id.split(":")[0]);
    const poll = onB("GET", "/events", { queue_id: queueB.queue_id, last_event_id: String(queueB.last_event_id) });
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The command is a third process: its event reaches A and B over the bus.
    expect((await runParley(["deactivate-organization", "--realm", ""], env)).code).toBe(0);
    const answered = await poll;
    expect(answered.status).toBe(200);
    expect(answered.body.events).toEqual([{ type: "realm", op: "deactivated", realm_id: expect.any(Number), id: expect.any(Number) }]);

    expect((await runParley(["reactivate-organization", "--realm", ""], env)).code).toBe(0);
    for (const [caller, queue] of [
      [onA, queueA],
      [onB, queueB],
    ] as const) {
      const res = await soon(
        () => caller("GET", "/events", { queue_id: queue.queue_id, last_event_id: "-1", dont_block: "true" }),
        (r) => r.status === 400,
      );
      expect(res.body.code).toBe("BAD_EVENT_QUEUE_ID");
    }
  }, 120_000);
});
