import { beforeAll, describe, expect, it } from "vitest";
import { transaction } from "../../src/appContext.js";
import { doCreateUser } from "../../src/actions/createUser.js";
import { doSetUpNewRealm } from "../../src/actions/onboarding.js";
import { doCreateRealm } from "../../src/actions/realms.js";
import type { User } from "../../src/db/schema.js";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { hashPassword } from "../../src/lib/passwords.js";
import { Role } from "../../src/models/roles.js";
import { basicAuth } from "../support/auth.js";
import { type ApiResponse, expectError, expectSuccess, fetchWithHost, useTestServer } from "../support/testApp.js";

// With a root domain, each organization is served at its own host (Zulip's subdomains): its
// accounts' credentials and sessions work there only, sign-in finds accounts of that organization
// only (one email address may have an account in each), and files stay on their organization's host.
const t = useTestServer({ rootDomain: "parley.test", externalUrl: "http://parley.test:9991" });

const ZULIP = "zulip.parley.test:9991";
const ACME = "acme.parley.test:9991";
const BARE = "parley.test:9991";
const NOWHERE = "nowhere.parley.test:9991";
const ACME_PASSWORD = "acme-Password-1";
const WRONG_HOST = "Account is not associated with this subdomain";

let zulipHamlet: User;
let acmeHamlet: User;
let acmeRealmId: number;

const auth = (user: User) => ({ Authorization: basicAuth(user.email, user.api_key) });
const as = (user: User, host: string) => ({ host, headers: auth(user) });

beforeAll(async () => {
  const passwordHash = await hashPassword(ACME_PASSWORD, true);
  const { realm, owner } = await transaction(t.ctx, async (tx) => {
    const realm = await doCreateRealm(tx, { string_id: "acme", name: "Acme Corp" });
    const owner = await doCreateUser(tx, realm, { email: "hamlet@zulip.com", full_name: "Acme Hamlet", password_hash: passwordHash, role: Role.OWNER });
    await doSetUpNewRealm(tx, realm, owner);
    return { realm, owner };
  });
  acmeRealmId = realm.id;
  acmeHamlet = owner;
  zulipHamlet = await t.ctx.db.kysely
    .selectFrom("users")
    .innerJoin("realms", "realms.id", "users.realm_id")
    .selectAll("users")
    .where("realms.string_id", "=", "zulip")
    .where("users.delivery_email", "=", "hamlet@zulip.com")
    .executeTakeFirstOrThrow();
  expect(acmeHamlet.api_key).not.toBe(zulipHamlet.api_key);
});

/** The session cookie of a password sign-in on `host` through the /login/ form. */
async function signIn(host: string, username: string, password: string): Promise<string> {
  const page = await fetchWithHost(`${t.baseUrl}/login/`, host);
  expect(page.status).toBe(200);
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const formCookie = page.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .find((pair) => pair.includes("_csrftoken="));
  const res = await fetchWithHost(`${t.baseUrl}/accounts/login/`, host, {
    method: "POST",
    headers: { Cookie: formCookie ?? "", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password, csrfmiddlewaretoken: token }).toString(),
  });
  expect(res.status).toBe(302);
  const session = res.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .find((pair) => pair.startsWith("sessionid="));
  expect(session).toBeDefined();
  return session!;
}

