import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/http/endpoint.js";
import type { RouteEntry } from "../../src/http/mount.js";
import type { Param } from "../../src/http/params.js";
import { ROUTES } from "../../src/http/routes.js";
import { TEST_ENGINE } from "../support/testDb.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";
import { defined } from "../../src/util/defined.js";

/**
 * Property-based fuzzing of every route from its parameter specification (issue 17), as each
 * role (member, guest, administrator, bot). Each parameter's generator is type-aware: the
 * parameter's own parser is probed with a catalogue of plausible values (real ids, names, enum
 * words, JSON shapes), and the values it accepts — valid-ish values of its declared type — are
 * mixed with hostile ones: wrong types, huge and Unicode values, NUL bytes, deep JSON, long
 * lists, and duplicated parameters. Properties: never a 5xx; a request answered with an error
 * changes nothing in the database (every row of 30 tables compared); and another user's requests
 * stay fast while the fuzzing runs. Seeded, so a failure replays.
 */
const t = useTestServer();
/** PostgreSQL's run checks the same routes with fewer requests each: the database comparison after every request costs most there. */
const RUNS_PER_ROUTE = process.env.PARLEY_TEST_DATABASE === "postgres" ? 2 : 4;
const SEED = 17;

/** Tables whose every row is compared (jobs are left out: the job runner updates them on its own). */
const TABLES = [
  "realms",
  "users",
  "user_groups",
  "user_group_members",
  "user_group_subgroups",
  "recipients",
  "direct_message_groups",
  "streams",
  "default_streams",
  "subscriptions",
  "messages",
  "user_messages",
  "reactions",
  "submessages",
  "attachments",
  "attachment_messages",
  "scheduled_messages",
  "user_topics",
  "custom_profile_fields",
  "custom_profile_field_values",
  "user_statuses",
  "muted_users",
  "alert_words",
  "drafts",
  "realm_emoji",
  "bot_services",
  "push_devices",
  "missed_message_emails",
  "confirmations",
  "invitations",
  "audit_log",
] as const;

/**
 * Every row of TABLES, table by table. On PostgreSQL each table is summarised by the server (an md5
 * of its rows' text in order), in one query: shipping every row for every request made its run slow.
 */
async function databaseState(): Promise<string> {
  if (TEST_ENGINE === "postgres") {
    const query = TABLES.map((table) => `select '${table}' as name, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as rows from ${table} x`);
    const { rows } = await sql.raw<{ name: string; rows: string }>(query.join(" union all ")).execute(t.ctx.db.kysely);
    return rows.map((r) => `${r.name}:${r.rows}`).join("\n\n");
  }
  const parts = await Promise.all(
    TABLES.map(async (table) => {
      const rows = await t.ctx.db.kysely
        .selectFrom(table as any)
        .selectAll()
        .execute();
      return (
        table +
        ":" +
        rows
          .map((r) => JSON.stringify(r))
          .sort()
          .join("\n")
      );
    }),
  );
  return parts.join("\n\n");
}

/**
 * SQLite's count of rows written through the test server's one connection since it opened. It only
 * grows, so an unchanged count proves nothing was written; PostgreSQL has no such count (undefined).
 */
async function writeCount(): Promise<number | undefined> {
  if (TEST_ENGINE !== "sqlite") return undefined;
  const { rows } = await sql<{ n: number }>`select total_changes() as n`.execute(t.ctx.db.kysely);
  return at(rows, 0).n;
}

interface Snapshot {
  state: string;
  writes: number | undefined;
}

/** The database's state, read again only when something may have been written since `previous`. */
async function snapshot(previous?: Snapshot): Promise<Snapshot> {
  const writes = await writeCount();
  if (previous && writes !== undefined && writes === previous.writes) return previous;
  return { state: await databaseState(), writes };
}

/** Which tables differ between two databaseState() results, with their first differing rows. */
function changedTables(before: string, after: string): string {
  const tables = (state: string) => new Map(state.split("\n\n").map((part) => [part.slice(0, part.indexOf(":")), part] as const));
  const a = tables(before);
  const b = tables(after);
  return [...a]
    .filter(([name, rows]) => b.get(name) !== rows)
    .map(([name, rows]) => {
      const old = new Set(rows.split("\n"));
      const fresh = b
        .get(name)!
        .split("\n")
        .filter((row) => !old.has(row));
      return `${name}: ${fresh.slice(0, 2).join(" | ").slice(0, 400)}`;
    })
    .join("; ");
}

// ---------------------------------------------------------------------------------------------
// The catalogue of plausible values, filled with the fixture's real ids in beforeAll.
const ids = {
  users: [] as number[],
  streams: [] as number[],
  messages: [] as number[],
  groups: [] as number[],
  drafts: [] as number[],
  scheduled: [] as number[],
  bots: [] as number[],
};

