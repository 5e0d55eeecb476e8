import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";

/**
 * The authentication cache (db/authCache.ts): a credential that authenticated once is not looked
 * up again, and every change that matters cuts it off at the next request: a new API key, a
 * deactivation, a role change, a deactivated organization. (Across processes: multiProcessAuth.test.ts.)
 */
const t = useTestServer();

const as = (authorization: string) => ({ headers: { Authorization: authorization } });

describe("authentication cache", () => {
  it("answers a repeated poll with no SQL statement", async () => {
    const hamlet = await t.user("hamlet");
    const auth = basicAuth(hamlet.email, hamlet.api_key);
    const queue = expectSuccess(await t.post(null, "/api/v1/register", { event_types: ["message"] }, as(auth)));
    const poll = () => t.get(null, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: "-1", dont_block: "true" }, as(auth));
    expectSuccess(await poll());
    expect(await t.countQueries(async () => expectSuccess(await poll()), { warmAuthCache: true })).toBe(0);
  }, 60_000);

  it("refuses an API key at once after it is regenerated", async () => {
    const othello = await t.user("othello");
    const old = basicAuth(othello.email, othello.api_key);
    expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(old)));
    const { api_key: fresh } = expectSuccess(await t.post(null, "/api/v1/users/me/api_key/regenerate", {}, as(old)));
    expectError(await t.get(null, "/api/v1/users/me", {}, as(old)), 401, "Invalid API key", "UNAUTHORIZED");
    expect(expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(basicAuth(othello.email, fresh)))).user_id).toBe(othello.id);
  });

  it("refuses a deactivated user at once, and accepts them again once reactivated", async () => {
    const cordelia = await t.user("cordelia");
    const auth = basicAuth(cordelia.email, cordelia.api_key);
    expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(auth)));
    expectSuccess(await t.delete("iago", `/api/v1/users/${cordelia.id}`));
    expectError(await t.get(null, "/api/v1/users/me", {}, as(auth)), 401, "Account is deactivated", "UNAUTHORIZED");
    expectSuccess(await t.post("iago", `/api/v1/users/${cordelia.id}/reactivate`));
    expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(auth)));
  });

  it("sees a role change at the next request", async () => {
    const polonius = await t.user("polonius");
    const auth = basicAuth(polonius.email, polonius.api_key);
    const before = expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(auth)));
    expect(before.is_admin).toBe(false);
    expectSuccess(await t.patch("iago", `/api/v1/users/${polonius.id}`, { role: "200" }));
    expect(expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(auth))).is_admin).toBe(true);
    expectSuccess(await t.patch("iago", `/api/v1/users/${polonius.id}`, { role: String(before.role) }));
    expect(expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(auth))).is_admin).toBe(false);
  });
});
