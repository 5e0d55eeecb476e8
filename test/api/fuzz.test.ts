import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/http/endpoint.js";
import type { RouteEntry } from "../../src/http/mount.js";
import { ROUTES } from "../../src/http/routes.js";
import { useTestServer } from "../support/testApp.js";

/**
 * Property-based fuzzing of every route from its parameter specification (issue 17): random
 * values of every kind for the endpoint's parameters and path segments never give a 5xx, and a
 * request answered with an error changes nothing in the database. Seeded, so a failure replays.
 */
const t = useTestServer();
const ACTOR = "hamlet";
const RUNS_PER_ROUTE = 6;
const SEED = 17;

/** Tables whose every row is compared (jobs are left out: the job runner updates them on its own). */
const TABLES = [
  "realms", "users", "user_groups", "user_group_members", "user_group_subgroups", "recipients", "direct_message_groups",
  "streams", "default_streams", "subscriptions", "messages", "user_messages", "reactions", "submessages", "attachments",
  "attachment_messages", "scheduled_messages", "user_topics", "custom_profile_fields", "custom_profile_field_values",
  "user_statuses", "muted_users", "alert_words", "drafts", "realm_emoji", "bot_services", "push_devices",
  "missed_message_emails", "confirmations", "invitations", "audit_log",
] as const;

async function databaseState(): Promise<string> {
  const parts: string[] = [];
  for (const table of TABLES) {
    const rows = await t.ctx.db.kysely.selectFrom(table as any).selectAll().execute();
    parts.push(table + ":" + rows.map((r) => JSON.stringify(r)).sort().join("\n"));
  }
  return parts.join("\n\n");
}

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom("", " ", "\u0000", "a\u0000b", "me", "true", "null", "[]", "{}", "-1", "0", "1e309", "x".repeat(20_000)),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.integer(),
    fc.integer({ min: 1, max: 30 }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    text,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 4 }),
  ),
})).value;
/** What a client may put in one field: plain text, or JSON text of any shape. */
const fieldValue = fc.oneof(text, jsonValue.map((v) => JSON.stringify(v)), fc.integer({ min: 1, max: 30 }).map(String));
const pathSegment = fc.oneof(fc.integer({ min: 1, max: 30 }).map(String), fc.constantFrom("me", "0", "-1", "abc", "%00", "99999999999999999999"));

function requestFor(route: RouteEntry) {
  const names = Object.keys((route.endpoint as Endpoint).params);
  const segments = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  return fc.record({
    params: fc.dictionary(fc.constantFrom(...(names.length > 0 ? names : ["unused"])), fieldValue, { maxKeys: Math.max(1, names.length) }),
    path: fc.tuple(...segments.map(() => pathSegment)),
  });
}

async function send(route: RouteEntry, params: Record<string, string>, segments: string[]): Promise<{ status: number; text: string }> {
  let i = 0;
  const path = "/api/v1" + route.path.replace(/:(\w+)/g, () => segments[i++]);
  const headers: Record<string, string> = { Authorization: await t.authHeader(ACTOR) };
  const form = new URLSearchParams(params).toString();
  let url = t.baseUrl + path;
  let body: string | undefined;
  if (route.method === "GET") url += `?${form}`;
  else {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = form;
  }
  const res = await fetch(url, { method: route.method, headers, body });
  return { status: res.status, text: await res.text() };
}

afterEach(async () => {
  // Whatever a successful request did to the actor is put back for the next route.
  await t.ctx.db.kysely.updateTable("users").set({ is_active: 1 }).execute();
  await t.ctx.db.kysely.updateTable("users").set({ role: 400 }).where("id", "=", (await t.user(ACTOR)).id).execute();
});

describe("fuzzing every route from its parameter specification", () => {
  it("compares enough of the database to see a change", async () => {
    const before = await databaseState();
    expect((await t.patch(ACTOR, "/api/v1/settings", { twenty_four_hour_time: true })).status).toBe(200);
    const afterSetting = await databaseState();
    expect(afterSetting).not.toBe(before);
    expect((await t.post(ACTOR, "/api/v1/messages/flags", { messages: "[1]", op: "add", flag: "starred" })).status).toBeLessThan(500);
    expect((await t.post(ACTOR, "/api/v1/messages", { type: "stream", to: "Verona", topic: "fuzz", content: "x" })).status).toBe(200);
    expect(await databaseState()).not.toBe(afterSetting);
  });

  for (const route of ROUTES.filter((r) => r.method !== "GET" || !r.path.startsWith("/events"))) {
    it(`${route.method} ${route.path}`, async () => {
      let state = await databaseState();
      await fc.assert(
        fc.asyncProperty(requestFor(route), async ({ params, path }) => {
          const res = await send(route, params, path as string[]);
          expect(res.status, `${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
          await t.drainJobs();
          const after = await databaseState();
          if (res.status >= 400) expect(after === state, `an error changed the database: ${res.text.slice(0, 300)}`).toBe(true);
          state = after;
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
      );
    }, 60_000);
  }
});
