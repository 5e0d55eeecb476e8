import { describe, expect, it } from "vitest";
import { group } from "../../src/util/defined.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { WEB_APP_REGISTER_PARAMS } from "../../src/http/webAppState.js";
import { validateResponse } from "../support/openapi.js";
import { expectSuccess, type TestServer, useTestServer } from "../support/testApp.js";
import { formCsrf, postLoginForm } from "../support/webLogin.js";
import { at } from "../support/at.js";

// The web app's sign-in and its /json API: session cookies, CSRF tokens, the pages.
const t = useTestServer({
  dev: true,
  rateLimits: {
    enabled: true,
    user: { max: 10_000, windowSeconds: 60 },
    ip: { max: 10_000, windowSeconds: 60 },
    login: { max: 3, windowSeconds: 1800 },
    email: { max: 100, windowSeconds: 3600 },
  },
});
const secure = useTestServer({ externalUrl: "https://chat.example.com" });

/** A browser's view of a session: its cookies and the CSRF token of the page. */
interface Browser {
  cookie: string;
  csrfToken: string;
  setCookies: string[];
}

function cookiesOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";") as [string, ...string[]]; // split gives at least one part
    const eq = pair.indexOf("=");
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** The /login/ form posted by a browser that loaded it (its CSRF cookie and token), with `fields` beside. */
async function formLogin(
  server: TestServer,
  email: string,
  password: string,
  headers: Record<string, string> = {},
  fields: Record<string, string> = {},
): Promise<Response> {
  return postLoginForm(server.baseUrl, email, password, { headers: { Accept: "text/html,application/xhtml+xml", ...headers }, fields });
}

/** The value of the /login/ form's hidden `next` field in `html`, or undefined without one. */
function hiddenNext(html: string): string | undefined {
  return /<input type="hidden" name="next" value="([^"]*)">/.exec(html)?.[1];
}

/** The development login's form for `email`, posted with the page's CSRF cookie and token. */
async function devLogin(server: TestServer, email: string, headers: Record<string, string> = {}): Promise<Response> {
  const csrf = await formCsrf(server.baseUrl, "/devlogin/");
  return fetch(`${server.baseUrl}/devlogin/`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: csrf.cookie, ...headers },
    body: new URLSearchParams({ email, csrfmiddlewaretoken: csrf.token }),
  });
}

async function signIn(server: TestServer, email: string): Promise<Browser> {
  const res = await formLogin(server, email, DEV_PASSWORD);
  expect(res.status).toBe(302);
  const cookies = cookiesOf(res);
  const cookie = `sessionid=${cookies.sessionid}; csrftoken=${cookies.csrftoken}`;
  const page = await (await fetch(`${server.baseUrl}/`, { headers: { Cookie: cookie } })).text();
  const csrfToken = /<meta name="parley-csrf-token" content="([^"]+)">/.exec(page)?.[1] ?? "";
  return { cookie, csrfToken, setCookies: res.headers.getSetCookie() };
}

