import { describe, expect, it } from "vitest";
import { NATS_URL, POSTGRES_URL, soon, twoProcesses } from "../support/multiProcess.js";
import { apiCaller, useServerProcesses } from "../support/process.js";
import { postLoginForm } from "../support/webLogin.js";

/**
 * Ending a web session in one process while its browser long-polls another: the session's end
 * travels with the authentication cache's invalidations over the bus, and the process holding the
 * queue deletes it, answering the parked poll at once (events/queues.ts applyAuthChange).
 */
const servers = useServerProcesses();

describe.skipIf(!NATS_URL || !POSTGRES_URL)("sessions across processes", () => {
  it("a session ended through one process loses its queue and its requests on the other at once", async () => {
    const { a, b, owner } = await twoProcesses(servers);
    const email = "roaming@example.com";
    const password = "a long enough password";
    expect((await apiCaller(() => a.baseUrl, owner)("POST", "/users", { email, password, full_name: "Roaming User" })).status).toBe(200);
    const key = (await apiCaller(() => a.baseUrl, owner)("POST", "/fetch_api_key", { username: email, password })).body;
    const onA = apiCaller(() => a.baseUrl, { email: key.email, apiKey: key.api_key });

    // A browser signed in on B, with a queue there and a long-poll parked on it.
    const login = await postLoginForm(b.baseUrl, email, password);
    expect(login.status).toBe(302);
    const cookies = Object.fromEntries(
      login.headers.getSetCookie().map((line) => {
        const pair = line.split(";")[0] ?? "";
        return [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
      }),
    );
    const headers = { Cookie: `sessionid=${cookies.sessionid}; csrftoken=${cookies.csrftoken}`, "X-CSRFToken": String(cookies.csrftoken) };
    const registered = await (
      await fetch(`${b.baseUrl}/json/register`, { method: "POST", headers, body: new URLSearchParams({ event_types: '["message"]' }) })
    ).json();
    expect(registered.result).toBe("success");
    const poll = fetch(`${b.baseUrl}/json/events?queue_id=${encodeURIComponent(registered.queue_id)}&last_event_id=${registered.last_event_id}`, {
      headers,
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
    // B has authenticated the session (and answers it from its cache from now on).
    expect((await fetch(`${b.baseUrl}/json/users/me`, { headers })).status).toBe(200);

    const listed = await onA("GET", "/users/me/sessions");
    expect(listed.body.sessions).toHaveLength(1);
    const started = Date.now();
    expect((await onA("DELETE", `/users/me/sessions/${listed.body.sessions[0].id}`)).status).toBe(200);
    const answered = await poll;
    expect(answered.status).toBe(200);
    // Long before the heartbeat (45 s) would have answered it.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(
      await soon(
        async () => (await fetch(`${b.baseUrl}/json/users/me`, { headers })).status,
        (status) => status === 401,
      ),
    ).toBe(401);
  }, 120_000);
});
