import { afterEach, describe, expect, it } from "vitest";
import { doDeactivateRealm, doReactivateRealm } from "../../src/actions/realms.js";
import { transaction } from "../../src/appContext.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { realmStore } from "../../src/store/realms.js";
import { registerQueue } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";

// An operator deactivates an organization (Zulip's do_deactivate_realm): its clients learn it
// from their event queues, and every credential of it stops working until it is reactivated.
const t = useTestServer();

const DEACTIVATED = "This organization has been deactivated";

/** A browser signed in with the /login/ form: its cookies and the CSRF token of the web app's page. */
async function signIn(email: string): Promise<{ cookie: string; csrfToken: string }> {
  const res = await postLoginForm(t.baseUrl, email, DEV_PASSWORD);
  expect(res.status).toBe(302);
  const cookies = Object.fromEntries(res.headers.getSetCookie().map((line) => line.split(";")[0]!.split("=") as [string, string]));
  const cookie = `sessionid=${cookies.sessionid}; csrftoken=${cookies.csrftoken}`;
  const page = await (await fetch(`${t.baseUrl}/`, { headers: { Cookie: cookie } })).text();
  const csrfToken = /<meta name="parley-csrf-token" content="([^"]+)">/.exec(page)?.[1] ?? "";
  return { cookie, csrfToken };
}