async function json(browser: Browser | null, method: string, path: string, params: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const url = new URL(`${t.baseUrl}/json${path}`);
  const init: RequestInit = { method, headers: { ...(browser ? { Cookie: browser.cookie } : {}), ...headers } };
  if (method === "GET") for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  else init.body = new URLSearchParams(params);
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const csrf = (browser: Browser) => ({ "X-CSRFToken": browser.csrfToken });

function webAppRegisterForm(): Record<string, string> {
  return Object.fromEntries(Object.entries(WEB_APP_REGISTER_PARAMS).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
}

describe("signing in", () => {
  it("sends a visitor without a session from / to /login/, which shows the form", async () => {
    const root = await fetch(`${t.baseUrl}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/login/");
    const login = await fetch(`${t.baseUrl}/login/`);
    expect(login.status).toBe(200);
    expect(login.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await login.text();
    expect(html).toContain('<form method="post" action="/accounts/login/">');
    expect(html).toContain('name="username"');
    expect(html).toContain('name="password"');
    expect(html).toContain('href="/devlogin/"'); // development mode
  });

  it("shows the error on the form after a wrong password, keeping the email", async () => {
    const res = await formLogin(t, "cordelia@zulip.com", "not the password");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('role="alert">Your username or password is incorrect</p>');
    expect(html).toContain('value="cordelia@zulip.com"');
    expect(cookiesOf(res).sessionid).toBeUndefined();
  });

  it("keeps the page's next through the password form and goes there after signing in", async () => {
    const next = "/#narrow/channel/1-general";
    const page = await (await fetch(`${t.baseUrl}/login/?next=${encodeURIComponent(next)}`)).text();
    expect(hiddenNext(page)).toBe(next);

    // A failed attempt shows the form again with the same next, and signing in then goes there.
    const failed = await formLogin(t, "hamlet@zulip.com", "not the password", {}, { next });
    expect(failed.status).toBe(401);
    expect(hiddenNext(await failed.text())).toBe(next);
    const res = await formLogin(t, "hamlet@zulip.com", DEV_PASSWORD, {}, { next });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(next);
    expect(cookiesOf(res).sessionid).toBeTruthy();
  });

  it("goes to a narrow's link after signing in, its hash as it was posted", async () => {
    for (const next of ["/#narrow/channel/1-x", "/#narrow/channel/3-Verona/topic/caf.C3.A9.20.28v1.2E2.29/near/12", "/#settings/profile"]) {
      const res = await formLogin(t, "hamlet@zulip.com", DEV_PASSWORD, {}, { next });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(next);
    }
  });

  it("serves the sign-in page's script, which the page loads and its policy allows", async () => {
    const page = await fetch(`${t.baseUrl}/login/`);
    expect(await page.text()).toContain('<script src="/static/login.js"></script>');
    expect(page.headers.get("content-security-policy")?.split("; ")).toContain("script-src 'self'");
    const script = await fetch(`${t.baseUrl}/static/login.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const text = await script.text();
    // The hashes the web app routes, and the two places a next goes.
    expect(text).toContain('"narrow"');
    expect(text).toContain('form[action="/accounts/login/"]');
    expect(text).toContain("a.external-login");
  });

  it("ignores a next that is not a path on this server, on the page and after signing in", async () => {
    for (const next of ["//evil.example", "https://evil.example", "/\\evil.example"]) {
      const page = await (await fetch(`${t.baseUrl}/login/?next=${encodeURIComponent(next)}`)).text();
      expect(hiddenNext(page)).toBeUndefined();
      expect(page).not.toContain("evil.example");
      const failed = await formLogin(t, "iago@zulip.com", "not the password", {}, { next });
      expect(hiddenNext(await failed.text())).toBeUndefined();
      const res = await formLogin(t, "iago@zulip.com", DEV_PASSWORD, {}, { next });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/");
    }
    // Browsers drop a tab from a URL, which would make this //evil.example: it stays a path.
    const res = await formLogin(t, "iago@zulip.com", DEV_PASSWORD, {}, { next: "/\t/evil.example" });
    expect(res.headers.get("location")).toBe("/%09/evil.example");
  });

  it("applies the login rate limit to the form, and says when to try again", async () => {
    for (let i = 0; i < 3; i++) expect((await formLogin(t, "prospero@zulip.com", "wrong")).status).toBe(401);
    const limited = await formLogin(t, "prospero@zulip.com", DEV_PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.text()).toMatch(/Too many failed attempts\. Try again in \d+ seconds\./);
    expect(cookiesOf(limited).sessionid).toBeUndefined();
  });

  it("sets HttpOnly, SameSite=Lax session and CSRF cookies, not Secure on http", async () => {
    const res = await formLogin(t, "hamlet@zulip.com", DEV_PASSWORD);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    const lines = res.headers.getSetCookie();
    for (const name of ["sessionid", "csrftoken"]) {
      const line = lines.find((l) => l.startsWith(`${name}=`))!;
      expect(line).toMatch(/; HttpOnly/i);
      expect(line).toMatch(/; SameSite=Lax/i);
      expect(line).toMatch(/; Path=\//);
      expect(line).not.toMatch(/; Secure/i);
    }
  });

  it("marks the cookies Secure when PARLEY_EXTERNAL_URL is https", async () => {
    expect((await fetch(`${secure.baseUrl}/login/`)).headers.getSetCookie()).toEqual([expect.stringMatching(/^login_csrftoken=.*; Secure/i)]);
    const res = await formLogin(secure, "hamlet@zulip.com", DEV_PASSWORD);
    expect(res.status).toBe(302);
    const lines = res.headers.getSetCookie();
    // The session's two, and the sign-in form's token, forgotten.
    expect(lines.map((line) => line.split("=")[0])).toEqual(["sessionid", "csrftoken", "login_csrftoken"]);
    for (const line of lines) expect(line).toMatch(/; Secure/i);
  });

  it("refuses the sign-in form without the CSRF token of its page (login CSRF): 403, no session", async () => {
    const page = await fetch(`${t.baseUrl}/login/`);
    const cookieLine = page.headers.getSetCookie().find((line) => line.startsWith("login_csrftoken="))!;
    expect(cookieLine).toMatch(/; Path=\/accounts\/login\/;/);
    expect(cookieLine).toMatch(/; HttpOnly/i);
    expect(cookieLine).toMatch(/; SameSite=Strict/i);
    const own = await formCsrf(t.baseUrl);
    const other = await formCsrf(t.baseUrl);
    expect(await (await fetch(`${t.baseUrl}/login/`, { headers: { Cookie: own.cookie } })).text()).toContain(
      `<input type="hidden" name="csrfmiddlewaretoken" value="${own.token}">`,
    );
    const post = (body: Record<string, string>, cookie?: string, accept = "application/json") =>
      fetch(`${t.baseUrl}/accounts/login/`, {
        method: "POST",
        redirect: "manual",
        headers: { Accept: accept, ...(cookie ? { Cookie: cookie } : {}) },
        body: new URLSearchParams({ username: "hamlet@zulip.com", password: DEV_PASSWORD, ...body }),
      });
    const refusals: Array<[Response, string]> = [
      [await post({}), "CSRF cookie not set."],
      [await post({ csrfmiddlewaretoken: own.token }), "CSRF cookie not set."],
      [await post({}, own.cookie), "CSRF token missing."],
      [await post({ csrfmiddlewaretoken: "x".repeat(32) }, own.cookie), "CSRF token incorrect."],
      // Another page's token (an attacker's own) does not go with this browser's cookie.
      [await post({ csrfmiddlewaretoken: other.token }, own.cookie), "CSRF token incorrect."],
    ];
    for (const [res, reason] of refusals) {
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ result: "error", msg: `CSRF error: ${reason}`, code: "CSRF_FAILED" });
      expect(cookiesOf(res).sessionid).toBeUndefined();
    }
    // A person (a browser asking for HTML) gets the form again, with a token that works.
    const again = await post({}, undefined, "text/html,application/xhtml+xml");
    expect(again.status).toBe(403);
    expect(cookiesOf(again).sessionid).toBeUndefined();
    const html = await again.text();
    expect(html).toContain('role="alert">Your sign-in form expired (CSRF verification failed). Please log in again.</p>');
    const token = group(/name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html)!, 1);
    const cookie = `login_csrftoken=${cookiesOf(again).login_csrftoken}`;
    const signedIn = await post({ csrfmiddlewaretoken: token }, cookie);
    expect(signedIn.status).toBe(302);
    expect(cookiesOf(signedIn).sessionid).toBeTruthy();
    // The development login's forms carry a token of their own.
    const dev = await fetch(`${t.baseUrl}/devlogin/`, { method: "POST", redirect: "manual", body: new URLSearchParams({ email: "hamlet@zulip.com" }) });
    expect(dev.status).toBe(403);
    expect(cookiesOf(dev).sessionid).toBeUndefined();
  });

  it("serves the app at / with a CSRF token and a policy that allows no inline script", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    expect(hamlet.csrfToken).toMatch(/^\S{20,}$/);
    expect(hamlet.cookie).toContain(`csrftoken=${hamlet.csrfToken}`);
    const res = await fetch(`${t.baseUrl}/`, { headers: { Cookie: hamlet.cookie } });
    expect(res.status).toBe(200);
    const policy = res.headers.get("content-security-policy")!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain(`<meta name="parley-user-id" content="${(await t.user("hamlet")).id}">`);
    // Every script is a file of the app (no inline code), served from this server; the one
    // element that is not, the embedded state, is data the browser does not run.
    for (const tag of html.match(/<script[^>]*>/g) ?? []) {
      if (tag === '<script type="application/json" id="parley-state">') continue;
      const src = /src="([^"]+)"/.exec(tag)?.[1];
      expect(src).toMatch(/^\/static\/webapp\//);
      expect((await fetch(`${t.baseUrl}${src}`)).status).toBe(200);
    }
    // A signed-in visitor of /login/ goes to the app.
    const login = await fetch(`${t.baseUrl}/login/`, { redirect: "manual", headers: { Cookie: hamlet.cookie } });
    expect(login.headers.get("location")).toBe("/");
  });

  it("embeds the app's /register answer in the page: a live queue, and text that cannot end the element", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    // An unread message whose topic would end the element and start a script, were it written as it is.
    const topic = "</script><script>alert(1)</script><!--";
    await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic, content: "unread" });
    const html = await (await fetch(`${t.baseUrl}/`, { headers: { Cookie: hamlet.cookie } })).text();
    const found = /<script type="application\/json" id="parley-state">([^<]*)<\/script><\/body><\/html>\n$/.exec(html);
    expect(found).not.toBeNull();
    const state = JSON.parse(at(found!, 1));
    expect(state).toMatchObject({ result: "success", realm_name: expect.any(String), unread_msgs: expect.any(Object) });
    expect(state.unread_msgs.streams.map((c: any) => c.topic)).toContain(topic);
    // What the app would get from its own POST /json/register, the queue aside.
    const own = expectSuccess(await json(hamlet, "POST", "/register", webAppRegisterForm(), csrf(hamlet)));
    const withoutQueue = (state: any) => {
      const rest = { ...state };
      for (const key of ["queue_id", "last_event_id", "server_timestamp", "presences"]) delete rest[key];
      return rest;
    };
    expect(withoutQueue(state)).toEqual(withoutQueue(own));
    expect(state.queue_id).not.toBe(own.queue_id);
    // The page's queue is the app's: its events arrive.
    const poll = json(hamlet, "GET", "/events", { queue_id: state.queue_id, last_event_id: String(state.last_event_id) });
    await t.post("othello", "/api/v1/messages", { type: "private", to: JSON.stringify(["hamlet@zulip.com"]), content: "embedded" });
    expect(expectSuccess(await poll).events.some((e: any) => e.type === "message" && e.message.content === "<p>embedded</p>")).toBe(true);
  });

  it("signs out: the session ends and its cookies are cleared", async () => {
    const iago = await signIn(t, "iago@zulip.com");
    expectSuccess(await json(iago, "GET", "/users/me"));
    const out = await fetch(`${t.baseUrl}/accounts/logout/`, { method: "POST", redirect: "manual", headers: { Cookie: iago.cookie } });
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toBe("/login/");
    const cleared = cookiesOf(out);
    expect(cleared.sessionid).toBe("");
    expect(cleared.csrftoken).toBe("");
    expect((await json(iago, "GET", "/users/me")).status).toBe(401);
    expect((await fetch(`${t.baseUrl}/`, { redirect: "manual", headers: { Cookie: iago.cookie } })).headers.get("location")).toBe("/login/");
  });

  it("refuses sign-in and sign-out forms posted from another site (login CSRF), and takes its own", async () => {
    const crossSite: Array<Record<string, string>> = [{ Origin: "https://evil.example" }, { "Sec-Fetch-Site": "cross-site" }, { Origin: "null" }];
    for (const headers of crossSite) {
      // With the form's own token, even: what refuses it is where it was posted from.
      const res = await formLogin(t, "hamlet@zulip.com", DEV_PASSWORD, { ...headers, Accept: "*/*" });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ result: "error", code: "CSRF_FAILED" });
      expect(cookiesOf(res).sessionid).toBeUndefined();
      const dev = await devLogin(t, "hamlet@zulip.com", headers);
      expect(dev.status).toBe(403);
      expect(cookiesOf(dev).sessionid).toBeUndefined();
    }
    const iago = await signIn(t, "iago@zulip.com");
    const out = await fetch(`${t.baseUrl}/accounts/logout/`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: iago.cookie, Origin: "https://evil.example" },
    });
    expect(out.status).toBe(403);
    expectSuccess(await json(iago, "GET", "/users/me"));

    const own = new URL(t.baseUrl).origin;
    const res = await formLogin(t, "hamlet@zulip.com", DEV_PASSWORD, { Origin: own, "Sec-Fetch-Site": "same-origin" });
    expect(res.status).toBe(302);
    expect(cookiesOf(res).sessionid).toBeTruthy();
    expect((await formLogin(t, "hamlet@zulip.com", DEV_PASSWORD, { Origin: "http://localhost:9991" })).status).toBe(302); // PARLEY_EXTERNAL_URL's origin
  });
});

