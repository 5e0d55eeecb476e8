import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { HTTP_ROUTES, ROUTES } from "../../src/http/routes.js";
import { validateResponse } from "../support/openapi.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();
const PASSWORD = "parleydev";

/** A request with a hand-made body and headers, for inputs the client helpers would not send. */
async function raw(method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit } = {}) {
  const res = await fetch(t.baseUrl + path, { method, headers: init.headers, body: init.body });
  const text = await res.text();
  let body: any = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // left as text
  }
  if (method !== "HEAD") validateResponse(method, new URL(t.baseUrl + path).pathname, res.status, body);
  return { status: res.status, headers: res.headers, body };
}

function basic(credentials: string): string {
  return "Basic " + Buffer.from(credentials).toString("base64");
}

const TRANSPORTS = [
  ["an urlencoded body", {}],
  ["a multipart body", { multipart: true }],
  ["the query string", { inQuery: true }],
] as const;

describe("request parameters", () => {
  for (const [where, options] of TRANSPORTS) {
    it(`POST reads parameters from ${where}`, async () => {
      const body = expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com", password: PASSWORD }, options));
      expect(body.api_key).toBe((await t.user("hamlet")).api_key);
    });

    it(`PATCH reads parameters from ${where}`, async () => {
      expectError(await t.patch("hamlet", "/api/v1/settings", { timezone: "Mars/Olympus_Mons" }, options), 400, "timezone is not a recognized time zone");
      const body = expectSuccess(await t.patch("hamlet", "/api/v1/settings", { not_a_setting: "1" }, options));
      expect(body.ignored_parameters_unsupported).toEqual(["not_a_setting"]);
    });

    it(`DELETE reads parameters from ${where}`, async () => {
      const othello = await t.user("othello");
      const res = await t.delete("iago", `/api/v1/users/${othello.id}`, { deactivation_notification_comment: "x".repeat(2001) }, options);
      expectError(res, 400, "deactivation_notification_comment is too long (limit: 2000 characters)");
    });
  }

  it("prefers the body over the query string", async () => {
    const url = `/api/v1/fetch_api_key?password=wrong`;
    expectSuccess(
      await raw("POST", url, { headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `username=hamlet%40zulip.com&password=${PASSWORD}` }),
    );
    const res = await raw("POST", `/api/v1/fetch_api_key?password=${PASSWORD}`, {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "username=hamlet%40zulip.com&password=wrong",
    });
    expectError(res, 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
  });

  it("takes the fields of a multipart body that also carries a file", async () => {
    const form = new FormData();
    form.append("username", "hamlet@zulip.com");
    form.append("password", PASSWORD);
    form.append("attachment", new Blob([new Uint8Array([0, 1, 2, 255])], { type: "application/octet-stream" }), "bytes.bin");
    expectSuccess(await raw("POST", "/api/v1/fetch_api_key", { body: form }));
  });

  it("lists parameters the endpoint does not take in ignored_parameters_unsupported, sorted", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/users/me", { zzz: "1", aaa: "2" }));
    expect(body.ignored_parameters_unsupported).toEqual(["aaa", "zzz"]);
    expect(expectSuccess(await t.get("hamlet", "/api/v1/users/me"))).not.toHaveProperty("ignored_parameters_unsupported");
  });

  it("reports a missing parameter with REQUEST_VARIABLE_MISSING and var_name", async () => {
    const body = expectError(
      await t.post(null, "/api/v1/fetch_api_key", { username: "hamlet@zulip.com" }),
      400,
      "Missing 'password' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expect(body.var_name).toBe("password");
  });

  it("decodes JSON values inside fields: booleans are JSON true/false", async () => {
    expectSuccess(await t.get("hamlet", "/api/v1/users", { client_gravatar: "false" }));
    expectError(await t.get("hamlet", "/api/v1/users", { client_gravatar: "1" }), 400, "client_gravatar is not a boolean");
    expectError(await t.get("hamlet", "/api/v1/users", { client_gravatar: "yes" }), 400, "client_gravatar is not valid JSON");
  });
});

describe("error envelopes", () => {
  it("answers an unknown path under /api/v1 with a 404 JSON envelope", async () => {
    const res = await t.get("hamlet", "/api/v1/no_such_endpoint");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ result: "error", msg: "Endpoint not found", code: "NOT_FOUND" });
    expectError(await t.request("PUT", "hamlet", "/api/v1/users/me"), 404, "Endpoint not found", "NOT_FOUND");
  });

  it("rejects a body that is not valid JSON with a 400 envelope", async () => {
    const res = await raw("POST", "/api/v1/fetch_api_key", { headers: { "Content-Type": "application/json" }, body: '{"username": ' });
    expectError(res, 400, "Malformed JSON");
  });

  it("answers unsupported or broken bodies with a 4xx envelope, never a 500", async () => {
    const octet = await raw("POST", "/api/v1/fetch_api_key", {
      headers: { "Content-Type": "application/octet-stream" },
      body: new Blob([new Uint8Array([1, 2, 3])]),
    });
    expect(octet.status).toBeLessThan(500);
    expect(octet.body).toMatchObject({ result: "error" });
    const noBoundary = await raw("POST", "/api/v1/fetch_api_key", { headers: { "Content-Type": "multipart/form-data" }, body: "username=x" });
    expect(noBoundary.status).toBeLessThan(500);
    expect(noBoundary.body).toMatchObject({ result: "error" });
    const empty = await raw("POST", "/api/v1/fetch_api_key", { headers: { "Content-Type": "multipart/form-data; boundary=xyz" }, body: "" });
    expect(empty.status).toBeLessThan(500);
    expect(empty.body).toMatchObject({ result: "error" });
  });

  it("answers a path that is not valid percent-encoding with a 400 envelope", async () => {
    expectError(await raw("GET", "/api/v1/users/%E0%A4%A"), 400, "Bad request: '/api/v1/users/%E0%A4%A' is not a valid url component");
  });

  it("answers HEAD like GET without a body", async () => {
    const res = await raw("HEAD", "/api/v1/users/me", { headers: { Authorization: await t.authHeader("hamlet") } });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
  });

  it("survives a very long URL", async () => {
    const res = await raw("GET", `/api/v1/users/me?${"x".repeat(7000)}=1`, { headers: { Authorization: await t.authHeader("hamlet") } });
    expect(res.status).toBe(200);
  });
});

