import { execFile } from "node:child_process";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, createContext } from "../src/app.js";
import { type AppContext, transaction } from "../src/appContext.js";
import { loadConfig } from "../src/config.js";
import { queueEmail } from "../src/email/queue.js";
import type { JobRunner } from "../src/jobs/runner.js";
import { verifyPassword } from "../src/lib/passwords.js";
import { PARLEY_CLI, REPO_ROOT } from "./support/process.js";
import { freshDatabase } from "./support/testDb.js";
import { basicAuth } from "./support/auth.js";

/**
 * The command line, run as a child process (the built bundle, `node dist/cli.js ...`) on a fresh
 * database of the test engine; effects are checked in the database and through an in-process
 * server on the same database.
 */
let env: Record<string, string> = {};
let drop: () => Promise<void> = async () => {};
let server: { ctx: AppContext & { jobs: JobRunner }; app: FastifyInstance } | undefined;

beforeAll(async () => {
  const db = await freshDatabase();
  drop = db.drop;
  env = { ...db.env, PARLEY_INSECURE_FAST_HASHING: "1", PARLEY_LOG_LEVEL: "warn" };
});

afterAll(async () => {
  if (server) {
    await server.app.close();
    await server.ctx.db.close();
  }
  await drop();
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node <nodeArgs>` with this test's PARLEY_* settings only. */
function run(nodeArgs: string[]): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
  return new Promise((resolve) => {
    execFile(process.execPath, nodeArgs, { cwd: REPO_ROOT, env: { ...base, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const parley = (...args: string[]) => run([...PARLEY_CLI, ...args]);

/** A server in this process on the CLI's database (started on first use). */
async function inProcess() {
  if (!server) {
    const config = loadConfig(env);
    const ctx = await createContext(config, pino({ level: "silent" }));
    server = { ctx, app: await buildApp(ctx) };
  }
  return server;
}

async function getMe(email: string, apiKey: string) {
  const { app } = await inProcess();
  const res = await app.inject({
    method: "GET",
    url: "/api/v1/users/me",
    headers: { authorization: basicAuth(email, apiKey) },
  });
  return { status: res.statusCode, body: res.json() };
}

async function userRow(email: string) {
  const { ctx } = await inProcess();
  return ctx.db.kysely.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
}

const field = (out: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1];

describe("parley migrate", () => {
  it("applies the migrations and names them, then has nothing to do", async () => {
    const first = await parley("migrate");
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toMatch(/^Applied 2026-11-22T0330-create-schema$/m);
    const second = await parley("migrate");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("no pending migrations");
  }, 120_000);
});

describe("parley create-organization", () => {
  it("creates the organization and its owner and prints working credentials", async () => {
    const res = await parley("create-organization", "--string-id", "acme", "--name", "Acme Corp", "--owner-email", "boss@acme.test");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Created the organization "Acme Corp" (string id "acme"');
    const password = field(res.stdout, "password")!;
    const apiKey = field(res.stdout, "API key")!;
    expect(apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
    const me = await getMe("boss@acme.test", apiKey);
    expect(me).toMatchObject({ status: 200, body: { result: "success", email: "boss@acme.test", role: 100, is_owner: true } });
    expect(await verifyPassword(password, (await userRow("boss@acme.test")).password_hash)).toBe(true);
    // Zulip's initial channels, default and subscribed, with Welcome Bot's messages.
    const { app } = await inProcess();
    const authorization = basicAuth("boss@acme.test", apiKey);
    const subs = await app.inject({ method: "GET", url: "/api/v1/users/me/subscriptions", headers: { authorization } });
    expect(
      subs
        .json()
        .subscriptions.map((s: any) => s.name)
        .sort(),
    ).toEqual(["Zulip", "general", "sandbox"]);
    const state = await app.inject({
      method: "POST",
      url: "/api/v1/register",
      headers: { authorization },
      payload: { fetch_event_types: '["default_streams", "realm"]' },
    });
    // Invitations are required in a new organization, so read receipts start on (Zulip's do_create_realm).
    expect(state.json()).toMatchObject({ realm_invite_required: true, realm_enable_read_receipts: true });
    expect([...state.json().realm_default_streams].sort()).toEqual(
      subs
        .json()
        .subscriptions.map((s: any) => s.stream_id)
        .sort(),
    );
    const messages = await app.inject({ method: "GET", url: "/api/v1/messages?anchor=newest&num_before=20&num_after=0&narrow=[]", headers: { authorization } });
    expect(messages.json().messages).toHaveLength(12);
    const receipts = await app.inject({ method: "GET", url: `/api/v1/messages/${messages.json().messages[0].id}/read_receipts`, headers: { authorization } });
    expect(receipts.json()).toMatchObject({ result: "success", user_ids: [] });
  }, 120_000);

  it("refuses a string id that is taken, and a malformed one", async () => {
    const [taken, bad] = await Promise.all([
      parley("create-organization", "--string-id", "acme", "--name", "Again", "--owner-email", "x@acme.test"),
      parley("create-organization", "--string-id", "Bad_Id", "--name", "Bad", "--owner-email", "x@acme.test"),
    ]);
    expect(taken).toMatchObject({ code: 1, stdout: "" });
    expect(taken.stderr).toContain('an organization with string id "acme" already exists');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("lowercase letters, digits and '-' only");
  }, 120_000);
});

describe("parley create-user", () => {
  it("creates a user with the role and password given (--realm defaults to the only organization)", async () => {
    const res = await parley("create-user", "--email", "ann@acme.test", "--full-name", "Ann Arbor", "--role", "moderator", "--password", "s3cret-pass");
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain("password:");
    const row = await userRow("ann@acme.test");
    expect(row).toMatchObject({ full_name: "Ann Arbor", role: 300 });
    expect(field(res.stdout, "API key")).toBe(row.api_key);
    expect(await verifyPassword("s3cret-pass", row.password_hash)).toBe(true);
  }, 120_000);

  it("refuses an email in use (any case) with exit code 1", async () => {
    const res = await parley("create-user", "--email", "ANN@acme.test", "--full-name", "Other Ann");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('a user with email "ANN@acme.test" already exists in organization "acme"');
  }, 120_000);

  it("rejects a missing option, an invalid email and an unknown option with exit code 2", async () => {
    const [missing, invalid, unknown] = await Promise.all([
      parley("create-user", "--email", "bob@acme.test"),
      parley("create-user", "--email", "not-an-email", "--full-name", "Bob"),
      parley("create-user", "--email", "bob@acme.test", "--full-name", "Bob", "--colour", "red"),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required option --full-name");
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('invalid --email "not-an-email"');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
  }, 120_000);
});

describe("parley change-role", () => {
  it("changes the role and the system-group memberships", async () => {
    const res = await parley("change-role", "--realm", "acme", "--email", "ann@acme.test", "--role", "administrator");
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toContain("ann@acme.test is now administrator (was moderator)");
    const row = await userRow("ann@acme.test");
    expect(row.role).toBe(200);
    const { ctx } = await inProcess();
    const groups = await ctx.db.kysely
      .selectFrom("user_group_members")
      .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
      .select("user_groups.name")
      .where("user_group_members.user_id", "=", row.id)
      .execute();
    expect(groups.map((g) => g.name)).toEqual(["role:administrators"]);
  }, 120_000);

  it("refuses to demote the only owner, and an unknown role", async () => {
    const [onlyOwner, unknownRole] = await Promise.all([
      parley("change-role", "--email", "boss@acme.test", "--role", "member"),
      parley("change-role", "--email", "ann@acme.test", "--role", "king"),
    ]);
    expect(onlyOwner.code).toBe(1);
    expect(onlyOwner.stderr).toContain("The owner permission cannot be removed from the only organization owner.");
    expect((await userRow("boss@acme.test")).role).toBe(100);
    expect(unknownRole.code).toBe(2);
    expect(unknownRole.stderr).toContain('invalid --role "king"');
  }, 120_000);
});

describe("parley api-key", () => {
  it("prints the key, and with --regenerate replaces it", async () => {
    const before = (await userRow("ann@acme.test")).api_key;
    const shown = await parley("api-key", "--email", "ann@acme.test");
    expect(shown).toMatchObject({ code: 0, stdout: `${before}\n` });
    const regenerated = await parley("api-key", "--email", "ann@acme.test", "--regenerate");
    const key = regenerated.stdout.trim();
    expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(key).not.toBe(before);
    expect((await getMe("ann@acme.test", key)).status).toBe(200);
    expect((await getMe("ann@acme.test", before)).status).toBe(401);
  }, 120_000);

  it("fails for an unknown user or organization with exit code 1", async () => {
    const [user, realm] = await Promise.all([
      parley("api-key", "--email", "nobody@acme.test"),
      parley("api-key", "--realm", "nowhere", "--email", "ann@acme.test"),
    ]);
    expect(user.code).toBe(1);
    expect(user.stderr).toContain('no user with email "nobody@acme.test" in organization "acme"');
    expect(realm.code).toBe(1);
    expect(realm.stderr).toContain('no organization with string id "nowhere"');
  }, 120_000);
});

describe("parley reset-password", () => {
  it("sets a generated password and prints it", async () => {
    const res = await parley("reset-password", "--email", "ann@acme.test");
    expect(res.code).toBe(0);
    const password = field(res.stdout, "password")!;
    const row = await userRow("ann@acme.test");
    expect(await verifyPassword(password, row.password_hash)).toBe(true);
    expect(await verifyPassword("s3cret-pass", row.password_hash)).toBe(false);
  }, 120_000);

  it("rejects a too-short password", async () => {
    const res = await parley("reset-password", "--email", "ann@acme.test", "--password", "abc");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("a password has 6 to 100 characters");
  }, 120_000);
});

describe("parley emails", () => {
  it("lists the outbox and prints one email", async () => {
    const { ctx } = await inProcess();
    await transaction(ctx, (tx) => queueEmail(tx, { to: "ann@acme.test", subject: "Welcome to Acme", text: "Hello Ann", template: "welcome" }));
    // At least the email job (the first message retention pass is due 60 s after the first
    // start, which a slow run of this file reaches first); the listing below checks the email.
    expect(await ctx.jobs.runDueJobs()).toBeGreaterThanOrEqual(1);
    const [list, missing] = await Promise.all([parley("emails"), parley("emails", "show", "../parley.sqlite3")]);
    expect(missing.code).toBe(1);
    expect(list.code).toBe(0);
    const line = list.stdout.split("\n").find((l) => l.includes("ann@acme.test"))!;
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+ann@acme\.test\s+Welcome to Acme\s+\S+-welcome\.eml$/);
    const file = line.split(/\s+/).at(-1)!;
    const shown = await parley("emails", "show", file);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Subject: Welcome to Acme");
    expect(shown.stdout).toContain("Hello Ann");
  }, 120_000);
});

describe("the command line as a whole", () => {
  it("rejects an unknown command with exit code 2 and the list of commands", async () => {
    const res = await parley("frobnicate");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown command "frobnicate"');
    expect(res.stderr).toContain("create-organization");
  }, 120_000);

  it("asks for --realm once there are several organizations", async () => {
    const second = await parley(
      "create-organization",
      "--string-id",
      "globex",
      "--name",
      "Globex",
      "--owner-email",
      "hank@globex.test",
      "--owner-password",
      "hank-pass",
    );
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain("password:");
    const res = await parley("api-key", "--email", "ann@acme.test");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--realm is required: there are 2 organizations ("acme", "globex")');
  }, 120_000);

  it("runs through bin/parley.js (npx parley)", async () => {
    const res = await run(["bin/parley.js", "api-key", "--realm", "globex", "--email", "hank@globex.test"]);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe((await userRow("hank@globex.test")).api_key);
  }, 120_000);
});