describe("/json: the API with the session", () => {
  it("answers as /api/v1 does, and refuses a request without a session", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    const viaJson = await json(hamlet, "GET", "/users/me");
    validateResponse("GET", "/api/v1/users/me", viaJson.status, viaJson.body);
    const viaApi = await t.get("hamlet", "/api/v1/users/me");
    expect(viaJson.body).toEqual(viaApi.body);

    const anonymous = await json(null, "GET", "/users/me");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ result: "error", msg: "Not logged in: API authentication or user session required", code: "UNAUTHORIZED" });
    expect(anonymous.headers.get("www-authenticate")).toBe('Session realm="zulip"');
    const forged = await json({ cookie: "sessionid=not-a-session", csrfToken: "", setCookies: [] }, "GET", "/users/me");
    expect(forged.status).toBe(401);
    // Endpoints that need no user work without a session.
    expectSuccess(await json(null, "GET", "/server_settings"));
  });

  it("refuses a state-changing request without the CSRF token, and changes nothing", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    const message = { type: "stream", to: "Verona", topic: "csrf", content: "forged" };
    const missing = await json(hamlet, "POST", "/messages", message);
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ result: "error", msg: "CSRF error: CSRF token missing.", code: "CSRF_FAILED" });
    const wrong = await json(hamlet, "POST", "/messages", message, { "X-CSRFToken": "x".repeat(hamlet.csrfToken.length) });
    expect(wrong.status).toBe(403);
    expect(wrong.body.msg).toBe("CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
    // Another session's token is not this one's.
    const othello = await signIn(t, "othello@zulip.com");
    expect((await json(hamlet, "POST", "/messages", message, csrf(othello))).status).toBe(403);
    expect((await json(hamlet, "PATCH", "/settings", { full_name: "Forged" })).body.code).toBe("CSRF_FAILED");
    expect((await json(hamlet, "DELETE", "/users/me/subscriptions", { subscriptions: '["Verona"]' })).body.code).toBe("CSRF_FAILED");
    expect((await t.get("hamlet", "/api/v1/users/me/subscriptions")).body.subscriptions.map((s: any) => s.name)).toContain("Verona");
    const topic = await t.get("hamlet", "/api/v1/messages", {
      narrow: [{ operator: "topic", operand: "csrf" }],
      anchor: "newest",
      num_before: 10,
      num_after: 0,
    });
    expect(topic.body.messages).toEqual([]);
    expect((await t.user("hamlet")).full_name).toBe("King Hamlet");
  });

  it("accepts it with the token; the message comes from the website client", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    const sent = expectSuccess(
      await json(hamlet, "POST", "/messages", { type: "stream", to: "Verona", topic: "web", content: "from the browser" }, csrf(hamlet)),
    );
    const fetched = await json(hamlet, "GET", `/messages/${sent.id}`);
    expect(fetched.body.message).toMatchObject({ id: sent.id, client: "website", content: "<p>from the browser</p>" });
  });

  it("registers and long-polls events with the session (GET needs no token)", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    const registered = expectSuccess(
      await json(hamlet, "POST", "/register", { event_types: JSON.stringify(["message"]), apply_markdown: "true" }, csrf(hamlet)),
    );
    const poll = json(hamlet, "GET", "/events", { queue_id: registered.queue_id, last_event_id: String(registered.last_event_id) });
    await t.post("othello", "/api/v1/messages", { type: "private", to: JSON.stringify(["hamlet@zulip.com"]), content: "psst" });
    const events = expectSuccess(await poll);
    expect(events.events.some((e: any) => e.type === "message" && e.message.content === "<p>psst</p>")).toBe(true);
    expectSuccess(await json(hamlet, "DELETE", "/events", { queue_id: registered.queue_id }, csrf(hamlet)));
  });

  it("takes tus uploads with the session only with its CSRF token, and changes nothing without", async () => {
    const hamlet = await signIn(t, "hamlet@zulip.com");
    const tus = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      fetch(`${t.baseUrl}/api/v1/tus${path}`, { method, body, headers: { Cookie: hamlet.cookie, "Tus-Resumable": "1.0.0", ...headers } });
    const create = { "Upload-Length": "5", "Upload-Metadata": `filename ${Buffer.from("notes.txt").toString("base64")}` };
    const refused = await tus("POST", "", create);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: "CSRF error: CSRF token missing." });
    expect((await tus("POST", "", { ...create, "X-CSRFToken": "not-the-token" })).status).toBe(403);
    const created = await tus("POST", "", { ...create, ...csrf(hamlet) });
    expect(created.status).toBe(201);
    const at = created.headers.get("location")!.replace(/^.*\/api\/v1\/tus/, "");
    // HEAD changes nothing: the session is enough. PATCH needs the token, and without it no byte is kept.
    expect((await tus("HEAD", at, {})).headers.get("upload-offset")).toBe("0");
    const patch = { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" };
    expect((await tus("PATCH", at, patch, "hello")).status).toBe(403);
    expect((await tus("HEAD", at, {})).headers.get("upload-offset")).toBe("0");
    const done = await tus("PATCH", at, { ...patch, ...csrf(hamlet) }, "hello");
    expect(done.status).toBe(200);
    const answer = await done.json();
    expect(answer).toMatchObject({ filename: "notes.txt", url: expect.stringMatching(/^\/user_uploads\//) });
    // The finished upload's answer, asked for again (its first answer lost), needs the token too.
    const final = { "Upload-Offset": "5", "Content-Type": "application/offset+octet-stream" };
    expect((await tus("PATCH", at, final)).status).toBe(403);
    expect(await (await tus("PATCH", at, { ...final, ...csrf(hamlet) })).json()).toEqual(answer);
    // Terminating needs it as well: without it the upload stays.
    const other = await tus("POST", "", { ...create, ...csrf(hamlet) });
    const otherAt = other.headers.get("location")!.replace(/^.*\/api\/v1\/tus/, "");
    expect((await tus("DELETE", otherAt, {})).status).toBe(403);
    expect((await tus("HEAD", otherAt, {})).status).toBe(200);
    expect((await tus("DELETE", otherAt, csrf(hamlet))).status).toBe(204);
  });

  it("takes API-key credentials too, without a CSRF token", async () => {
    const res = await fetch(`${t.baseUrl}/json/users/me/presence`, {
      method: "POST",
      headers: { Authorization: await t.authHeader("othello") },
      body: new URLSearchParams({ status: "active" }),
    });
    expect(res.status).toBe(200);
  });
});

