import { connect as natsConnect } from "nats";
import { defined } from "../src/util/defined.js";
import { describe, expect, it } from "vitest";
import { openDb } from "../src/db/connect.js";
import { busNamesOf } from "../src/events/bus.js";
import { multiProcessEnv, NATS_URL, POSTGRES_URL } from "./support/multiProcess.js";
import { apiCaller, firstStartCredentials, type ServerProcess, useServerProcesses } from "./support/process.js";

/**
 * Several `parley serve` processes on one PostgreSQL database and the NATS server of
 * PARLEY_TEST_NATS_URL (issue 18): events cross processes, queues are polled through any
 * process, a killed process's queues answer BAD_EVENT_QUEUE_ID and nothing acknowledged is lost;
 * presence and rate limits are shared, the register/commit race drops events already in the state,
 * and a process with a lasting PARLEY_PROCESS_ID keeps its queues across a graceful restart.
 * (test/multiProcessNginx.test.ts runs three behind nginx; test/serverLock.test.ts keeps SQLite to one process.)
 */
const servers = useServerProcesses();

if (!NATS_URL || !POSTGRES_URL) {
  console.warn(
    "test/multiProcess.test.ts: the multi-process cases need PARLEY_TEST_NATS_URL (e.g. nats://127.0.0.1:4222) and PARLEY_TEST_POSTGRES_URL; skipped",
  );
}