function catalogue(): string[] {
  const j = (v: unknown) => JSON.stringify(v);
  const anyId = [...ids.users, ...ids.streams, ...ids.messages, ...ids.groups, ...ids.drafts, ...ids.scheduled, 1, 0];
  return [
    // text and names
    "Verona",
    "Denmark",
    "core team",
    "fuzz topic",
    "hello **world**",
    "hamlet@zulip.com",
    "iago@zulip.com",
    ":smile:",
    "smile",
    "1f600",
    "zulip.com",
    "https://example.com/hook",
    "#f00000",
    "Europe/Paris",
    "en",
    "a",
    "x".repeat(70),
    // enum words Zulip's APIs use
    "stream",
    "channel",
    "private",
    "direct",
    "add",
    "remove",
    "read",
    "starred",
    "collapsed",
    "change_one",
    "change_later",
    "change_all",
    "newest",
    "oldest",
    "first_unread",
    "unicode_emoji",
    "realm_emoji",
    "zulip_extra_emoji",
    "start",
    "stop",
    "active",
    "idle",
    "is_muted",
    "pin_to_top",
    "color",
    "in_home_view",
    "desktop_notifications",
    "emoji",
    "image",
    "message",
    "user",
    "everyone",
    "unmuted",
    "muted",
    "followed",
    "inherit",
    "always",
    "never",
    "automatic",
    "day",
    "week",
    "name",
    "description",
    // JSON scalars
    "true",
    "false",
    "null",
    ...anyId.map(String),
    "-1",
    "3600",
    "100",
    // JSON lists and objects of the shapes the API takes
    j(ids.users.slice(0, 2)),
    j(ids.messages.slice(0, 2)),
    j(ids.streams.slice(0, 2)),
    j(["Verona"]),
    j(["hamlet@zulip.com"]),
    j([]),
    j([{ name: "Verona" }]),
    j([{ name: "fuzz-channel", description: "made by the fuzzer" }]),
    j([{ operator: "channel", operand: "Verona" }]),
    j([{ operator: "search", operand: "hello" }]),
    j([{ operator: "is", operand: "dm" }]),
    j({ add: ids.users.slice(0, 1), delete: [] }),
    j({ direct_members: ids.users.slice(0, 1), direct_subgroups: [] }),
    j([{ stream_id: ids.streams[0], property: "is_muted", value: true }]),
    j([{ type: "stream", to: [ids.streams[0]], topic: "draft", content: "draft", timestamp: 1_700_000_000 }]),
    j({ type: "stream", to: [ids.streams[0]], topic: "draft", content: "draft", timestamp: 1_700_000_000 }),
    j({ new: ids.users.slice(0, 1) }),
    j({ key: "value" }),
    j(["word"]),
    j(["alert", "words"]),
    j({ user_list_incomplete: true }),
    j(String(ids.groups[0] ?? 1)),
    j(Math.floor(Date.now() / 1000) + 3600),
  ];
}

/** The catalogue values a parameter's own parser accepts: valid-ish values of its declared type. */
function acceptedValues(param: Param<unknown>, name: string): string[] {
  return catalogue().filter((value) => {
    try {
      param.parseText(value, name);
      return true;
    } catch {
      return false;
    }
  });
}

const unicode = fc.string({ unit: "grapheme", maxLength: 20 });
/** Values no declared type expects (wrong types, huge, Unicode, NUL, deep JSON, long lists). */
const hostile = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "true",
    "null",
    "[]",
    "{}",
    "-1",
    "0",
    "1e309",
    "9007199254740993",
    "NaN",
    "[null]",
    '{"a":',
    "x".repeat(20_000),
    "\u202e\u0000\ud83d\ude00".repeat(100),
    "[".repeat(2000) + "]".repeat(2000),
    JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i)),
    JSON.stringify(Array.from({ length: 3000 }, () => "Verona")),
    JSON.stringify({ a: { b: { c: { d: { e: { f: [[[[[[1]]]]]] } } } } } }),
  ),
  unicode,
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.json({ maxDepth: 4 }),
);
const PATH_HOSTILE = ["0", "-1", "abc", "%00", "99999999999999999999", "me", "%E2%80%AE", "x".repeat(300)];

function pathPool(segment: string): string[] {
  const byName: Record<string, number[]> = {
    user_id_or_email: ids.users,
    user_id: ids.users,
    muted_user_id: ids.users,
    bot_id: ids.bots,
    stream_id: ids.streams,
    message_id: ids.messages,
    user_group_id: ids.groups,
    draft_id: ids.drafts,
    scheduled_message_id: ids.scheduled,
  };
  const extra = segment === "user_id_or_email" ? ["hamlet@zulip.com", "me"] : segment === "emoji_name" ? ["green_tick", "smile"] : [];
  return [...(byName[segment] ?? [1, 2, 3]).map(String), ...extra];
}

