import { describe, expect, it } from "vitest";
import { doCreateUser } from "../../src/actions/createUser.js";
import { transaction } from "../../src/appContext.js";
import { realmStore } from "../../src/store/realms.js";
import { seedIds } from "../support/seed.js";
import { makeUser, registerQueue } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

let counter = 0;
/** Creates a fresh member through the API (as iago) and returns its email and id. */
async function newUser(prefix = "user"): Promise<{ email: string; id: number }> {
  counter += 1;
  return makeUser(t, { email: `${prefix}${counter}@zulip.com`, full_name: `Test ${prefix} ${counter}` });
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function row(id: number) {
  return t.ctx.db.kysely.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function systemGroupsOf(id: number): Promise<string[]> {
  const rows = await t.ctx.db.kysely
    .selectFrom("user_group_members")
    .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
    .select("user_groups.name")
    .where("user_group_members.user_id", "=", id)
    .where("user_groups.is_system_group", "=", 1)
    .execute();
  return rows.map((r) => r.name!).sort();
}

async function emailJobsTo(to: string): Promise<Array<{ to: string; subject: string; text: string }>> {
  const jobs = await t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "email").execute();
  return jobs.map((j) => JSON.parse(j.payload)).filter((p) => p.to === to);
}

describe("GET /users", () => {
  it("lists every user of the realm, with avatar_url null for gravatars by default", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/users"));
    const ids = body.members.map((m: any) => m.user_id);
    expect(ids).toEqual(expect.arrayContaining(seedIds("aaron", "ZOE", "cordelia", "desdemona", "hamlet", "iago", "othello", "polonius", "prospero", "shiva")));
    expect(ids).not.toContain(1); // a bot of the internal realm
    const hamlet = body.members.find((m: any) => m.user_id === 10);
    expect(hamlet).toMatchObject({ email: "hamlet@zulip.com", full_name: "King Hamlet", role: 400, is_admin: false, avatar_url: null });
    expect(hamlet).not.toHaveProperty("profile_data");
  });

  it("gives gravatar URLs with client_gravatar=false and profile_data when asked", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/users", { client_gravatar: false, include_custom_profile_fields: true }));
    const othello = body.members.find((m: any) => m.user_id === 12);
    expect(othello.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
    expect(othello.profile_data).toEqual({});
    for (const member of body.members) expect("profile_data" in member).toBe(!member.is_bot);
  });

  it("rejects a non-boolean client_gravatar", async () => {
    expectError(await t.get("hamlet", "/api/v1/users", { client_gravatar: "yes" }), 400, "client_gravatar is not valid JSON");
  });

  it("requires authentication", async () => {
    expectError(await t.get(null, "/api/v1/users"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("GET /users/{user_id} and /users/{email}", () => {
  it("returns one user by id", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/users/11"));
    expect(body.user).toMatchObject({ user_id: 11, email: "iago@zulip.com", role: 200, is_admin: true });
  });

  it("returns one user by email, case-insensitively", async () => {
    const body = expectSuccess(await t.get("hamlet", "/api/v1/users/IAGO@zulip.com", { include_custom_profile_fields: true }));
    expect(body.user).toMatchObject({ user_id: 11, profile_data: {} });
  });

  it("answers No such user for unknown ids, unknown emails and users of other realms", async () => {
    expectError(await t.get("hamlet", "/api/v1/users/9999"), 400, "No such user");
    expectError(await t.get("hamlet", "/api/v1/users/nobody@zulip.com"), 400, "No such user");
    expectError(await t.get("hamlet", "/api/v1/users/1"), 400, "No such user");
    expectError(await t.get("hamlet", "/api/v1/users/notification-bot@zulip.com"), 400, "No such user");
  });
});

describe("GET /users/me", () => {
  it("includes profile_data and max_message_id", async () => {
    const body = expectSuccess(await t.get("othello", "/api/v1/users/me"));
    const newest = await t.ctx.db.kysely
      .selectFrom("user_messages")
      .select((eb) => eb.fn.max("message_id").as("id"))
      .where("user_id", "=", 12)
      .executeTakeFirst();
    expect(body).toMatchObject({ user_id: 12, delivery_email: "othello@zulip.com", profile_data: {}, max_message_id: Number(newest?.id ?? -1) });
    expect(body).not.toHaveProperty("bot_type");
  });
});

describe("POST /users", () => {
  it("creates a user and tells the realm", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("iago", "/api/v1/users", { email: "newbie@zulip.com", password: "a-good-password", full_name: "New Bie" }),
    );
    const id = expectSuccess(res).user_id;
    expect(await row(id)).toMatchObject({ email: "newbie@zulip.com", full_name: "New Bie", role: 400, is_active: 1 });
    expect(events.map((e) => e.event)).toContainEqual(expect.objectContaining({ type: "realm_user", op: "add" }));
    expect(await systemGroupsOf(id)).toEqual(["role:fullmembers", "role:members"]);
  });

  it("requires an administrator", async () => {
    expectError(
      await t.post("hamlet", "/api/v1/users", { email: "x@zulip.com", password: "a-good-password", full_name: "Xavier" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
  });

  it("requires the can_create_users permission", async () => {
    expectError(
      await t.post("desdemona", "/api/v1/users", { email: "x@zulip.com", password: "a-good-password", full_name: "Xavier" }),
      400,
      "User not authorized to create users",
    );
  });

  it("rejects an email already in use, a bad email, a weak password and bad names", async () => {
    const ok = { email: "fresh@zulip.com", password: "a-good-password", full_name: "Fresh Person" };
    expectError(await t.post("iago", "/api/v1/users", { ...ok, email: "Hamlet@zulip.com" }), 400, "Email 'Hamlet@zulip.com' already in use");
    expectError(await t.post("iago", "/api/v1/users", { ...ok, email: "not-an-email" }), 400, "Bad name or username");
    expectError(await t.post("iago", "/api/v1/users", { ...ok, password: "abc" }), 400, "The password is too weak.");
    expectError(await t.post("iago", "/api/v1/users", { ...ok, full_name: "A" }), 400, "Name too short!");
    expectError(await t.post("iago", "/api/v1/users", { ...ok, full_name: "x".repeat(101) }), 400, "Name too long!");
    expectError(await t.post("iago", "/api/v1/users", { ...ok, full_name: "Evil *name*" }), 400, "Invalid characters in name!");
    const { full_name: _, ...missing } = ok;
    expectError(await t.post("iago", "/api/v1/users", missing), 400, "Missing 'full_name' argument", "REQUEST_VARIABLE_MISSING");
    expect(await t.ctx.db.kysely.selectFrom("users").select("id").where("email", "=", "fresh@zulip.com").execute()).toEqual([]);
  });

  it("creates one account when several requests race for the same address; the others are told it is in use", async () => {
    const params = (n: number) => ({ email: "racer@zulip.com", password: "a-good-password", full_name: `Racer ${n}` });
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => t.post("iago", "/api/v1/users", params(n))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) expectError(r, 400, "Email 'racer@zulip.com' already in use");
    expect(await t.ctx.db.kysely.selectFrom("users").select("id").where("email", "=", "racer@zulip.com").execute()).toHaveLength(1);
  });
});

describe("PATCH /users/{user_id}", () => {
  it("changes the full name and sends realm_user/update", async () => {
    const u = await newUser();
    const { result: res, events } = await t.captureEvents(() => t.patch("iago", `/api/v1/users/${u.id}`, { full_name: "  Renamed Person " }));
    expectSuccess(res);
    expect((await row(u.id)).full_name).toBe("Renamed Person");
    expect(events.map((e) => e.event)).toContainEqual({ type: "realm_user", op: "update", person: { user_id: u.id, full_name: "Renamed Person" } });
  });

  it("ignores a blank full name and rejects an invalid one", async () => {
    const u = await newUser();
    expectSuccess(await t.patch("iago", `/api/v1/users/${u.id}`, { full_name: "   " }));
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { full_name: "a@b" }), 400, "Invalid characters in name!");
  });

  it("changes the role and the system-group memberships, with events", async () => {
    const u = await newUser();
    const { result: res, events } = await t.captureEvents(() => t.patch("iago", `/api/v1/users/${u.id}`, { role: 300 }));
    expectSuccess(res);
    expect((await row(u.id)).role).toBe(300);
    expect(await systemGroupsOf(u.id)).toEqual(["role:moderators"]);
    const types = events.map((e) => `${e.event.type}/${e.event.op}`);
    expect(types).toEqual(["realm_user/update", "user_group/remove_members", "user_group/remove_members", "user_group/add_members"]);
    expect(at(events, 0).event).toEqual({ type: "realm_user", op: "update", person: { user_id: u.id, role: 300 } });

    expectSuccess(await t.patch("iago", `/api/v1/users/${u.id}`, { role: 600 }));
    expect(await systemGroupsOf(u.id)).toEqual(["role:everyone"]);
    const body = expectSuccess(await t.get("hamlet", `/api/v1/users/${u.id}`));
    expect(body.user).toMatchObject({ role: 600, is_guest: true });
  });

  it("lets only owners grant or remove the owner role", async () => {
    const u = await newUser();
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { role: 100 }), 400, "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    expectSuccess(await t.patch("desdemona", `/api/v1/users/${u.id}`, { role: 100 }));
    expect(await systemGroupsOf(u.id)).toEqual(["role:owners"]);
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { role: 400 }), 400, "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    expectSuccess(await t.patch("desdemona", `/api/v1/users/${u.id}`, { role: 400 }));
  });

  it("keeps the owner role on the only owner", async () => {
    expectError(await t.patch("desdemona", "/api/v1/users/9", { role: 200 }), 400, "The owner permission cannot be removed from the only organization owner.");
    expect((await row(9)).role).toBe(100);
  });

  it("rejects non-administrators, unknown users and bad roles", async () => {
    const u = await newUser();
    expectError(await t.patch("hamlet", `/api/v1/users/${u.id}`, { full_name: "Nope Nope" }), 400, "Insufficient permission");
    expectError(await t.patch("shiva", `/api/v1/users/${u.id}`, { role: 200 }), 400, "Insufficient permission");
    expectError(await t.patch("iago", "/api/v1/users/9999", { full_name: "Nope Nope" }), 400, "No such user");
    expectError(await t.patch("iago", "/api/v1/users/1", { full_name: "Nope Nope" }), 400, "No such user");
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { role: 500 }), 400, "Invalid role");
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { role: "admin" }), 400, "role is not valid JSON");
    expect((await row(u.id)).role).toBe(400);
  });

  it("works by email too (PATCH /users/{email})", async () => {
    const u = await newUser();
    expectSuccess(await t.patch("iago", `/api/v1/users/${u.email}`, { full_name: "By Email" }));
    expect((await row(u.id)).full_name).toBe("By Email");
    expectError(await t.patch("iago", "/api/v1/users/nobody@zulip.com", { full_name: "By Email" }), 400, "No such user");
  });

  it("changes the email with can_change_user_emails", async () => {
    const u = await newUser();
    const { result: res, events } = await t.captureEvents(() => t.patch("iago", `/api/v1/users/${u.id}`, { new_email: "changed@zulip.com" }));
    expectSuccess(res);
    expect(await row(u.id)).toMatchObject({ email: "changed@zulip.com", delivery_email: "changed@zulip.com" });
    expect(events.map((e) => e.event.person)).toContainEqual({ user_id: u.id, delivery_email: "changed@zulip.com" });
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { new_email: "hamlet@zulip.com" }), 400, "Already has an account.");
    expectError(await t.patch("iago", `/api/v1/users/${u.id}`, { new_email: "bad address" }), 400, "Invalid address.");
  });

  it("refuses new_email to an administrator without can_change_user_emails", async () => {
    const admin = await newUser("admin");
    expectSuccess(await t.patch("iago", `/api/v1/users/${admin.id}`, { role: 200 }));
    const u = await newUser();
    expectError(
      await t.patch(admin.email, `/api/v1/users/${u.id}`, { new_email: "other@zulip.com", full_name: "Not Applied" }),
      400,
      "User not authorized to change user emails",
    );
    expect((await row(u.id)).full_name).not.toBe("Not Applied");
  });

  it("validates profile_data's shape", async () => {
    const u = await newUser();
    const url = `/api/v1/users/${u.id}`;
    expectError(await t.patch("iago", url, { profile_data: "{}" }), 400, "profile_data is not a list");
    expectError(await t.patch("iago", url, { profile_data: [{ id: 1 }] }), 400, "value key is missing from profile_data[0]");
    expectError(await t.patch("iago", url, { profile_data: [{ id: "x", value: "a" }] }), 400, 'profile_data[0]["id"] is not an integer');
    expectError(await t.patch("iago", url, { profile_data: [{ id: 1, value: {} }] }), 400, 'profile_data[0]["value"] is not an allowed_type');
    expectError(await t.patch("iago", url, { profile_data: [{ id: 9999, value: "a" }] }), 400, "Field id 9999 not found.");
  });
});

