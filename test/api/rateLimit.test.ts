import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer, type ApiResponse } from "../support/testApp.js";
import { formCsrf, postLoginForm } from "../support/webLogin.js";
import { basicAuth } from "../support/auth.js";

const t = useTestServer({
  rateLimits: {
    enabled: true,
    user: { max: 5, windowSeconds: 60 },
    ip: { max: 5, windowSeconds: 60 },
    login: { max: 3, windowSeconds: 1800 },
    email: { max: 5, windowSeconds: 3600 },
  },
});

/** Each test speaks from its own address (the server trusts X-Forwarded-For from 127.0.0.1). */
let nextAddress = 1;
function fromNewAddress(): { headers: Record<string, string> } {
  nextAddress += 1;
  return { headers: { "X-Forwarded-For": `10.0.0.${nextAddress}` } };
}

function expectRateLimited(res: ApiResponse): void {
  expectError(res, 429, "API usage exceeded rate limit", "RATE_LIMIT_HIT");
  expect(Object.keys(res.body).sort()).toEqual(["code", "msg", "result", "retry-after"]);
  expect(typeof res.body["retry-after"]).toBe("number");
  expect(res.body["retry-after"]).toBeGreaterThan(0);
  expect(res.body["retry-after"]).toBeLessThanOrEqual(60 * 30);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(Math.floor(res.body["retry-after"]));
}

describe("rate limiting", () => {
  it("sends X-RateLimit-* headers on every API response, errors included", async () => {
    const before = Math.floor(Date.now() / 1000);
    const ok = await t.get("aaron", "/api/v1/users/me");
    expectSuccess(ok);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("5");
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("4");
    const after = Math.ceil(Date.now() / 1000);
    // The window started while the request was served: it resets 60 s after that.
    const reset = Number(ok.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThanOrEqual(before + 60);
    expect(reset).toBeLessThanOrEqual(after + 60);

    const bad = await t.get("aaron", "/api/v1/users", { client_gravatar: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-ratelimit-remaining")).toBe("3");
  });

  it("answers the request after the user's limit with 429, Retry-After and retry-after", async () => {
    for (let i = 0; i < 5; i++) expectSuccess(await t.get("cordelia", "/api/v1/users/me"));
    const res = await t.get("cordelia", "/api/v1/users/me");
    expectRateLimited(res);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    // Another user is not affected.
    expectSuccess(await t.get("othello", "/api/v1/users/me"));
  });

  it("counts GET /events in a bucket of its own (Zulip's Tornado), leaving the user's other requests their budget", async () => {
    const queueId = expectSuccess(await t.post("prospero", "/api/v1/register", { event_types: JSON.stringify(["message"]) })).queue_id;
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const poll = await t.get("prospero", "/api/v1/events", { queue_id: queueId, dont_block: true });
      expectSuccess(poll);
      remaining.push(poll.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    expectRateLimited(await t.get("prospero", "/api/v1/events", { queue_id: queueId, dont_block: true }));
    // Register took one of the other bucket's five: four are left.
    const me = await t.get("prospero", "/api/v1/users/me");
    expectSuccess(me);
    expect(me.headers.get("x-ratelimit-remaining")).toBe("3");
  });

  it("limits failed password logins per username, even with the right password afterwards", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: "wrong" }, fromNewAddress());
      expectError(res, 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    }
    expectRateLimited(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: "parleydev" }, fromNewAddress()));
    expectRateLimited(await t.post(null, "/api/v1/fetch_api_key", { username: "HAMLET@zulip.com", password: "parleydev" }, fromNewAddress()));
    // Other usernames are unaffected.
    expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "iago@zulip.com", password: "parleydev" }, fromNewAddress()));
  });

  it("counts parallel password guesses before checking them (POST /fetch_api_key)", async () => {
    const guesses = await Promise.all(
      Array.from({ length: 20 }, () => t.post(null, "/api/v1/fetch_api_key", { username: "polonius@zulip.com", password: "wrong" }, fromNewAddress())),
    );
    // Only as many guesses as the limit allows are checked; the others are refused unchecked.
    expect(guesses.filter((res) => res.status === 401)).toHaveLength(3);
    for (const res of guesses.filter((res) => res.status !== 401)) expectRateLimited(res);
    expectRateLimited(await t.post(null, "/api/v1/fetch_api_key", { username: "polonius@zulip.com", password: "parleydev" }, fromNewAddress()));
  });

  it("counts parallel password guesses before checking them (POST /accounts/login/)", async () => {
    const csrf = await formCsrf(t.baseUrl);
    const guesses = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await postLoginForm(t.baseUrl, "prospero@zulip.com", "wrong", { csrf, headers: fromNewAddress().headers });
        return res.status;
      }),
    );
    expect(guesses.filter((status) => status !== 429)).toHaveLength(3);
    // The web form and the API share one counter per username.
    expectRateLimited(await t.post(null, "/api/v1/fetch_api_key", { username: "prospero@zulip.com", password: "parleydev" }, fromNewAddress()));
  });

  it("forgets failed logins after a successful one", async () => {
    const address = fromNewAddress();
    for (let i = 0; i < 2; i++) {
      expect((await t.post(null, "/api/v1/fetch_api_key", { username: "ZOE@zulip.com", password: "wrong" }, fromNewAddress())).status).toBe(401);
    }
    expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "ZOE@zulip.com", password: "parleydev" }, address));
    for (let i = 0; i < 3; i++) {
      expect((await t.post(null, "/api/v1/fetch_api_key", { username: "ZOE@zulip.com", password: "wrong" }, fromNewAddress())).status).toBe(401);
    }
  });

  it("limits unauthenticated requests per IP address", async () => {
    const address = fromNewAddress();
    for (let i = 0; i < 5; i++) expectSuccess(await t.get(null, "/api/v1/server_settings", {}, address));
    expectRateLimited(await t.get(null, "/api/v1/server_settings", {}, address));
    expectSuccess(await t.get(null, "/api/v1/server_settings", {}, fromNewAddress()));
  });

  it("counts failed authentication against the IP address", async () => {
    const address = fromNewAddress();
    const headers = { ...address.headers, Authorization: basicAuth("desdemona@zulip.com", "x".repeat(32)) };
    for (let i = 0; i < 5; i++) expectError(await t.get(null, "/api/v1/users/me", {}, { headers }), 401, "Invalid API key", "UNAUTHORIZED");
    expectRateLimited(await t.get(null, "/api/v1/users/me", {}, { headers }));
  });
});
