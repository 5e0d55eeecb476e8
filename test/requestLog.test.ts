import { describe, expect, it } from "vitest";
import { apiCaller, firstStartCredentials, useServerProcesses } from "./support/process.js";

/** At info level, one JSON line per request: method, route, status, time, user id, no secrets. */
const servers = useServerProcesses();

describe("request log", () => {
  it("writes one line per request with method, route, status, time and user, never credentials", async () => {
    const server = await servers.start({ ...(await servers.freshEnv()), PARLEY_LOG_LEVEL: "info" });
    const credentials = await firstStartCredentials(server);
    const api = apiCaller(() => server.baseUrl, credentials);
    const me = await api("GET", "/users/me");
    expect(me.status).toBe(200);
    expect((await api("GET", "/messages", { anchor: "newest", num_before: "1", num_after: "0" })).status).toBe(200);
    // An API key in the query string (incoming webhooks take it there) must not reach the log.
    const webhook = await fetch(`${server.baseUrl}/api/v1/external/json?api_key=${credentials.apiKey}&stream=no-such-channel`, { method: "POST", body: "{}" });
    // Zulip answers success for a channel that does not exist (the bot's owner hears of it).
    expect(webhook.status).toBe(200);
    expect((await fetch(`${server.baseUrl}/no/such/page`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 200));

    const lines = server
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    const requests = lines.filter((l) => l.msg === "request" && l.route !== "/health");
    expect(requests.map((l) => [l.method, l.route, l.status, l.user])).toEqual([
      ["POST", "/api/v1/fetch_api_key", 200, null],
      ["GET", "/api/v1/users/me", 200, me.body.user_id],
      ["GET", "/api/v1/messages", 200, me.body.user_id],
      ["POST", "/api/v1/external/:integration", 200, null],
      ["GET", null, 404, null],
    ]);
    for (const line of requests) {
      expect(line.level).toBe(30);
      expect(typeof line.ms).toBe("number");
    }
    const logText = lines.map((l) => JSON.stringify(l)).join("\n");
    expect(logText).not.toContain(credentials.apiKey);
    expect(logText).not.toContain(credentials.password);
    expect(logText).not.toContain("authorization");
  }, 60_000);
});