describe.skipIf(!NATS_URL || !POSTGRES_URL)("several processes on PostgreSQL and NATS", () => {
  it("delivers across processes, forwards polls, and survives a process killed with SIGKILL", async () => {
    const env = await multiProcessEnv(servers);
    const a = await servers.start(env);
    const credentials = await firstStartCredentials(a);
    // The database is migrated by A's first start; the others start side by side.
    // C has a lasting identity: its queues outlive a graceful restart (checked at the end).
    const cEnv = { ...env, PARLEY_PROCESS_ID: "parley-c" };
    const [b, c] = await Promise.all([servers.start(env), servers.start(cEnv)]);
    const call = (server: ServerProcess) => apiCaller(() => server.baseUrl, credentials);
    const me = (await call(a)("GET", "/users/me")).body;
    const sendDm = (server: ServerProcess, content: string) => call(server)("POST", "/messages", { type: "direct", to: JSON.stringify([me.user_id]), content });

    // A queue registered on B; its id names B (not A or C).
    const registered = await call(b)("POST", "/register", { event_types: JSON.stringify(["message"]) });
    expect(registered.status).toBe(200);
    const queueId: string = registered.body.queue_id;
    const ownerB = queueId.split(":")[0];
    expect(queueId).toMatch(/^[0-9a-f]{12}:/);
    const onA = await call(a)("POST", "/register", { event_types: JSON.stringify(["message", "typing"]) });
    expect(onA.body.queue_id.split(":")[0]).not.toBe(ownerB);

    // Sent through A, seen in B's queue, polled through C (a blocking poll forwarded to B).
    const poll = call(c)("GET", "/events", { queue_id: queueId, last_event_id: "-1" });
    await new Promise((r) => setTimeout(r, 300));
    expect((await sendDm(a, "from A")).status).toBe(200);
    const polled = await poll;
    expect(polled.status).toBe(200);
    expect(polled.body.queue_id).toBe(queueId);
    expect(polled.body.events.map((e: any) => e.message?.content)).toEqual(["from A"]);
    const firstId = polled.body.events[0].id as number;

    // Sent through C, polled on B itself, with the earlier event acknowledged.
    expect((await sendDm(c, "from C")).status).toBe(200);
    // Typing goes through the bus like every event (checked in A's queue below).
    expect((await call(c)("POST", "/typing", { op: "start", to: JSON.stringify([me.user_id]) })).status).toBe(200);
    let seen: any[] = [];
    for (let i = 0; i < 50 && seen.length === 0; i++) {
      seen = (await call(b)("GET", "/events", { queue_id: queueId, last_event_id: String(firstId), dont_block: "true" })).body.events;
      if (seen.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.map((e: any) => e.message?.content)).toEqual(["from C"]);

    // Presence set through A: GET /realm/presence through C has it, and B's queue gets the event.
    const onBPresence = await call(b)("POST", "/register", { event_types: JSON.stringify(["presence"]) });
    expect((await call(a)("POST", "/users/me/presence", { status: "active", new_user_input: "true" })).status).toBe(200);
    const presences = (await call(c)("GET", "/realm/presence")).body.presences;
    expect(presences[me.email]?.aggregated?.status).toBe("active");
    const presenceEvents = await call(a)("GET", "/events", { queue_id: onBPresence.body.queue_id, last_event_id: "-1" });
    expect(presenceEvents.body.events.map((e: any) => [e.type, e.user_id])).toEqual([["presence", me.user_id]]);

    // Rate limits are shared: 5 failed logins per username, spread over the three processes.
    const login = (server: ServerProcess) =>
      fetch(`${server.baseUrl}/api/v1/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "nobody@example.com", password: "wrong" }) });
    const loginStatuses: number[] = [];
    for (const server of [a, b, c, a, b, c]) loginStatuses.push((await login(server)).status);
    expect(loginStatuses).toEqual([401, 401, 401, 401, 401, 429]);

    // The register/commit race (events/snapshotFilter.ts): an event whose transaction is already in
    // a queue's initial state is not queued again when it arrives late over the bus; one committed
    // after the snapshot is. Simulated with two events published as another process would.
    const raced = await call(b)("POST", "/register", { event_types: JSON.stringify(["typing"]) });
    const nats = await natsConnect({ servers: new URL(NATS_URL!).host });
    const typingEvent = (op: string) => ({
      type: "typing",
      op,
      message_type: "direct",
      sender: { user_id: me.user_id, email: me.email },
      recipients: [{ user_id: me.user_id, email: me.email }],
    });
    const db = openDb({ kind: "postgres", url: defined(env.PARLEY_DATABASE_URL, "PARLEY_DATABASE_URL") });
    const subjects = await busNamesOf(db.kysely);
    await db.close();
    nats.publish(subjects.events, JSON.stringify({ e: typingEvent("start"), u: [me.user_id], x: "3" }));
    nats.publish(subjects.events, JSON.stringify({ e: typingEvent("stop"), u: [me.user_id], x: String(2n ** 62n) }));
    await nats.drain();
    const racedEvents = await call(b)("GET", "/events", { queue_id: raced.body.queue_id, last_event_id: "-1" });
    expect(racedEvents.body.events.map((e: any) => [e.type, e.op])).toEqual([["typing", "stop"]]);

    // Another user's view of a queue id does not depend on which process answers: unknown ids are unknown everywhere.
    const unknown = await call(a)("GET", "/events", { queue_id: `${ownerB}:no-such-queue`, last_event_id: "-1", dont_block: "true" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("BAD_EVENT_QUEUE_ID");

    // Under load through A and C, B is killed: its queues are gone for the others, and every
    // acknowledged message is in the database.
    const acknowledged: number[] = [];
    const sending = (async () => {
      for (let i = 0; i < 30; i++) {
        const res = await sendDm(i % 2 === 0 ? a : c, `load ${i}`);
        if (res.status === 200) acknowledged.push(res.body.id);
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    await b.stop("SIGKILL");
    await sending;
    expect(acknowledged.length).toBe(30);
    for (const server of [a, c]) {
      const res = await call(server)("GET", "/events", { queue_id: queueId, last_event_id: String(firstId), dont_block: "true" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("BAD_EVENT_QUEUE_ID");
      const deleted = await call(server)("DELETE", "/events", { queue_id: queueId });
      expect(deleted.body.code).toBe("BAD_EVENT_QUEUE_ID");
    }
    const stored = await call(c)("GET", "/messages", { anchor: "newest", num_before: "100", num_after: "0", narrow: "[]" });
    const storedIds = new Set(stored.body.messages.map((m: any) => m.id));
    expect(acknowledged.filter((id) => !storedIds.has(id))).toEqual([]);

    // A queue on A received everything committed through A and C, in order.
    const onAEvents = await call(c)("GET", "/events", { queue_id: onA.body.queue_id, last_event_id: "-1", dont_block: "true" });
    const contents = onAEvents.body.events.map((e: any) => e.message?.content).filter(Boolean);
    // The real typing start through C, and the simulated "stop" above (committed after A's snapshot too).
    expect(onAEvents.body.events.filter((e: any) => e.type === "typing").map((e: any) => [e.op, e.sender.user_id])).toEqual([
      ["start", me.user_id],
      ["stop", me.user_id],
    ]);
    expect(contents).toEqual(["from A", "from C", ...Array.from({ length: 30 }, (_, i) => `load ${i}`)]);

    // DELETE through another process reaches the owner.
    expect((await call(c)("DELETE", "/events", { queue_id: onA.body.queue_id })).status).toBe(200);
    const afterDelete = await call(a)("GET", "/events", { queue_id: onA.body.queue_id, last_event_id: "-1", dont_block: "true" });
    expect(afterDelete.body.code).toBe("BAD_EVENT_QUEUE_ID");

    // A scheduled message (a durable job both remaining processes' runners look for) is sent once.
    const scheduled = await call(a)("POST", "/scheduled_messages", {
      type: "direct",
      to: JSON.stringify([me.user_id]),
      content: "scheduled once",
      scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 2),
    });
    expect(scheduled.status).toBe(200);
    const countScheduled = async () =>
      (await call(c)("GET", "/messages", { anchor: "newest", num_before: "100", num_after: "0", narrow: "[]" })).body.messages.filter(
        (m: any) => m.content === "<p>scheduled once</p>",
      ).length;
    const deadline = Date.now() + 30_000;
    while ((await countScheduled()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await new Promise((r) => setTimeout(r, 3000));
    expect(await countScheduled()).toBe(1);

    // C stops gracefully and saves its queues; meanwhile a message is sent through A and a poll
    // of C's queue through A waits; C starts again with the same identity, restores the queue
    // with the message it missed (read back from the bus's stream), and the poll is answered.
    const onC = await call(c)("POST", "/register", { event_types: JSON.stringify(["message"]) });
    expect(onC.body.queue_id).toMatch(/^parley-c:/);
    expect(await c.stop("SIGTERM")).toBe(0);
    const waiting = call(a)("GET", "/events", { queue_id: onC.body.queue_id, last_event_id: "-1" });
    expect((await sendDm(a, "while C restarts")).status).toBe(200);
    await servers.start(cEnv);
    const resumed = await waiting;
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.events.map((e: any) => e.message?.content)).toEqual(["while C restarts"]);
  }, 300_000);
});