describe("authentication", () => {
  it("marks authenticated responses, errors included, as never to be cached (Zulip's never_cache)", async () => {
    for (const res of [
      await t.get("hamlet", "/api/v1/users/me"),
      await t.get("hamlet", "/api/v1/messages/999999"),
      await t.get("hamlet", "/api/v1/users/me/subscriptions"),
    ]) {
      expect(res.headers.get("cache-control")).toBe("max-age=0, no-cache, no-store, must-revalidate, private");
      const expires = Date.parse(res.headers.get("expires") ?? "");
      expect(Math.abs(expires - Date.now())).toBeLessThan(60_000);
    }
  });

  it("asks for credentials with 401 and WWW-Authenticate", async () => {
    const res = await t.get(null, "/api/v1/users/me");
    expectError(res, 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
    expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
  });

  it("rejects a malformed Authorization header", async () => {
    for (const header of ["Basic", "Basic !!!", basic("no-colon"), basic("a:b:c"), "Basic abc def"]) {
      const res = await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: header } });
      expectError(res, 401, "Invalid authorization header for basic auth", "UNAUTHORIZED");
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
    }
    const bearer = await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: "Bearer abcdef" } });
    expectError(bearer, 400, "This endpoint requires HTTP basic authentication.");
  });

  it("rejects a malformed API key", async () => {
    const res = await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: basic("hamlet@zulip.com:short") } });
    expectError(res, 401, "Malformed API key", "UNAUTHORIZED");
  });

  it("rejects a deactivated user's key", async () => {
    const header = await t.authHeader("prospero");
    await t.ctx.db.kysely.updateTable("users").set({ is_active: 0 }).where("email", "=", "prospero@zulip.com").execute();
    const res = await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: header } });
    expectError(res, 401, "Account is deactivated", "UNAUTHORIZED");
  });

  it("rejects keys of a deactivated organization", async () => {
    const header = await t.authHeader("hamlet");
    const realmId = (await t.user("hamlet")).realm_id;
    await t.ctx.db.kysely.updateTable("realms").set({ deactivated: 1 }).where("id", "=", realmId).execute();
    try {
      const res = await t.get(null, "/api/v1/users/me", {}, { headers: { Authorization: header } });
      expectError(res, 401, "This organization has been deactivated", "UNAUTHORIZED");
    } finally {
      await t.ctx.db.kysely.updateTable("realms").set({ deactivated: 0 }).where("id", "=", realmId).execute();
    }
  });
});

describe("the route table", () => {
  it("lists every route the server answers, and the server refuses to start with an unlisted one", async () => {
    // With a metrics token, so that the conditional /metrics route is there too.
    const app = await buildApp({ ...t.ctx, config: { ...t.ctx.config, metrics: { ...t.ctx.config.metrics, token: "route-table-test-token" } } });
    try {
      expect(() => app.get("/not-in-the-table", async () => "hidden")).toThrow(/GET \/not-in-the-table is not in the route table/);
      await app.ready();
      const listed = [...ROUTES.map((r) => [r.method, `/api/v1${r.path}`] as const), ...HTTP_ROUTES.flatMap((r) => r.methods.map((m) => [m, r.path] as const))];
      for (const [method, url] of listed) expect(app.hasRoute({ method, url }), `${method} ${url}`).toBe(true);
    } finally {
      await app.close();
    }
  });
});