function requestFor(route: RouteEntry) {
  const params = (route.endpoint as Endpoint).params as Record<string, Param<unknown>>;
  const names = Object.keys(params);
  const perParam = Object.fromEntries(
    names.map((name) => {
      const valid = acceptedValues(defined(params[name], "params[name]"), name);
      const typed = valid.length > 0 ? fc.constantFrom(...valid) : hostile;
      return [name, fc.oneof({ arbitrary: typed, weight: 3 }, { arbitrary: hostile, weight: 1 })];
    }),
  );
  const segments = [...route.path.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? "*");
  return fc.record({
    params: names.length > 0 ? fc.record(perParam, { requiredKeys: [] }) : fc.constant({}),
    duplicated: names.length > 0 ? fc.subarray(names, { maxLength: Math.min(2, names.length) }) : fc.constant([] as string[]),
    duplicateValue: hostile,
    path: fc.tuple(
      ...segments.map((s) => fc.oneof({ arbitrary: fc.constantFrom(...pathPool(s)), weight: 3 }, { arbitrary: fc.constantFrom(...PATH_HOSTILE), weight: 1 })),
    ),
  });
}

async function send(who: string, route: RouteEntry, params: Record<string, string>, duplicated: string[], duplicateValue: string, segments: string[]) {
  let i = 0;
  const path = "/api/v1" + route.path.replace(/:(\w+)|\*/g, () => encodeURIComponent(at(segments, i++)).replace(/%25/g, "%"));
  const form = new URLSearchParams(Object.entries(params));
  for (const name of duplicated) form.append(name, duplicateValue);
  const headers: Record<string, string> = { Authorization: await t.authHeader(who) };
  let url = t.baseUrl + path;
  let body: string | undefined;
  if (route.method === "GET") url += `?${form}`;
  else {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = form.toString();
  }
  inFlight = `${who} ${route.method} ${path} ${form.toString().slice(0, 200)}`;
  const res = await fetch(url, { method: route.method, headers, body });
  const text = await res.text();
  inFlight = "";
  return { status: res.status, text };
}

// ---------------------------------------------------------------------------------------------
const ROLES = { member: "hamlet", guest: "polonius", administrator: "iago", bot: "" } as const;
const originalRoles = new Map<number, number>();
let fuzzRequests = 0;

// Another user's requests, timed all along the fuzzing.
const latencies: number[] = [];
/** The fuzz request in flight (for the report of a slow probe). */
let inFlight = "";
const slowProbes: string[] = [];
let baseline = 0;
let probing = true;
let probeLoop: Promise<void> | undefined;

async function timedRequest(): Promise<number> {
  const started = performance.now();
  const during = new Set<string>();
  const watch = setInterval(() => during.add(inFlight), 50);
  // The fuzzing may archive Verona or change settings: the time counts, whatever the answer.
  await t.get(
    "cordelia",
    "/api/v1/messages",
    { anchor: "newest", num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: "Verona" }]) },
    { skipOpenApi: true },
  );
  clearInterval(watch);
  const took = performance.now() - started;
  if (took > 1000) slowProbes.push(`${took.toFixed(0)} ms during ${[...during].filter(Boolean).join(" / ").slice(0, 600)}`);
  return took;
}

