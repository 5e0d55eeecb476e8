import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * PARLEY_TRUSTED_PROXIES: X-Forwarded-For names the client only when the request comes from a
 * trusted proxy. Seen through the per-address rate limit of unauthenticated requests: the test
 * connects from 127.0.0.1, which this server does not trust, so every claimed address shares
 * 127.0.0.1's bucket.
 */
const t = useTestServer({
  trustedProxies: ["10.9.9.9"],
  rateLimits: {
    enabled: true,
    user: { max: 100, windowSeconds: 60 },
    ip: { max: 3, windowSeconds: 60 },
    login: { max: 3, windowSeconds: 1800 },
    email: { max: 5, windowSeconds: 3600 },
  },
});

describe("trusted proxies", () => {
  it("ignores X-Forwarded-For from an address that is not a trusted proxy", async () => {
    for (let i = 1; i <= 3; i++) {
      expectSuccess(await t.get(null, "/api/v1/server_settings", {}, { headers: { "X-Forwarded-For": `10.0.0.${i}` } }));
    }
    const limited = await t.get(null, "/api/v1/server_settings", {}, { headers: { "X-Forwarded-For": "10.0.0.99" } });
    expect(limited.status).toBe(429);
  });
});