describe("development login", () => {
  it("lists the organization's people and signs in as the one picked", async () => {
    const page = await (await fetch(`${t.baseUrl}/devlogin/`)).text();
    expect(page).toContain('value="desdemona@zulip.com"');
    expect(page).not.toContain("welcome-bot@zulip.com"); // bots cannot sign in
    const res = await devLogin(t, "desdemona@zulip.com");
    expect(res.status).toBe(302);
    const cookies = cookiesOf(res);
    const me = await fetch(`${t.baseUrl}/json/users/me`, { headers: { Cookie: `sessionid=${cookies.sessionid}` } });
    expect(await me.json()).toMatchObject({ email: "desdemona@zulip.com" });
    const unknown = await devLogin(t, "nobody@zulip.com");
    expect(unknown.status).toBe(400);
    expect(cookiesOf(unknown).sessionid).toBeUndefined();
  });

  it("does not exist outside development mode", async () => {
    expect((await fetch(`${secure.baseUrl}/devlogin/`)).status).toBe(404);
    const res = await fetch(`${secure.baseUrl}/devlogin/`, { method: "POST", redirect: "manual", body: new URLSearchParams({ email: "desdemona@zulip.com" }) });
    expect(res.status).toBe(404);
    expect(cookiesOf(res).sessionid).toBeUndefined();
    expect(await (await fetch(`${secure.baseUrl}/login/`)).text()).not.toContain("/devlogin/");
  });
});