async function json(browser: { cookie: string; csrfToken: string }, method: string, path: string, params: Record<string, string> = {}) {
  const url = new URL(`${t.baseUrl}/json${path}`);
  const init: RequestInit = { method, headers: { Cookie: browser.cookie, "X-CSRFToken": browser.csrfToken } };
  if (method === "GET") for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  else init.body = new URLSearchParams(params);
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

async function realmOf(email: string) {
  const user = (await t.user(email))!;
  return (await realmStore.getById(t.ctx.db.kysely, user.realm_id))!;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A test that failed half-way leaves the organization active for the next one.
afterEach(async () => {
  const realm = await realmOf("hamlet");
  await transaction(t.ctx, (tx) => doReactivateRealm(tx, realm, null));
});

describe("deactivating an organization", () => {
  it("tells parked polls, then refuses API keys, sessions and sign-in until it is reactivated", async () => {
    const realm = await realmOf("hamlet");
    // An API client's queue and a web client's queue, each with a poll parked on it.
    const queue = await registerQueue(t, "hamlet", { event_types: JSON.stringify(["realm", "message"]) });
    const browser = await signIn("othello@zulip.com");
    const webQueue = (await json(browser, "POST", "/register", { event_types: JSON.stringify(["realm"]) })).body;
    expect(webQueue.result).toBe("success");
    // Polled once without waiting first (the first use of a code path can be slow on a busy machine), then parked.
    expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }));
    expect(
      (await json(browser, "GET", "/events", { queue_id: webQueue.queue_id, last_event_id: String(webQueue.last_event_id), dont_block: "true" })).status,
    ).toBe(200);
    const apiPoll = t.get("hamlet", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id });
    const webPoll = json(browser, "GET", "/events", { queue_id: webQueue.queue_id, last_event_id: String(webQueue.last_event_id) });
    await tick(300);
    // Warm the authentication cache: a cached credential must not survive the deactivation.
    expectSuccess(await t.get("iago", "/api/v1/users/me"));
    expect((await json(browser, "GET", "/users/me")).status).toBe(200);

    const sessionsBefore = await t.ctx.db.kysely.selectFrom("sessions").select("session_key").execute();
    expect(sessionsBefore.length).toBeGreaterThan(0);
    expect(await transaction(t.ctx, (tx) => doDeactivateRealm(tx, realm, null, "test"))).toBe(true);

    const apiEvents = expectSuccess(await apiPoll).events;
    expect(apiEvents).toEqual([{ type: "realm", op: "deactivated", realm_id: realm.id, id: expect.any(Number) }]);
    const webEvents = (await webPoll).body.events;
    expect(webEvents).toEqual([{ type: "realm", op: "deactivated", realm_id: realm.id, id: expect.any(Number) }]);
    expect(t.eventViolations).toEqual([]);

    // Every API call and the next poll: Zulip's 401 (authenticated_rest_api_view turns the
    // RealmDeactivatedError of validate_api_key into an UnauthorizedError with its text).
    expectError(await t.get("iago", "/api/v1/users/me"), 401, DEACTIVATED, "UNAUTHORIZED");
    expectError(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "t", content: "x" }), 401, DEACTIVATED, "UNAUTHORIZED");
    expectError(
      await t.get("hamlet", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: apiEvents[0].id, dont_block: true }),
      401,
      DEACTIVATED,
      "UNAUTHORIZED",
    );
    // The web sessions ended (as Zulip's delete_realm_user_sessions): the browser is signed out.
    const signedOut = await json(browser, "GET", "/users/me");
    expect(signedOut.status).toBe(401);
    const realmUserIds = (await t.ctx.db.kysely.selectFrom("users").select("id").where("realm_id", "=", realm.id).execute()).map((u) => u.id);
    expect(await t.ctx.db.kysely.selectFrom("sessions").select("session_key").where("user_id", "in", realmUserIds).execute()).toEqual([]);

    // No way to sign in: API, form, and the page says why.
    expectError(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: DEV_PASSWORD }), 401, DEACTIVATED, "REALM_DEACTIVATED");
    const page = await fetch(`${t.baseUrl}/login/`);
    const html = await page.text();
    expect(html).toContain("has been deactivated");
    expect(html).not.toContain('name="password"');
    const form = await fetch(`${t.baseUrl}/accounts/login/`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ username: "hamlet@zulip.com", password: DEV_PASSWORD }),
    });
    expect(form.status).not.toBe(302);
    expect(form.headers.getSetCookie().some((c) => c.startsWith("sessionid="))).toBe(false);

    const audit = await t.ctx.db.kysely
      .selectFrom("audit_log")
      .selectAll()
      .where("realm_id", "=", realm.id)
      .where("event_type", "=", "realm_deactivated")
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.extra_data)).toEqual({ deactivation_reason: "test" });

    // Deactivating again changes nothing.
    expect(await transaction(t.ctx, (tx) => doDeactivateRealm(tx, realm, null))).toBe(false);

    // Reactivated: the API keys work again and users sign in; the ended sessions stay ended.
    expect(await transaction(t.ctx, (tx) => doReactivateRealm(tx, realm, null))).toBe(true);
    expectSuccess(await t.get("iago", "/api/v1/users/me"));
    expect((await json(browser, "GET", "/users/me")).status).toBe(401);
    expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: DEV_PASSWORD }));
    const again = await signIn("othello@zulip.com");
    expect((await json(again, "GET", "/users/me")).status).toBe(200);
  }, 60_000);

  it("deletes the organization's event queues once the deactivation event is in them", async () => {
    const realm = await realmOf("hamlet");
    // A parked poll, a queue nobody polls, and a web session's queue.
    const polled = await registerQueue(t, "hamlet", { event_types: JSON.stringify(["realm"]) });
    const idle = await registerQueue(t, "iago", {});
    const browser = await signIn("cordelia@zulip.com");
    const webQueue = (await json(browser, "POST", "/register", { event_types: JSON.stringify(["realm"]) })).body;
    expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: polled.queue_id, last_event_id: polled.last_event_id, dont_block: true }));
    const poll = t.get("hamlet", "/api/v1/events", { queue_id: polled.queue_id, last_event_id: polled.last_event_id });
    await tick(300);

    await transaction(t.ctx, (tx) => doDeactivateRealm(tx, realm, null));
    // The parked poll is answered with the event before its queue goes.
    expect(expectSuccess(await poll).events).toEqual([{ type: "realm", op: "deactivated", realm_id: realm.id, id: expect.any(Number) }]);

    // Reactivated, the same credentials reach the server again, but the queues are gone: Zulip's
    // answer for a queue it no longer has, on which a client registers again.
    await transaction(t.ctx, (tx) => doReactivateRealm(tx, realm, null));
    const badQueue = (queueId: string) => `Bad event queue ID: ${queueId}`;
    for (const [who, queue] of [
      ["hamlet", polled],
      ["iago", idle],
    ] as const) {
      const res = await t.get(who, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
      expectError(res, 400, badQueue(queue.queue_id), "BAD_EVENT_QUEUE_ID");
    }
    const again = await signIn("cordelia@zulip.com");
    const web = await json(again, "GET", "/events", { queue_id: webQueue.queue_id, last_event_id: "-1", dont_block: "true" });
    expect(web.status).toBe(400);
    expect(web.body.code).toBe("BAD_EVENT_QUEUE_ID");
    expect(t.eventViolations).toEqual([]);
  });

  it("stops the organization's scheduled messages", async () => {
    const realm = await realmOf("hamlet");
    const scheduled = expectSuccess(
      await t.post("hamlet", "/api/v1/scheduled_messages", {
        type: "stream",
        to: JSON.stringify((await t.get("hamlet", "/api/v1/get_stream_id", { stream: "Denmark" })).body.stream_id),
        topic: "later",
        content: "from a deactivated organization",
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
      }),
    );
    await transaction(t.ctx, (tx) => doDeactivateRealm(tx, realm, null));
    try {
      // The scheduled message's job, run now: it fails instead of sending.
      await t.ctx.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("kind", "=", "scheduled_message").execute();
      await t.drainJobs();
      const row = await t.ctx.db.kysely.selectFrom("scheduled_messages").selectAll().where("id", "=", scheduled.scheduled_message_id).executeTakeFirstOrThrow();
      expect(row.delivered).toBe(0);
      const sent = await t.ctx.db.kysely.selectFrom("messages").select("id").where("content", "=", "from a deactivated organization").execute();
      expect(sent).toEqual([]);
    } finally {
      await transaction(t.ctx, (tx) => doReactivateRealm(tx, realm, null));
    }
  });
});
