import { afterEach, describe, expect, it } from "vitest";
import { ROUTES } from "../../src/http/routes.js";
import type { Endpoint } from "../../src/http/endpoint.js";
import type { RouteEntry } from "../../src/http/mount.js";
import { useTestServer } from "../support/testApp.js";

/**
 * Malformed input on every route of the table must give a 4xx (or a success), never a 5xx.
 * Cases are generated from ROUTES, so new routes are covered as they are added. Requests act as
 * desdemona (the owner) on her own id, which keeps destructive endpoints mostly refused; whatever
 * they do change (deactivation, role) is put back after each route.
 */
const t = useTestServer();
const ACTOR = "desdemona";
const CONCURRENCY = 8;

const BAD_VALUES = [
  "",
  "garbage",
  "x".repeat(100_000),
  "[",
  "{}",
  "[]",
  "null",
  "-1",
  "1.5",
  "99999999999999999999999",
  "a\u0000b",
  '{"a":',
  '"text"',
  '[1, "a", null, {}]',
  '{"a": [1, {"b": null}], "c": "\u0000"}',
];
const BAD_PATH_SEGMENTS = ["abc", "-1", "0", "1.5", "1e5", "99999999999999999999", "%00", "%E2%82", "x".repeat(300), "me"];

type Body = { contentType?: string; body?: BodyInit };
const BAD_BODIES: Array<[string, () => Body]> = [
  ["broken JSON", () => ({ contentType: "application/json", body: '{"a": ' })],
  ["JSON null", () => ({ contentType: "application/json", body: "null" })],
  ["JSON list", () => ({ contentType: "application/json", body: "[1, 2]" })],
  ["JSON object of objects", () => ({ contentType: "application/json", body: '{"a": {"b": [null]}}' })],
  ["empty multipart", () => ({ contentType: "multipart/form-data; boundary=b", body: "--b--\r\n" })],
  ["truncated multipart", () => ({ contentType: "multipart/form-data; boundary=b", body: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1' })],
  ["multipart without boundary", () => ({ contentType: "multipart/form-data", body: "a=1" })],
  [
    "multipart with a file",
    () => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array([0, 255, 1])]), "x.bin");
      return { body: form };
    },
  ],
  ["octet-stream", () => ({ contentType: "application/octet-stream", body: new Blob([new Uint8Array([0, 1, 2])]) })],
  ["text/plain", () => ({ contentType: "text/plain", body: "hello" })],
  ["broken urlencoded", () => ({ contentType: "application/x-www-form-urlencoded", body: "%%%&&=&a[b]=%E2%82&=x" })],
];

const basic = (credentials: string) => "Basic " + Buffer.from(credentials).toString("base64");
const BAD_CREDENTIALS = [
  "Basic",
  "Bearer abc",
  "Basic " + "A".repeat(8000),
  basic(`a\u0000b@zulip.com:${"x".repeat(32)}`),
  basic(`${"e".repeat(2000)}@zulip.com:${"x".repeat(32)}`),
  basic("desdemona@zulip.com:\u0000"),
];

let actorId = 0;

async function send(method: string, path: string, auth: string | undefined, body: Body = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (auth) headers.Authorization = auth;
  if (body.contentType) headers["Content-Type"] = body.contentType;
  const res = await fetch(t.baseUrl + path, { method, headers, body: method === "GET" ? undefined : body.body });
  return { status: res.status, text: await res.text() };
}

function pathWith(route: RouteEntry, segment: (name: string) => string): string {
  return "/api/v1" + route.path.replace(/:(\w+)/g, (_, name: string) => segment(name));
}

function encodeParam(method: string, name: string, value: string): { query: string; body: Body } {
  const form = new URLSearchParams({ [name]: value }).toString();
  if (method === "GET") return { query: `?${form}`, body: {} };
  return { query: "", body: { contentType: "application/x-www-form-urlencoded", body: form } };
}

/** Several routes share one endpoint (PATCH /settings/display...): its params are fuzzed once. */
const paramsFuzzed = new Set<Endpoint>();

/** All requests for one route, a few at a time; returns the ones answered with a 5xx. */
async function fuzzRoute(route: RouteEntry): Promise<string[]> {
  const auth = await t.authHeader(ACTOR);
  const ownPath = pathWith(route, () => String(actorId));
  const cases: Array<{ what: string; path: string; auth?: string; body?: Body }> = [];
  for (const withAuth of [true, false]) {
    for (const [name, make] of BAD_BODIES) cases.push({ what: `${name} (auth=${withAuth})`, path: ownPath, auth: withAuth ? auth : undefined, body: make() });
  }
  for (const header of BAD_CREDENTIALS) cases.push({ what: `Authorization: ${header.slice(0, 30)}`, path: ownPath, auth: header });
  for (const segment of BAD_PATH_SEGMENTS) {
    cases.push({ what: `path segment ${segment.slice(0, 20)}`, path: pathWith(route, () => segment), auth });
  }
  if (!paramsFuzzed.has(route.endpoint)) {
    paramsFuzzed.add(route.endpoint);
    for (const name of Object.keys((route.endpoint as Endpoint).params)) {
      for (const value of BAD_VALUES) {
        const { query, body } = encodeParam(route.method, name, value);
        cases.push({ what: `${name}=${JSON.stringify(value.slice(0, 20))}`, path: ownPath + query, auth, body });
      }
    }
  }
  const failures: string[] = [];
  for (let i = 0; i < cases.length; i += CONCURRENCY) {
    await Promise.all(
      cases.slice(i, i + CONCURRENCY).map(async (c) => {
        const res = await send(route.method, c.path, c.auth, c.body);
        if (res.status >= 500) failures.push(`${c.what} → ${res.status} ${res.text.slice(0, 200)}`);
      }),
    );
  }
  return failures;
}

async function restoreActor(): Promise<void> {
  await t.ctx.db.kysely.updateTable("users").set({ is_active: 1 }).execute();
  await t.ctx.db.kysely.updateTable("users").set({ role: 100 }).where("id", "=", actorId).execute();
}

describe("robustness: malformed input never causes a 5xx", () => {
  afterEach(restoreActor);

  for (const route of ROUTES) {
    it(`${route.method} ${route.path}`, async () => {
      actorId = (await t.user(ACTOR)).id;
      expect(await fuzzRoute(route)).toEqual([]);
    });
  }
});
