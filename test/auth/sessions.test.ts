import { afterEach, describe, expect, it, vi } from "vitest";
import { SESSION_ACTIVITY_STEP_SECONDS } from "../../src/actions/sessions.js";
import type { WebSession } from "../../src/contract/responses.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { type ApiResponse, expectError, expectSuccess, type TestServer, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";

// A user's web sessions (Parley's extension): the list, ending one, some or all, and what ends
// them without asking (a password change, a deactivation). The X-Forwarded-For header stands
// for the browser's address (127.0.0.1 is a trusted proxy here).
const t = useTestServer({ trustedProxies: ["127.0.0.1"] });

afterEach(() => {
  vi.useRealTimers();
});

const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15";
const EDGE_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0";

/** A signed-in browser: its cookies, the CSRF token of its page, and what it says about itself. */
interface Browser {
  cookie: string;
  sessionKey: string;
  csrfToken: string;
  userAgent: string;
  ip: string;
}

async function signIn(server: TestServer, email: string, userAgent: string, ip: string, password = DEV_PASSWORD): Promise<Browser> {
  const res = await postLoginForm(server.baseUrl, email, password, { headers: { "User-Agent": userAgent, "X-Forwarded-For": ip } });
  expect(res.status).toBe(302);
  const cookies = Object.fromEntries(
    res.headers.getSetCookie().map((line) => {
      const pair = line.split(";")[0] ?? "";
      return [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
    }),
  );
  const cookie = `sessionid=${cookies.sessionid}; csrftoken=${cookies.csrftoken}`;
  return { cookie, sessionKey: String(cookies.sessionid), csrfToken: String(cookies.csrftoken), userAgent, ip };
}

async function json(browser: Browser, method: string, path: string, params: Record<string, string> = {}) {
  const url = new URL(`${t.baseUrl}/json${path}`);
  const headers: Record<string, string> = { Cookie: browser.cookie, "User-Agent": browser.userAgent, "X-Forwarded-For": browser.ip };
  if (method !== "GET") headers["X-CSRFToken"] = browser.csrfToken;
  const init: RequestInit = { method, headers };
  if (method === "GET") for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  else init.body = new URLSearchParams(params);
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function sessionsOf(browser: Browser): Promise<WebSession[]> {
  return expectSuccess(await json(browser, "GET", "/users/me/sessions")).sessions;
}

/** The entry of the list for `browser`'s own session. */
async function ownEntry(browser: Browser): Promise<WebSession> {
  const own = (await sessionsOf(browser)).find((s) => s.is_current);
  expect(own).toBeDefined();
  return own!;
}

/** Registers an event queue with the session and parks a long-poll on it; resolves with the poll's answer. */
async function parkPoll(browser: Browser): Promise<{ queueId: string; answer: Promise<ApiResponse> }> {
  const registered = expectSuccess(await json(browser, "POST", "/register", { event_types: JSON.stringify(["message"]) }));
  const answer = json(browser, "GET", "/events", { queue_id: registered.queue_id, last_event_id: String(registered.last_event_id) });
  // The poll is parked once the queue has a waiter.
  await vi.waitFor(() => expect(t.ctx.eventQueues.get(registered.queue_id)?.isPolled).toBe(true));
  return { queueId: registered.queue_id, answer };
}

/** Resolves with the promise's value, or fails when it takes longer than `ms` (a heartbeat is 45 s away). */
async function within<T>(promise: Promise<T>, ms = 3000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not answered within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("GET /users/me/sessions", () => {
  it("lists the user's sessions: browser and system in short, address, times, which one asks; never a cookie", async () => {
    const laptop = await signIn(t, "cordelia@zulip.com", FIREFOX_LINUX, "203.0.113.7");
    const desk = await signIn(t, "cordelia@zulip.com", EDGE_WINDOWS, "198.51.100.20");
    await signIn(t, "hamlet@zulip.com", SAFARI_MAC, "192.0.2.1"); // another user's: not listed
    const sessions = await sessionsOf(laptop);
    expect(sessions).toHaveLength(2);
    const byBrowser = Object.fromEntries(sessions.map((s) => [s.browser, s]));
    expect(byBrowser["Firefox 128"]).toMatchObject({ os: "Linux", ip_address: "203.0.113.7", is_current: true });
    expect(byBrowser["Microsoft Edge 120"]).toMatchObject({ os: "Windows 10", ip_address: "198.51.100.20", is_current: false });
    for (const s of sessions) {
      expect(s.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(s.last_active_at).toBeGreaterThanOrEqual(s.created_at);
      expect(s.expires_at - s.created_at).toBe(14 * 24 * 3600);
    }
    const listed = JSON.stringify(sessions);
    expect(listed).not.toContain(laptop.sessionKey);
    expect(listed).not.toContain(desk.sessionKey);
    // The other browser sees the same sessions, itself as the current one.
    expect((await ownEntry(desk)).browser).toBe("Microsoft Edge 120");
    // With the API key: the same list, none of them current.
    const viaApi = expectSuccess(await t.get("cordelia", "/api/v1/users/me/sessions")).sessions as WebSession[];
    expect(viaApi.map((s) => s.id).sort()).toEqual(sessions.map((s) => s.id).sort());
    expect(viaApi.every((s) => !s.is_current)).toBe(true);
  });

  it("records the last use at most every few minutes, with the address and browser of that use", async () => {
    const browser = await signIn(t, "prospero@zulip.com", FIREFOX_LINUX, "203.0.113.50");
    const first = await ownEntry(browser);
    expect(first.last_active_at).toBe(first.created_at);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    // A minute later, from another address: nothing is written.
    vi.setSystemTime(start + 60_000);
    const moved = { ...browser, ip: "203.0.113.51", userAgent: SAFARI_MAC };
    const early = await ownEntry(moved);
    expect(early).toMatchObject({ last_active_at: first.created_at, ip_address: "203.0.113.50", browser: "Firefox 128" });
    // Past the step: the next request records its time, address and User-Agent.
    vi.setSystemTime(start + (SESSION_ACTIVITY_STEP_SECONDS + 60) * 1000);
    await json(moved, "GET", "/users/me");
    const later = await ownEntry(moved);
    expect(later.last_active_at).toBeGreaterThanOrEqual(first.created_at + SESSION_ACTIVITY_STEP_SECONDS);
    expect(later).toMatchObject({ ip_address: "203.0.113.51", browser: "Safari 17", os: "macOS" });
    const row = await t.ctx.db.kysely.selectFrom("sessions").select("user_agent").where("session_key", "=", browser.sessionKey).executeTakeFirstOrThrow();
    expect(row.user_agent).toBe(SAFARI_MAC);
  });
});

describe("DELETE /users/me/sessions/{session_id}", () => {
  it("ends that session at once: its requests are refused, its parked long-poll is answered", async () => {
    const mine = await signIn(t, "othello@zulip.com", FIREFOX_LINUX, "203.0.113.1");
    const lost = await signIn(t, "othello@zulip.com", EDGE_WINDOWS, "203.0.113.2");
    const lostId = (await ownEntry(lost)).id;
    const { queueId, answer } = await parkPoll(lost);
    expectSuccess(await json(mine, "DELETE", `/users/me/sessions/${lostId}`));
    expectSuccess(await within(answer));
    expect(t.ctx.eventQueues.get(queueId)).toBeUndefined();
    expect((await json(lost, "GET", "/users/me")).status).toBe(401);
    expect((await json(lost, "GET", "/events", { queue_id: queueId, last_event_id: "-1" })).status).toBe(401);
    expect((await sessionsOf(mine)).map((s) => s.id)).not.toContain(lostId);
    // The one that asked goes on.
    expectSuccess(await json(mine, "GET", "/users/me"));
  });

  it("answers 404 for an id that is not one of the user's sessions, ending nothing", async () => {
    const hers = await signIn(t, "desdemona@zulip.com", FIREFOX_LINUX, "203.0.113.9");
    const herId = (await ownEntry(hers)).id;
    expectError(await t.delete("iago", `/api/v1/users/me/sessions/${herId}`), 404, "Session does not exist");
    expectError(await t.delete("iago", "/api/v1/users/me/sessions/not-a-session"), 404, "Session does not exist");
    // Nor does the cookie's value name a session.
    expectError(await json(hers, "DELETE", `/users/me/sessions/${hers.sessionKey}`), 404, "Session does not exist");
    expectSuccess(await json(hers, "GET", "/users/me"));
  });
});

describe("DELETE /users/me/sessions", () => {
  it("with keep_current, ends every other session; without, all of them (log out everywhere)", async () => {
    const a = await signIn(t, "aaron@zulip.com", FIREFOX_LINUX, "203.0.113.11");
    const b = await signIn(t, "aaron@zulip.com", SAFARI_MAC, "203.0.113.12");
    const c = await signIn(t, "aaron@zulip.com", EDGE_WINDOWS, "203.0.113.13");
    const polled = await parkPoll(b);
    expect(expectSuccess(await json(a, "DELETE", "/users/me/sessions", { keep_current: "true" })).ended).toBe(2);
    expectSuccess(await within(polled.answer));
    expect((await json(b, "GET", "/users/me")).status).toBe(401);
    expect((await json(c, "GET", "/users/me")).status).toBe(401);
    expect((await sessionsOf(a)).map((s) => s.browser)).toEqual(["Firefox 128"]);

    const d = await signIn(t, "aaron@zulip.com", SAFARI_MAC, "203.0.113.14");
    const own = await parkPoll(a);
    expect(expectSuccess(await json(a, "DELETE", "/users/me/sessions")).ended).toBe(2);
    expectSuccess(await within(own.answer));
    expect((await json(a, "GET", "/users/me")).status).toBe(401);
    expect((await json(d, "GET", "/users/me")).status).toBe(401);
    expect(expectSuccess(await t.get("aaron", "/api/v1/users/me/sessions")).sessions).toEqual([]);
    // The API key is not a session: it keeps working.
    expectSuccess(await t.get("aaron", "/api/v1/users/me"));
  });
});

describe("what ends sessions without asking", () => {
  it("signing out ends the session's event queue too", async () => {
    const browser = await signIn(t, "polonius@zulip.com", FIREFOX_LINUX, "203.0.113.30");
    const { queueId, answer } = await parkPoll(browser);
    const out = await fetch(`${t.baseUrl}/accounts/logout/`, { method: "POST", redirect: "manual", headers: { Cookie: browser.cookie } });
    expect(out.status).toBe(302);
    expectSuccess(await within(answer));
    expect(t.ctx.eventQueues.get(queueId)).toBeUndefined();
  });

  it("a password change from settings ends every other session; the one it came from stays", async () => {
    const here = await signIn(t, "ZOE@zulip.com", FIREFOX_LINUX, "203.0.113.40");
    const there = await signIn(t, "ZOE@zulip.com", SAFARI_MAC, "203.0.113.41");
    const polled = await parkPoll(there);
    expectSuccess(await json(here, "PATCH", "/settings", { old_password: DEV_PASSWORD, new_password: "a-new-password-1" }));
    expectSuccess(await within(polled.answer));
    expect((await json(there, "GET", "/users/me")).status).toBe(401);
    expectSuccess(await json(here, "GET", "/users/me"));
    expect((await sessionsOf(here)).map((s) => s.is_current)).toEqual([true]);
    // From an API key (no session of its own): every session ends.
    expectSuccess(await t.patch("ZOE", "/api/v1/settings", { old_password: "a-new-password-1", new_password: "a-new-password-2" }));
    expect((await json(here, "GET", "/users/me")).status).toBe(401);
  });

  it("deactivation ends every session and event queue at once and refuses every credential", async () => {
    const browser = await signIn(t, "shiva@zulip.com", FIREFOX_LINUX, "203.0.113.60");
    const web = await parkPoll(browser);
    // A queue of the API key (the mobile app's), long-polled too. (Their answers are checked
    // against the reference elsewhere; compiling those schemas here would take seconds.)
    const unchecked = { skipOpenApi: true };
    const apiQueue = expectSuccess(await t.post("shiva", "/api/v1/register", { event_types: JSON.stringify(["message"]) }, unchecked));
    const apiPoll = t.get("shiva", "/api/v1/events", { queue_id: apiQueue.queue_id, last_event_id: apiQueue.last_event_id }, unchecked);
    await vi.waitFor(() => expect(t.ctx.eventQueues.get(apiQueue.queue_id)?.isPolled).toBe(true));

    expectSuccess(await t.delete("iago", `/api/v1/users/${(await t.user("shiva")).id}`));
    expectSuccess(await within(web.answer));
    expectSuccess(await within(apiPoll));
    expect(t.ctx.eventQueues.get(web.queueId)).toBeUndefined();
    expect(t.ctx.eventQueues.get(apiQueue.queue_id)).toBeUndefined();
    expect((await json(browser, "GET", "/users/me")).status).toBe(401);
    expectError(await t.get("shiva", "/api/v1/users/me"), 401, "Account is deactivated", "UNAUTHORIZED");
    const rows = await t.ctx.db.kysely
      .selectFrom("sessions")
      .select("session_key")
      .where("user_id", "=", (await t.user("shiva")).id)
      .execute();
    expect(rows).toEqual([]);
    // Nor can the password open a new session.
    const again = await postLoginForm(t.baseUrl, "shiva@zulip.com", DEV_PASSWORD);
    expect(again.headers.getSetCookie().some((line) => line.startsWith("sessionid=") && !line.startsWith("sessionid=;"))).toBe(false);
    expect(again.status).toBeGreaterThanOrEqual(400);
  });
});