beforeAll(async () => {
  for (const u of await t.ctx.db.kysely.selectFrom("users").select(["id", "role"]).execute()) originalRoles.set(u.id, u.role);
  const bot = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Fuzz bot", short_name: "fuzz" }));
  ids.bots.push(bot.user_id);
  (ROLES as Record<string, string>).bot = (
    await t.ctx.db.kysely.selectFrom("users").select("delivery_email").where("id", "=", bot.user_id).executeTakeFirstOrThrow()
  ).delivery_email;
  expectSuccess(
    await t.post("hamlet", "/api/v1/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: "Verona" }]),
      principals: JSON.stringify([bot.user_id]),
    }),
  );
  for (const name of ["hamlet", "iago", "polonius", "othello", "cordelia"]) ids.users.push((await t.user(name)).id);
  for (const s of await t.ctx.db.kysely.selectFrom("streams").select("id").execute()) ids.streams.push(s.id);
  for (let i = 0; i < 3; i++)
    ids.messages.push(expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Verona", topic: "fuzz", content: `message ${i}` })).id);
  ids.messages.push(expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: JSON.stringify([ids.users[1]]), content: "a DM" })).id);
  for (const g of await t.ctx.db.kysely.selectFrom("user_groups").select("id").limit(4).execute()) ids.groups.push(g.id);
  ids.drafts.push(
    ...expectSuccess(
      await t.post("hamlet", "/api/v1/drafts", {
        drafts: JSON.stringify([{ type: "stream", to: [ids.streams[0]], topic: "d", content: "draft", timestamp: 1_700_000_000 }]),
      }),
    ).ids,
  );
  ids.scheduled.push(
    expectSuccess(
      await t.post("hamlet", "/api/v1/scheduled_messages", {
        type: "stream",
        to: String(ids.streams[0]),
        topic: "s",
        content: "later",
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400,
      }),
    ).scheduled_message_id,
  );

  // Jobs run only between requests (runJobs): a delayed job (a missed-message email) falling due
  // while the fuzzer runs must not look like the change of a refused request.
  await t.ctx.jobs.stop();
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) samples.push(await timedRequest());
  baseline = at(
    samples.sort((a, b) => a - b),
    2,
  );
  probeLoop = (async () => {
    while (probing) {
      latencies.push(await timedRequest());
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
}, 60_000);

afterAll(async () => {
  probing = false;
  await probeLoop;
  t.ctx.jobs.start();
});

/** Runs every due job; how many ran. */
async function runJobs(): Promise<number> {
  let total = 0;
  for (;;) {
    const ran = await t.ctx.jobs.runDueJobs();
    if (ran === 0) return total;
    total += ran;
  }
}

afterEach(async () => {
  // Whatever a successful request did to the actors is put back for the next route.
  const db = t.ctx.db.kysely;
  await db.updateTable("users").set({ is_active: 1 }).execute();
  for (const [id, role] of originalRoles) await db.updateTable("users").set({ role }).where("id", "=", id).execute();
});

describe("fuzzing every route from its parameter specification, as every role", () => {
  it("compares enough of the database to see a change", async () => {
    const before = await snapshot();
    expect((await snapshot(before)).state).toBe(before.state);
    expect((await t.patch("hamlet", "/api/v1/settings", { twenty_four_hour_time: true })).status).toBe(200);
    const afterSetting = await snapshot(before);
    expect(afterSetting.state).not.toBe(before.state);
    expect((await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Verona", topic: "fuzz", content: "x" })).status).toBe(200);
    expect((await snapshot(afterSetting)).state).not.toBe(afterSetting.state);
  });

  it("derives typed values from the parameter specifications", () => {
    // The parsers accept catalogue values for most parameters: the generators reach success paths.
    let typed = 0;
    let all = 0;
    for (const route of ROUTES) {
      for (const [name, param] of Object.entries((route.endpoint as Endpoint).params as Record<string, Param<unknown>>)) {
        all += 1;
        if (acceptedValues(param, name).length > 0) typed += 1;
      }
    }
    expect(typed / all).toBeGreaterThan(0.8);
  });

  for (const [role, actor] of Object.entries(ROLES)) {
    describe(`as ${role}`, () => {
      const statuses = new Map<string, number>();
      for (const route of ROUTES.filter((r) => r.method !== "GET" || !r.path.startsWith("/events"))) {
        it(`${route.method} ${route.path}`, async () => {
          const who = role === "bot" ? ROLES.bot : actor;
          let state = await snapshot();
          await fc.assert(
            fc.asyncProperty(requestFor(route), async ({ params, duplicated, duplicateValue, path }) => {
              if ((await runJobs()) > 0) state = await snapshot(state);
              const res = await send(who, route, params as Record<string, string>, duplicated, duplicateValue, path as string[]);
              fuzzRequests += 1;
              const bucket = `${Math.floor(res.status / 100)}xx`;
              statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
              expect(res.status, `${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
              // Compared before any job runs: a job falling due now is no change of this request's.
              const after = await snapshot(state);
              if (res.status >= 400)
                expect(
                  after.state === state.state,
                  `an error changed the database (${changedTables(state.state, after.state)}): ${res.text.slice(0, 300)}`,
                ).toBe(true);
              state = (await runJobs()) > 0 ? await snapshot(after) : after;
            }),
            { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
          );
        }, 60_000);
      }
      it("reached success paths", () => {
        expect(statuses.get("2xx") ?? 0).toBeGreaterThan(((role === "guest" || role === "bot" ? 30 : 60) * RUNS_PER_ROUTE) / 4);
        console.log(`fuzzing as ${role}: ${[...statuses].map(([k, v]) => `${v} × ${k}`).join(", ")}`);
      });
    });
  }

  it("kept another user's requests fast all along", async () => {
    probing = false;
    await probeLoop;
    latencies.sort((a, b) => a - b);
    for (const slow of slowProbes) console.log(`slow: ${slow}`);
    console.log(
      `fuzzing: ${fuzzRequests} requests; another user's ${latencies.length} requests: baseline ${baseline.toFixed(0)} ms, median ${latencies[latencies.length >> 1]?.toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms`,
    );
    expect(latencies.length).toBeGreaterThan(20);
    expect(latencies.at(-1)!, slowProbes.join("\n")).toBeLessThan(baseline + 2000);
  });
});
