import pg from "pg";
import { describe, expect, it } from "vitest";
import { multiProcessEnv, NATS_URL, POSTGRES_URL } from "./support/multiProcess.js";
import { apiCaller, firstStartCredentials, useServerProcesses } from "./support/process.js";
import { basicAuth } from "./support/auth.js";

/**
 * Polls in multi-process mode (issue 18): as in Zulip, whose Tornado counts GET/DELETE /events in
 * its own memory (RATE_LIMITING_DOMAINS_FOR_TORNADO), a poll is counted in the process's memory,
 * never in the shared rate_limits table: no database statement per poll. Other requests still
 * share their counters through PostgreSQL.
 */
const servers = useServerProcesses();

describe.skipIf(!NATS_URL || !POSTGRES_URL)("poll rate limits across processes", () => {
  it("counts polls in the process's memory and writes nothing to the shared table", async () => {
    const env = await multiProcessEnv(servers);
    const server = await servers.start({ ...env, PARLEY_RATE_LIMITS: "1" });
    const owner = await firstStartCredentials(server);
    const api = apiCaller(() => server.baseUrl, owner);
    const me = await api("GET", "/users/me");
    expect(me.status).toBe(200);
    const queueId = (await api("POST", "/register", { event_types: JSON.stringify(["message"]) })).body.queue_id as string;
    const db = new pg.Client({ connectionString: env.PARLEY_DATABASE_URL });
    await db.connect();
    try {
      const sharedCount = async () => (await db.query("select count from rate_limits where key = $1", [`user:${me.body.user_id}`])).rows[0]?.count;
      const before = await sharedCount();
      expect(Number(before)).toBe(2);
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const poll = await fetch(`${server.baseUrl}/api/v1/events?queue_id=${encodeURIComponent(queueId)}&dont_block=true`, {
          headers: { Authorization: basicAuth(owner.email, owner.apiKey) },
        });
        expect(poll.status).toBe(200);
        remaining.push(poll.headers.get("x-ratelimit-remaining")!);
      }
      // The poll bucket is the process's own: 200 per minute, three used.
      expect(remaining).toEqual(["199", "198", "197"]);
      expect(await sharedCount()).toBe(before);
      // Other requests still count in the shared table.
      expect((await api("GET", "/users/me")).status).toBe(200);
      expect(Number(await sharedCount())).toBe(3);
    } finally {
      await db.end();
    }
  }, 120_000);
});
