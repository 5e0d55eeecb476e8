import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";

const t = useTestServer();

describe("HTTP Basic authentication", () => {
  it("accepts the API email and key", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/users/me"));
    expect(body.email).toBe("hamlet@zulip.com");
    expect(body.user_id).toBe(10);
  });

  it("rejects a request without credentials with 401 and WWW-Authenticate", async () => {
    const res = await t.get(null, "/api/v1/users/me");
    expectError(res, 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
    expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
  });

  it("rejects a wrong API key", async () => {
    const auth = basicAuth("hamlet@zulip.com", "x".repeat(32));
    expectError(await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: auth } }), 401, "Invalid API key", "UNAUTHORIZED");
  });
});