async function json(res: Response): Promise<ApiResponse> {
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe("API credentials", () => {
  it("work on their organization's host only", async () => {
    expect(expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(zulipHamlet, ZULIP))).user_id).toBe(zulipHamlet.id);
    expect(expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(acmeHamlet, ACME))).user_id).toBe(acmeHamlet.id);
    for (const [user, host] of [
      [zulipHamlet, ACME],
      [acmeHamlet, ZULIP],
      [zulipHamlet, BARE],
      [acmeHamlet, BARE],
      [acmeHamlet, NOWHERE],
      [zulipHamlet, "zulipinternal.parley.test"],
    ] as const) {
      expectError(await t.get(null, "/api/v1/users/me", {}, as(user, host)), 401, WRONG_HOST, "UNAUTHORIZED");
    }
  });

  it("are refused on another host after they were accepted (the authentication cache)", async () => {
    expectSuccess(await t.get(null, "/api/v1/users/me", {}, as(acmeHamlet, ACME)));
    expectError(await t.get(null, "/api/v1/users/me", {}, as(acmeHamlet, ZULIP)), 401, WRONG_HOST, "UNAUTHORIZED");
  });

  it("poll events on their organization's host only, even once cached (the fast path)", async () => {
    const queue = expectSuccess(await t.post(null, "/api/v1/register", { event_types: ["message"] }, as(acmeHamlet, ACME)));
    const poll = (host: string) => t.get(null, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: "-1", dont_block: "true" }, as(acmeHamlet, host));
    expectSuccess(await poll(ACME));
    expectSuccess(await poll(ACME));
    expectError(await poll(ZULIP), 401, WRONG_HOST, "UNAUTHORIZED");
  });

  it("see their own organization's channels", async () => {
    expectSuccess(await t.post(null, "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "acme only" }] }, as(acmeHamlet, ACME)));
    const acmeNames = expectSuccess(await t.get(null, "/api/v1/streams", {}, as(acmeHamlet, ACME))).streams.map((s: { name: string }) => s.name);
    const zulipNames = expectSuccess(await t.get(null, "/api/v1/streams", {}, as(zulipHamlet, ZULIP))).streams.map((s: { name: string }) => s.name);
    expect(acmeNames).toContain("acme only");
    expect(zulipNames).not.toContain("acme only");
    expect(zulipNames).toContain("Verona");
  });

  it("of an incoming webhook's api_key parameter are bound the same way", async () => {
    const bot = expectSuccess(await t.post(null, "/api/v1/bots", { full_name: "Acme hook", short_name: "acme-hook", bot_type: 2 }, as(acmeHamlet, ACME)));
    const path = `/api/v1/external/json?api_key=${bot.api_key}&stream=general`;
    const body = { status: "down" };
    const wrong = await fetchWithHost(`${t.baseUrl}${path}`, ZULIP, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expectError(await json(wrong), 401, WRONG_HOST, "UNAUTHORIZED");
    const right = await fetchWithHost(`${t.baseUrl}${path}`, ACME, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(await json(right)).toMatchObject({ status: 200, body: { result: "success" } });
  });
});

describe("password sign-in", () => {
  it("POST /fetch_api_key gives the key of the host's account for the same email", async () => {
    const onZulip = expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: DEV_PASSWORD }, { host: ZULIP }));
    expect(onZulip).toMatchObject({ api_key: zulipHamlet.api_key, user_id: zulipHamlet.id });
    const onAcme = expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: ACME_PASSWORD }, { host: ACME }));
    expect(onAcme).toMatchObject({ api_key: acmeHamlet.api_key, user_id: acmeHamlet.id });
  });

  it("POST /fetch_api_key refuses the other organization's password, and a host with no organization", async () => {
    const username = "hamlet@zulip.com";
    expectError(
      await t.post(null, "/api/v1/fetch_api_key", { username, password: ACME_PASSWORD }, { host: ZULIP }),
      401,
      "Your username or password is incorrect",
      "AUTHENTICATION_FAILED",
    );
    expectError(
      await t.post(null, "/api/v1/fetch_api_key", { username, password: DEV_PASSWORD }, { host: ACME }),
      401,
      "Your username or password is incorrect",
      "AUTHENTICATION_FAILED",
    );
    expectError(
      await t.post(null, "/api/v1/fetch_api_key", { username, password: DEV_PASSWORD }, { host: NOWHERE, skipOpenApi: true }),
      404,
      "Invalid subdomain",
      "NONEXISTENT_SUBDOMAIN",
    );
  });

  it("a web session made on one host is not accepted on the other", async () => {
    const cookie = await signIn(ACME, "hamlet@zulip.com", ACME_PASSWORD);
    const onAcme = await json(await fetchWithHost(`${t.baseUrl}/json/users/me`, ACME, { headers: { Cookie: cookie } }));
    expect(expectSuccess(onAcme).user_id).toBe(acmeHamlet.id);
    const onZulip = await json(await fetchWithHost(`${t.baseUrl}/json/users/me`, ZULIP, { headers: { Cookie: cookie } }));
    expectError(onZulip, 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
    // The web app asks for a sign-in there; at home it is served.
    const page = await fetchWithHost(`${t.baseUrl}/`, ZULIP, { headers: { Cookie: cookie } });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/login/");
    expect((await fetchWithHost(`${t.baseUrl}/`, ACME, { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it("the login page names the host's organization; a host with none gets a 404 page", async () => {
    expect(await (await fetchWithHost(`${t.baseUrl}/login/`, ACME)).text()).toContain("Log in to Acme Corp");
    expect(await (await fetchWithHost(`${t.baseUrl}/login/`, ZULIP)).text()).toContain("Log in to Zulip Dev");
    for (const path of ["/", "/login/"]) {
      const res = await fetchWithHost(`${t.baseUrl}${path}`, NOWHERE);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain(`There is no Parley organization at ${NOWHERE}.`);
    }
  });
});

describe("GET /server_settings", () => {
  it("describes the host's organization", async () => {
    const acme = expectSuccess(await t.get(null, "/api/v1/server_settings", {}, { host: ACME }));
    expect(acme).toMatchObject({ realm_name: "Acme Corp", realm_url: "http://acme.parley.test:9991", realm_uri: "http://acme.parley.test:9991" });
    const zulip = expectSuccess(await t.get(null, "/api/v1/server_settings", {}, { host: ZULIP }));
    expect(zulip).toMatchObject({ realm_name: "Zulip Dev", realm_url: "http://zulip.parley.test:9991" });
  });

  it("leaves out the organization's fields where the host names none", async () => {
    for (const host of [BARE, NOWHERE]) {
      const body = expectSuccess(await t.get(null, "/api/v1/server_settings", {}, { host }));
      expect(body.realm_url).toBe("http://parley.test:9991");
      for (const field of ["realm_name", "realm_icon", "realm_description", "realm_web_public_access_enabled"]) expect(body).not.toHaveProperty(field);
    }
  });
});

describe("files", () => {
  it("an upload of acme is served on acme's host only", async () => {
    const upload = expectSuccess(
      await t.upload(null, "/api/v1/user_uploads", [{ data: "acme secret", filename: "plan.txt", type: "text/plain" }], {}, as(acmeHamlet, ACME)),
    );
    expect(upload.url).toMatch(new RegExp(`^/user_uploads/${acmeRealmId}/`));
    const read = (user: User | null, host: string) => fetchWithHost(`${t.baseUrl}${upload.url}`, host, { headers: user ? auth(user) : {} });
    const own = await read(acmeHamlet, ACME);
    expect(own.status).toBe(200);
    expect(await own.text()).toBe("acme secret");
    const elsewhere = await read(acmeHamlet, ZULIP);
    expect(elsewhere.status).toBe(401);
    expect((await elsewhere.json()).msg).toBe(WRONG_HOST);
    expect((await read(zulipHamlet, ZULIP)).status).toBe(404);
    expect((await read(null, ZULIP)).status).toBe(401);
    // A session of acme is no session on zulip's host either.
    const cookie = await signIn(ACME, "hamlet@zulip.com", ACME_PASSWORD);
    expect((await fetchWithHost(`${t.baseUrl}${upload.url}`, ACME, { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await fetchWithHost(`${t.baseUrl}${upload.url}`, ZULIP, { headers: { Cookie: cookie } })).status).toBe(401);
  });

  it("a tus upload is accepted on the uploader's host only", async () => {
    const headers = {
      ...auth(acmeHamlet),
      "Tus-Resumable": "1.0.0",
      "Upload-Length": "5",
      "Upload-Metadata": `filename ${Buffer.from("a.txt").toString("base64")}`,
    };
    const wrong = await fetchWithHost(`${t.baseUrl}/api/v1/tus`, ZULIP, { method: "POST", headers });
    expect(wrong.status).toBe(401);
    // A client cannot name the host the check reads.
    const spoofed = await fetchWithHost(`${t.baseUrl}/api/v1/tus`, ZULIP, { method: "POST", headers: { ...headers, "X-Parley-Request-Host": ACME } });
    expect(spoofed.status).toBe(401);
    const right = await fetchWithHost(`${t.baseUrl}/api/v1/tus`, ACME, { method: "POST", headers });
    expect(right.status).toBe(201);
  });
});

describe("links of an organization", () => {
  it("an invitation link works on its organization's host only", async () => {
    const { invite_link } = expectSuccess(await t.post(null, "/api/v1/invites/multiuse", { invite_expires_in_minutes: 60 }, as(acmeHamlet, ACME)));
    const path = new URL(invite_link as string).pathname;
    expect(path).toMatch(/^\/join\/[a-z0-9]+\/$/);
    const here = await fetchWithHost(`${t.baseUrl}${path}`, ACME);
    expect(here.status).toBe(200);
    expect(await here.text()).toContain("Join Acme Corp");
    expect((await fetchWithHost(`${t.baseUrl}${path}`, ZULIP)).status).toBe(404);
  });

  it("a password reset asked on one host mails the link of that host's account only", async () => {
    await t.drainJobs();
    const form = await fetchWithHost(`${t.baseUrl}/accounts/password/reset/`, ACME);
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
    const formCookie = form.headers
      .getSetCookie()
      .map((line) => line.split(";")[0] ?? "")
      .filter((pair) => pair.includes("csrftoken="))
      .join("; ");
    const before = await t.ctx.db.kysely.selectFrom("confirmations").select(["user_id"]).orderBy("id").execute();
    const res = await fetchWithHost(`${t.baseUrl}/accounts/password/reset/`, ACME, {
      method: "POST",
      headers: { Cookie: formCookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "hamlet@zulip.com", csrfmiddlewaretoken: token }).toString(),
    });
    expect(res.status).toBe(302);
    const after = await t.ctx.db.kysely.selectFrom("confirmations").select(["user_id"]).orderBy("id").execute();
    const made = after.slice(before.length).map((row) => row.user_id);
    expect(made).toEqual([acmeHamlet.id]);
  });
});