describe("DELETE /users/{user_id}", () => {
  it("deactivates, notifies the realm, cuts off the API key and emails the comment", async () => {
    const u = await newUser();
    const { result: res, events } = await t.captureEvents(() =>
      t.delete("iago", `/api/v1/users/${u.id}`, { deactivation_notification_comment: "Farewell <friend>!" }),
    );
    expectSuccess(res);
    expect((await row(u.id)).is_active).toBe(0);
    expect(events.map((e) => e.event)).toContainEqual({ type: "realm_user", op: "update", person: { user_id: u.id, is_active: false } });
    const emails = await emailJobsTo(u.email);
    expect(emails).toHaveLength(1);
    expect(at(emails, 0).subject).toContain("has been deactivated");
    expect(at(emails, 0).text).toContain("Farewell <friend>!");
    const cutOff = await t.get(u.email, "/api/v1/users/me");
    expect({ status: cutOff.status, msg: cutOff.body.msg }).toEqual({ status: 401, msg: "Account is deactivated" });
    const listed = expectSuccess(await t.get("hamlet", `/api/v1/users/${u.id}`));
    expect(listed.user.is_active).toBe(false);
  });

  it("sends the email without custom text for an empty comment, and no email without one", async () => {
    const a = await newUser();
    expectSuccess(await t.delete("iago", `/api/v1/users/${a.id}`, { deactivation_notification_comment: "" }));
    const emails = await emailJobsTo(a.email);
    expect(emails).toHaveLength(1);
    expect(at(emails, 0).text).not.toContain("comment");
    const b = await newUser();
    expectSuccess(await t.delete("iago", `/api/v1/users/${b.id}`));
    expect(await emailJobsTo(b.email)).toEqual([]);
  });

  it("deactivates the bots the user owns", async () => {
    const u = await newUser();
    const realm = (await realmStore.getByStringId(t.ctx.db.kysely, "zulip"))!;
    const bot = await transaction(t.ctx, (tx) =>
      doCreateUser(tx, realm, { email: `bot-of-${u.id}@zulip.com`, full_name: "Owned Bot", password_hash: null, is_bot: true, bot_owner_id: u.id }),
    );
    expectSuccess(await t.delete("iago", `/api/v1/users/${u.id}`));
    expect((await row(bot.id)).is_active).toBe(0);
    expectError(await t.delete("iago", `/api/v1/users/${bot.id}`), 400, "No such user");
  });

  it("applies the owner rules", async () => {
    expectError(await t.delete("iago", "/api/v1/users/9"), 400, "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.delete("desdemona", "/api/v1/users/9"), 400, "Cannot deactivate the only organization owner");
    expect((await row(9)).is_active).toBe(1);
  });

  it("rejects non-administrators, unknown and already deactivated users", async () => {
    const u = await newUser();
    expectError(await t.delete("hamlet", `/api/v1/users/${u.id}`), 400, "Insufficient permission");
    expectError(await t.delete("iago", "/api/v1/users/9999"), 400, "No such user");
    expectError(await t.delete("iago", "/api/v1/users/abc"), 400, "user_id is not an integer");
    expectSuccess(await t.delete("iago", `/api/v1/users/${u.id}`));
    expectError(await t.delete("iago", `/api/v1/users/${u.id}`), 400, "User is deactivated");
  });

  // The user's own event queues go at once (events/queues.ts applyAuthChange, `cutOff`), a parked
  // poll answered with what the queue holds for it (EventQueueRegistry.delete). As in Zulip 10.2
  // (send_events_for_user_deactivation), the user's own realm_user/update is not among it: it goes
  // to the active users, computed once he is inactive; his client learns it from its next poll's
  // 401. What the same deactivation sent him before (his bots' deactivation) is delivered.
  it("answers the user's parked poll with the events of the deactivation for him, then drops his queue", async () => {
    const u = await newUser();
    const realm = (await realmStore.getByStringId(t.ctx.db.kysely, "zulip"))!;
    const bot = await transaction(t.ctx, (tx) =>
      doCreateUser(tx, realm, { email: `parked-bot-of-${u.id}@zulip.com`, full_name: "Parked Bot", password_hash: null, is_bot: true, bot_owner_id: u.id }),
    );
    const queue = await registerQueue(t, u.email, { event_types: JSON.stringify(["realm_bot", "realm_user"]) });
    // Polled once without waiting first (a first use can be slow on a busy machine), then parked.
    expectSuccess(await t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }));
    const poll = t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id });
    await tick(300);

    expectSuccess(await t.delete("iago", `/api/v1/users/${u.id}`));
    const events = expectSuccess(await poll).events;
    expect(events).toContainEqual({ type: "realm_bot", op: "update", bot: { user_id: bot.id, is_active: false }, id: expect.any(Number) });
    expect(events).toContainEqual({ type: "realm_user", op: "update", person: { user_id: bot.id, is_active: false }, id: expect.any(Number) });
    expect(events.filter((e: any) => e.type === "realm_user" && e.person.user_id === u.id)).toEqual([]);
    expect(t.eventViolations).toEqual([]);

    const last = Math.max(...events.map((e: any) => e.id));
    const next = await t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: last, dont_block: true });
    expect({ status: next.status, msg: next.body.msg }).toEqual({ status: 401, msg: "Account is deactivated" });
    // Reactivated, his API key works again, but the queue is gone: he registers again.
    expectSuccess(await t.post("iago", `/api/v1/users/${u.id}/reactivate`));
    expectError(
      await t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: last, dont_block: true }),
      400,
      `Bad event queue ID: ${queue.queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
  });

  it("answers the user's parked poll at once when the deactivation sent him nothing", async () => {
    const u = await newUser();
    const queue = await registerQueue(t, u.email, {});
    expectSuccess(await t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }));
    let answered = false;
    const poll = t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id }).finally(() => (answered = true));
    await tick(300);
    expect(answered).toBe(false);
    expectSuccess(await t.delete("iago", `/api/v1/users/${u.id}`));
    // Answered by the queue's deletion, not by the heartbeat: empty, and the next poll is refused.
    expect(expectSuccess(await poll).events).toEqual([]);
    const next = await t.get(u.email, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true });
    expect({ status: next.status, msg: next.body.msg }).toEqual({ status: 401, msg: "Account is deactivated" });
  });
});

describe("DELETE /users/me", () => {
  it("deactivates the caller", async () => {
    const u = await newUser();
    expectSuccess(await t.delete(u.email, "/api/v1/users/me"));
    expect((await row(u.id)).is_active).toBe(0);
  });

  it("refuses the only owner", async () => {
    const body = expectError(
      await t.delete("desdemona", "/api/v1/users/me"),
      400,
      "Cannot deactivate the only organization owner.",
      "CANNOT_DEACTIVATE_LAST_USER",
    );
    expect(body).toMatchObject({ is_last_owner: true, entity: "organization owner" });
  });
});

describe("POST /users/{user_id}/reactivate", () => {
  it("reactivates a user, whose API key works again", async () => {
    const u = await newUser();
    expectSuccess(await t.delete("iago", `/api/v1/users/${u.id}`));
    const { result: res, events } = await t.captureEvents(() => t.post("iago", `/api/v1/users/${u.id}/reactivate`));
    expectSuccess(res);
    expect((await row(u.id)).is_active).toBe(1);
    expect(events.map((e) => e.event)).toContainEqual({ type: "realm_user", op: "update", person: { user_id: u.id, is_active: true } });
    expectSuccess(await t.get(u.email, "/api/v1/users/me"));
  });

  it("requires an administrator", async () => {
    const u = await newUser();
    expectSuccess(await t.delete("iago", `/api/v1/users/${u.id}`));
    expectError(await t.post("hamlet", `/api/v1/users/${u.id}/reactivate`), 400, "Insufficient permission");
    expectError(await t.post("iago", "/api/v1/users/9999/reactivate"), 400, "No such user");
    expect((await row(u.id)).is_active).toBe(0);
  });
});
