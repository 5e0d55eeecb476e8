import { describe, expect, it } from "vitest";
import { queuedEvents, registerQueue } from "../support/factories.js";
import { seedUsers } from "../support/seed.js";
import { expectError, expectSuccess, useTestServer, type Params } from "../support/testApp.js";

const t = useTestServer();

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;

async function id(name: string): Promise<number> {
  return (await t.user(name)).id;
}

async function createGroup(who: string, params: Params = {}): Promise<number> {
  const body = expectSuccess(await t.post(who, "/api/v1/user_groups/create", { name: uniqueName("group"), description: "A group", members: [], ...params }));
  return body.group_id;
}

async function listGroups(who = "hamlet", params: Params = {}): Promise<any[]> {
  return expectSuccess(await t.get(who, "/api/v1/user_groups", params)).user_groups;
}

async function groupById(groupId: number, who = "hamlet"): Promise<any> {
  return (await listGroups(who, { include_deactivated_groups: true })).find((g) => g.id === groupId);
}

async function members(groupId: number, direct = false): Promise<number[]> {
  return expectSuccess(await t.get("hamlet", `/api/v1/user_groups/${groupId}/members`, { direct_member_only: direct })).members;
}

/** A group `outer` whose subgroup `inner` has `nestedMembers`: membership of `outer` through nesting only. */
async function nestedGroup(nestedMembers: string[]): Promise<{ outer: number; inner: number }> {
  const inner = await createGroup("desdemona", { members: await Promise.all(nestedMembers.map(id)) });
  const outer = await createGroup("desdemona", { subgroups: [inner] });
  return { outer, inner };
}

describe("POST /user_groups/create", () => {
  it("creates a group with Zulip's defaults and returns its id", async () => {
    const [hamlet, othello, cordelia] = [seedUsers.hamlet.id, seedUsers.othello.id, seedUsers.cordelia.id];
    const name = uniqueName("backend");
    const groupId = expectSuccess(
      await t.post("hamlet", "/api/v1/user_groups/create", { name, description: "Backend team", members: [othello, cordelia] }),
    ).group_id;
    expect(typeof groupId).toBe("number");
    const group = await groupById(groupId);
    expect(group).toEqual({
      id: groupId,
      name,
      description: "Backend team",
      members: [cordelia, othello].sort((a, b) => a - b),
      direct_subgroup_ids: [],
      is_system_group: false,
      date_created: expect.any(Number),
      creator_id: hamlet,
      deactivated: false,
      // "group_creator" defaults: an anonymous group holding the creator.
      can_add_members_group: { direct_members: [hamlet], direct_subgroups: [] },
      can_manage_group: { direct_members: [hamlet], direct_subgroups: [] },
      can_join_group: await t.systemGroupId("role:nobody"),
      can_leave_group: await t.systemGroupId("role:everyone"),
      can_mention_group: await t.systemGroupId("role:everyone"),
      can_remove_members_group: await t.systemGroupId("role:nobody"),
    });
  });

  it("accepts initial subgroups and every group setting, a lone subgroup becoming its id", async () => {
    const sub = await createGroup("hamlet");
    const moderators = await t.systemGroupId("role:moderators");
    const othello = seedUsers.othello.id;
    const groupId = await createGroup("hamlet", {
      subgroups: [sub],
      can_add_members_group: moderators,
      can_join_group: { direct_members: [othello], direct_subgroups: [] },
      can_leave_group: { direct_members: [], direct_subgroups: [sub] },
      can_manage_group: { direct_members: [othello], direct_subgroups: [moderators] },
      can_mention_group: { direct_members: [], direct_subgroups: [] },
      can_remove_members_group: moderators,
    });
    expect(await groupById(groupId)).toMatchObject({
      direct_subgroup_ids: [sub],
      can_add_members_group: moderators,
      can_join_group: { direct_members: [othello], direct_subgroups: [] },
      can_leave_group: sub,
      can_manage_group: { direct_members: [othello], direct_subgroups: [moderators] },
      can_mention_group: await t.systemGroupId("role:nobody"),
      can_remove_members_group: moderators,
    });
  });

  it("creates one group when several requests race for one name; the others are told it exists", async () => {
    const name = uniqueName("racers");
    const results = await Promise.all(
      ["hamlet", "othello", "iago", "cordelia", "hamlet", "othello"].map((who) =>
        t.post(who, "/api/v1/user_groups/create", { name, description: "", members: [] }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) expectError(r, 400, `User group '${name}' already exists.`);
    expect(await t.ctx.db.kysely.selectFrom("user_groups").select("id").where("name", "=", name).execute()).toHaveLength(1);
  });

  it("rejects invalid names, duplicates and unknown members with Zulip's errors", async () => {
    const post = (params: Params) => t.post("hamlet", "/api/v1/user_groups/create", { name: uniqueName("x"), description: "", members: [], ...params });
    expectError(await post({ members: [9999] }), 400, "Invalid user ID: 9999");
    expectError(await post({ name: "   " }), 400, "User group name can't be empty!");
    expectError(await post({ name: "x".repeat(101) }), 400, "User group name cannot exceed 100 characters.");
    expectError(await post({ name: "role:admins" }), 400, "User group name cannot start with 'role:'.");
    expectError(await post({ name: "@everyone" }), 400, "User group name cannot start with '@'.");
    expectError(await post({ name: "hamletcharacters" }), 400, "User group 'hamletcharacters' already exists.");
    expectError(await post({ subgroups: [9999] }), 400, "Invalid user group ID: 9999");
    expectError(
      await t.post("hamlet", "/api/v1/user_groups/create", { description: "", members: [] }),
      400,
      "Missing 'name' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await t.post("hamlet", "/api/v1/user_groups/create", { name: uniqueName("x"), description: "" }),
      400,
      "Missing 'members' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(await post({ members: '[1, "a"]' }), 400, "members[1] is not an integer");
  });

  it("refuses the system groups a setting does not allow", async () => {
    const post = (params: Params) => t.post("hamlet", "/api/v1/user_groups/create", { name: uniqueName("x"), description: "", members: [], ...params });
    const [internet, everyone, owners] = await Promise.all(["role:internet", "role:everyone", "role:owners"].map((n) => t.systemGroupId(n)));
    expectError(await post({ can_manage_group: everyone }), 400, "'can_manage_group' setting cannot be set to 'role:everyone' group.");
    expectError(await post({ can_manage_group: internet }), 400, "'can_manage_group' setting cannot be set to 'role:internet' group.");
    expectError(await post({ can_mention_group: owners }), 400, "'can_mention_group' setting cannot be set to 'role:owners' group.");
    expectError(await post({ can_mention_group: internet }), 400, "'can_mention_group' setting cannot be set to 'role:internet' group.");
    expectError(await post({ can_join_group: 9999 }), 400, "Invalid user group");
    expectSuccess(await post({ can_mention_group: everyone, can_leave_group: everyone }));
  });

  it("needs the realm's can_create_groups and refuses guests", async () => {
    expectError(
      await t.post("polonius", "/api/v1/user_groups/create", { name: uniqueName("x"), description: "", members: [] }),
      400,
      "Not allowed for guest users",
    );
    await t.withRealmSettings({ can_create_groups: await t.systemGroupId("role:administrators") }, async () => {
      expectError(
        await t.post("hamlet", "/api/v1/user_groups/create", { name: uniqueName("x"), description: "", members: [] }),
        400,
        "Insufficient permission",
      );
      await createGroup("iago");
    });
  });
});

describe("GET /user_groups", () => {
  it("lists the system groups with role:nobody settings and hides deactivated groups unless asked", async () => {
    const groups = await listGroups();
    const nobody = await t.systemGroupId("role:nobody");
    const owners = groups.find((g) => g.name === "role:owners");
    expect(owners).toMatchObject({
      is_system_group: true,
      members: [seedUsers.desdemona.id],
      can_manage_group: nobody,
      can_mention_group: nobody,
      deactivated: false,
    });
    expect(groups.find((g) => g.name === "role:administrators").direct_subgroup_ids).toEqual([owners.id]);
    const gone = await createGroup("hamlet");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${gone}/deactivate`));
    expect((await listGroups()).some((g) => g.id === gone)).toBe(false);
    expect((await listGroups("hamlet", { include_deactivated_groups: true })).find((g) => g.id === gone).deactivated).toBe(true);
    expect(groups.map((g) => g.id)).toEqual([...groups.map((g) => g.id)].sort((a, b) => a - b));
  });

  it("refuses guests", async () => {
    expectError(await t.get("polonius", "/api/v1/user_groups"), 400, "Not allowed for guest users");
  });
});

describe("GET /user_groups/{id}/members, /members/{user_id} and /subgroups", () => {
  it("answers direct and recursive membership", async () => {
    const [cordelia, othello] = [seedUsers.cordelia.id, seedUsers.othello.id];
    const { outer, inner } = await nestedGroup(["cordelia"]);
    expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${outer}/members`, { add: [othello] }));
    expect(await members(outer)).toEqual([cordelia, othello].sort((a, b) => a - b));
    expect(await members(outer, true)).toEqual([othello]);
    const isMember = async (userId: number, direct: boolean) =>
      expectSuccess(await t.get("hamlet", `/api/v1/user_groups/${outer}/members/${userId}`, { direct_member_only: direct })).is_user_group_member;
    expect(await isMember(cordelia, false)).toBe(true);
    expect(await isMember(cordelia, true)).toBe(false);
    expect(await isMember(seedUsers.hamlet.id, false)).toBe(false);
    expectError(await t.get("hamlet", `/api/v1/user_groups/${outer}/members/9999`), 400, "No such user");

    const deeper = await createGroup("desdemona", { subgroups: [outer] });
    expect(expectSuccess(await t.get("hamlet", `/api/v1/user_groups/${deeper}/subgroups`)).subgroups).toEqual([inner, outer].sort((a, b) => a - b));
    expect(expectSuccess(await t.get("hamlet", `/api/v1/user_groups/${deeper}/subgroups`, { direct_subgroup_only: true })).subgroups).toEqual([outer]);
  });

  it("treats unknown, anonymous and deactivated groups as Zulip does", async () => {
    expectError(await t.get("hamlet", "/api/v1/user_groups/9999/members"), 400, "Invalid user group");
    const group = await groupById(await createGroup("hamlet"));
    // The creator's anonymous can_manage_group group is not reachable as a group.
    const anonymousId = (await t.ctx.db.kysely.selectFrom("user_groups").select("can_manage_group_id").where("id", "=", group.id).executeTakeFirstOrThrow())
      .can_manage_group_id!;
    expectError(await t.get("hamlet", `/api/v1/user_groups/${anonymousId}/members`), 400, "Invalid user group");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${group.id}/deactivate`));
    expectError(await t.get("hamlet", `/api/v1/user_groups/${group.id}/members`), 400, "User group is deactivated.");
    expectError(await t.get("hamlet", `/api/v1/user_groups/${group.id}/subgroups`), 400, "User group is deactivated.");
    expectError(await t.get("polonius", `/api/v1/user_groups/${group.id}/members`), 400, "Not allowed for guest users");
  });
});

describe("PATCH /user_groups/{id}", () => {
  it("renames, describes and changes settings with {new, old}", async () => {
    const groupId = await createGroup("hamlet");
    const name = uniqueName("renamed");
    expectSuccess(await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, { name, description: "New words" }));
    const moderators = await t.systemGroupId("role:moderators");
    const hamlet = seedUsers.hamlet.id;
    expectSuccess(
      await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, {
        can_mention_group: { new: moderators, old: await t.systemGroupId("role:everyone") },
        can_manage_group: {
          new: { direct_members: [hamlet, seedUsers.othello.id], direct_subgroups: [] },
          old: { direct_members: [hamlet], direct_subgroups: [] },
        },
      }),
    );
    expect(await groupById(groupId)).toMatchObject({
      name,
      description: "New words",
      can_mention_group: moderators,
      can_manage_group: { direct_members: [hamlet, seedUsers.othello.id].sort((a, b) => a - b), direct_subgroups: [] },
    });
    // From an anonymous value to a named group: the anonymous group is dropped.
    expectSuccess(await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, { can_manage_group: { new: moderators } }));
    expect((await groupById(groupId)).can_manage_group).toBe(moderators);
  });

  it("rejects bad updates with Zulip's errors", async () => {
    const groupId = await createGroup("hamlet");
    const url = `/api/v1/user_groups/${groupId}`;
    expectError(await t.patch("hamlet", url, {}), 400, "No new data supplied");
    expectError(await t.patch("hamlet", url, { name: "hamletcharacters" }), 400, "User group 'hamletcharacters' already exists.");
    expectError(await t.patch("hamlet", url, { name: "role:x" }), 400, "User group name cannot start with 'role:'.");
    expectError(await t.patch("hamlet", url, { can_mention_group: { new: 1, old: 2 } }), 400, "'old' value does not match the expected value.");
    expectError(
      await t.patch("hamlet", url, { can_manage_group: { new: await t.systemGroupId("role:everyone") } }),
      400,
      "'can_manage_group' setting cannot be set to 'role:everyone' group.",
    );
    expectError(await t.patch("hamlet", "/api/v1/user_groups/9999", { name: uniqueName("x") }), 400, "Invalid user group");
    expectError(
      await t.patch("desdemona", `/api/v1/user_groups/${await t.systemGroupId("role:members")}`, { description: "x" }),
      400,
      "Insufficient permission",
    );
    expectError(await t.patch("othello", url, { description: "x" }), 400, "Insufficient permission");
    expectError(await t.patch("polonius", url, { description: "x" }), 400, "Not allowed for guest users");
  });

  it("still edits a deactivated group", async () => {
    const groupId = await createGroup("hamlet");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/deactivate`));
    expectSuccess(await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, { description: "archived" }));
  });
});

describe("POST /user_groups/{id}/members", () => {
  it("adds and removes members and subgroups in one request, and the Notification Bot tells the users", async () => {
    const [othello, cordelia] = [seedUsers.othello.id, seedUsers.cordelia.id];
    const sub = await createGroup("hamlet");
    const groupId = await createGroup("hamlet", { members: [cordelia] });
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/members`, { add: [othello], delete: [cordelia], add_subgroups: [sub] }));
    const group = await groupById(groupId);
    expect(group.members).toEqual([othello]);
    expect(group.direct_subgroup_ids).toEqual([sub]);
    const notices = await t.ctx.db.kysely
      .selectFrom("messages")
      .select("content")
      .where("sender_id", "=", 1)
      .where("content", "like", `%@_*${group.name}*%`)
      .orderBy("id")
      .execute();
    expect(notices.map((m) => m.content)).toEqual([
      `@_**King Hamlet|${seedUsers.hamlet.id}** added you to the group @_*${group.name}*.`,
      `@_**King Hamlet|${seedUsers.hamlet.id}** removed you from the group @_*${group.name}*.`,
    ]);
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/members`, { delete_subgroups: [sub] }));
    expect((await groupById(groupId)).direct_subgroup_ids).toEqual([]);
  });

  it("rejects bad membership changes with Zulip's errors", async () => {
    const othello = seedUsers.othello.id;
    const groupId = await createGroup("hamlet", { members: [othello] });
    const url = `/api/v1/user_groups/${groupId}/members`;
    expectError(await t.post("hamlet", url, {}), 400, 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    expectError(await t.post("hamlet", url, { add: [othello] }), 400, `User ${othello} is already a member of this group`);
    expectError(await t.post("hamlet", url, { delete: [seedUsers.cordelia.id] }), 400, `There is no member '${seedUsers.cordelia.id}' in this user group`);
    expectError(await t.post("hamlet", url, { add: [9999] }), 400, "Invalid user ID: 9999");
    expectError(await t.post("hamlet", url, { delete: [9999] }), 400, "Invalid user ID: 9999");
    expectError(await t.post("hamlet", "/api/v1/user_groups/9999/members", { add: [othello] }), 400, "Invalid user group");
    expectError(
      await t.post("desdemona", `/api/v1/user_groups/${await t.systemGroupId("role:members")}/members`, { add: [othello] }),
      400,
      "Insufficient permission",
    );
    // The whole request is one transaction: a failing part leaves nothing behind.
    expectError(
      await t.post("hamlet", url, { add: [seedUsers.cordelia.id], delete: [seedUsers.aaron.id] }),
      400,
      `There is no member '${seedUsers.aaron.id}' in this user group`,
    );
    expect(await members(groupId)).toEqual([othello]);
  });
});

describe("POST /user_groups/{id}/subgroups", () => {
  it("adds and removes subgroups and refuses cycles", async () => {
    const a = await createGroup("hamlet");
    const b = await createGroup("hamlet", { subgroups: [a] });
    const c = await createGroup("hamlet");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, { add: [b] }));
    expect((await groupById(c)).direct_subgroup_ids).toEqual([b]);
    expectError(
      await t.post("hamlet", `/api/v1/user_groups/${a}/subgroups`, { add: [c] }),
      400,
      `User group ${a} is already a subgroup of one of the passed subgroups.`,
    );
    expectError(
      await t.post("hamlet", `/api/v1/user_groups/${a}/subgroups`, { add: [a] }),
      400,
      `User group ${a} is already a subgroup of one of the passed subgroups.`,
    );
    expectError(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, { add: [b] }), 400, `User group ${b} is already a subgroup of this group.`);
    expectError(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, { delete: [a] }), 400, `User group ${a} is not a subgroup of this group.`);
    expectError(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, { add: [9999] }), 400, "Invalid user group ID: 9999");
    expectError(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, {}), 400, 'Nothing to do. Specify at least one of "add" or "delete".');
    const gone = await createGroup("hamlet");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${gone}/deactivate`));
    expectError(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, { add: [gone] }), 400, "User group is deactivated.");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${c}/subgroups`, { delete: [b] }));
    expect((await groupById(c)).direct_subgroup_ids).toEqual([]);
  });
});

describe("POST /user_groups/{id}/deactivate", () => {
  it("refuses a group in use, listing the objections", async () => {
    const used = await createGroup("hamlet");
    const parent = await createGroup("hamlet", { subgroups: [used] });
    const viaAnonymous = await createGroup("hamlet", { can_mention_group: { direct_members: [seedUsers.hamlet.id], direct_subgroups: [used] } });
    const res = expectError(
      await t.post("hamlet", `/api/v1/user_groups/${used}/deactivate`),
      400,
      "Cannot deactivate user group in use.",
      "CANNOT_DEACTIVATE_GROUP_IN_USE",
    );
    expect(res.objections).toEqual([
      { type: "subgroup", supergroup_ids: [parent] },
      { type: "user_group", group_id: viaAnonymous, settings: ["can_mention_group"] },
    ]);

    const forChannel = await createGroup("hamlet");
    const channelId = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "Denmark" })).stream_id;
    expectSuccess(await t.patch("iago", `/api/v1/streams/${channelId}`, { can_remove_subscribers_group: { new: forChannel } }));
    expect(
      expectError(
        await t.post("hamlet", `/api/v1/user_groups/${forChannel}/deactivate`),
        400,
        "Cannot deactivate user group in use.",
        "CANNOT_DEACTIVATE_GROUP_IN_USE",
      ).objections,
    ).toEqual([{ type: "channel", channel_id: channelId, settings: ["can_remove_subscribers_group"] }]);

    const forRealm = await createGroup("hamlet");
    await t.withRealmSettings({ can_create_groups: forRealm }, async () => {
      expect(
        expectError(
          await t.post("hamlet", `/api/v1/user_groups/${forRealm}/deactivate`),
          400,
          "Cannot deactivate user group in use.",
          "CANNOT_DEACTIVATE_GROUP_IN_USE",
        ).objections,
      ).toEqual([{ type: "realm", settings: ["can_create_groups"] }]);
    });
  });

  it("refuses system groups, strangers and deactivated groups", async () => {
    const groupId = await createGroup("hamlet");
    expectError(await t.post("othello", `/api/v1/user_groups/${groupId}/deactivate`), 400, "Insufficient permission");
    expectError(await t.post("polonius", `/api/v1/user_groups/${groupId}/deactivate`), 400, "Insufficient permission");
    expectError(await t.post("desdemona", `/api/v1/user_groups/${await t.systemGroupId("role:moderators")}/deactivate`), 400, "Insufficient permission");
    expectError(await t.post("hamlet", "/api/v1/user_groups/9999/deactivate"), 400, "Invalid user group");
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/deactivate`));
    expectError(await t.post("hamlet", `/api/v1/user_groups/${groupId}/deactivate`), 400, "User group is deactivated.");
  });
});

describe("user_group events", () => {
  it("reach every active user of the realm through their event queues", async () => {
    const queues = await Promise.all(
      ["hamlet", "othello", "polonius"].map(async (who) => ({
        who,
        reg: await registerQueue(t, who, {
          event_types: JSON.stringify(["user_group"]),
          client_capabilities: JSON.stringify({ include_deactivated_groups: true }),
        }),
      })),
    );
    const { events } = await t.captureEvents(async () => {
      const sub = await createGroup("hamlet");
      const groupId = await createGroup("hamlet", { members: [seedUsers.othello.id], subgroups: [sub] });
      expectSuccess(await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, { description: "changed" }));
      expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/members`, { add: [seedUsers.cordelia.id], delete: [seedUsers.othello.id] }));
      expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/subgroups`, { delete: [sub] }));
      expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/subgroups`, { add: [sub] }));
      expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/deactivate`));
    });
    const groupEvents = events.filter((e) => e.event.type === "user_group");
    const activeIds = (
      await t.ctx.db.kysely
        .selectFrom("users")
        .select("id")
        .where("realm_id", "=", (await t.user("hamlet")).realm_id)
        .where("is_active", "=", 1)
        .execute()
    ).map((r) => r.id);
    for (const e of groupEvents) expect(new Set(e.users)).toEqual(new Set(activeIds));

    for (const { who, reg } of queues) {
      const received = (await queuedEvents(t, who, reg.queue_id)).filter((e) => e.type === "user_group");
      expect(received.map((e) => e.op)).toEqual([
        "add",
        "add",
        "add_subgroups",
        "update",
        "add_members",
        "remove_members",
        "remove_subgroups",
        "add_subgroups",
        "update",
      ]);
      const [, created, addSub, described, added, removed, removedSub, , deactivated] = received;
      const groupId = created.group.id;
      expect(created.group).toMatchObject({ members: [seedUsers.othello.id], direct_subgroup_ids: [], creator_id: seedUsers.hamlet.id, deactivated: false });
      expect(addSub).toMatchObject({ group_id: groupId, direct_subgroup_ids: [received[0].group.id] });
      expect(described).toEqual({ id: described.id, type: "user_group", op: "update", group_id: groupId, data: { description: "changed" } });
      expect(added).toMatchObject({ group_id: groupId, user_ids: [seedUsers.cordelia.id] });
      expect(removed).toMatchObject({ group_id: groupId, user_ids: [seedUsers.othello.id] });
      expect(removedSub).toMatchObject({ group_id: groupId, direct_subgroup_ids: [received[0].group.id] });
      expect(deactivated).toMatchObject({ group_id: groupId, data: { deactivated: true } });
    }
  });

  it("announces a setting change with its new value", async () => {
    const groupId = await createGroup("hamlet");
    const reg = await registerQueue(t, "othello", { event_types: JSON.stringify(["user_group"]) });
    const moderators = await t.systemGroupId("role:moderators");
    expectSuccess(await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, { can_join_group: { new: moderators } }));
    const [event] = (await queuedEvents(t, "othello", reg.queue_id)).filter((e) => e.type === "user_group");
    expect(event).toMatchObject({ op: "update", group_id: groupId, data: { can_join_group: moderators } });
  });
});

/**
 * Who holds each user-group permission: owner (can_manage_all_groups by default), administrator,
 * moderator, member, guest, and a member reached only through a nested subgroup of the setting's group.
 */
describe("permission matrix of the user-group settings", () => {
  const ROLES = ["desdemona", "iago", "shiva", "hamlet", "polonius", "prospero"] as const;

  /** A fresh group whose `setting` is a group containing prospero and polonius through a subgroup. */
  async function groupWithSetting(setting: string, extra: Params = {}): Promise<number> {
    const { outer } = await nestedGroup(["prospero", "polonius"]);
    return createGroup("desdemona", { [setting]: outer, ...extra });
  }

  const outcome = (res: { body: any }) => (res.body.result === "success" ? "ok" : res.body.msg);

  it("can_manage_group: edit the group", async () => {
    const results: Record<string, string> = {};
    for (const who of ROLES) {
      const groupId = await groupWithSetting("can_manage_group");
      results[who] = outcome(await t.patch(who, `/api/v1/user_groups/${groupId}`, { description: `by ${who}` }));
    }
    expect(results).toEqual({
      desdemona: "ok",
      iago: "Insufficient permission",
      shiva: "Insufficient permission",
      hamlet: "Insufficient permission",
      polonius: "Not allowed for guest users",
      prospero: "ok",
    });
  });

  it("can_manage_all_groups: the realm setting lets its holders manage every group", async () => {
    const groupId = await groupWithSetting("can_manage_group");
    await t.withRealmSettings({ can_manage_all_groups: await t.systemGroupId("role:moderators") }, async () => {
      expectSuccess(await t.patch("shiva", `/api/v1/user_groups/${groupId}`, { description: "moderated" }));
      expectSuccess(await t.patch("iago", `/api/v1/user_groups/${groupId}`, { description: "administered" }));
      expectError(await t.patch("hamlet", `/api/v1/user_groups/${groupId}`, { description: "no" }), 400, "Insufficient permission");
    });
  });

  it("can_add_members_group: add someone else", async () => {
    const othello = seedUsers.othello.id;
    const results: Record<string, string> = {};
    for (const who of ROLES) {
      const groupId = await groupWithSetting("can_add_members_group");
      results[who] = outcome(await t.post(who, `/api/v1/user_groups/${groupId}/members`, { add: [othello] }));
    }
    expect(results).toEqual({
      desdemona: "ok",
      iago: "Insufficient permission",
      shiva: "Insufficient permission",
      hamlet: "Insufficient permission",
      polonius: "Not allowed for guest users",
      prospero: "ok",
    });
  });

  it("can_join_group: join oneself (or with can_add_members_group)", async () => {
    const results: Record<string, string> = {};
    for (const who of ROLES) {
      const groupId = await groupWithSetting("can_join_group");
      results[who] = outcome(await t.post(who, `/api/v1/user_groups/${groupId}/members`, { add: [await id(who)] }));
    }
    expect(results).toEqual({
      desdemona: "ok",
      iago: "Insufficient permission",
      shiva: "Insufficient permission",
      hamlet: "Insufficient permission",
      polonius: "Not allowed for guest users",
      prospero: "ok",
    });
    const moderators = await t.systemGroupId("role:moderators");
    const groupId = await createGroup("desdemona", { can_add_members_group: moderators });
    expectSuccess(await t.post("shiva", `/api/v1/user_groups/${groupId}/members`, { add: [seedUsers.shiva.id] }));
    // Joining does not let one add others.
    const joinable = await createGroup("desdemona", { can_join_group: await t.systemGroupId("role:members") });
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${joinable}/members`, { add: [seedUsers.hamlet.id] }));
    expectError(await t.post("hamlet", `/api/v1/user_groups/${joinable}/members`, { add: [seedUsers.othello.id] }), 400, "Insufficient permission");
  });

  it("can_leave_group: leave oneself", async () => {
    const nobody = await t.systemGroupId("role:nobody");
    const results: Record<string, string> = {};
    for (const who of ROLES) {
      const { outer } = await nestedGroup(["prospero", "polonius"]);
      const groupId = await createGroup("desdemona", { members: [await id(who)], can_leave_group: outer, can_remove_members_group: nobody });
      results[who] = outcome(await t.post(who, `/api/v1/user_groups/${groupId}/members`, { delete: [await id(who)] }));
    }
    expect(results).toEqual({
      desdemona: "ok",
      iago: "Insufficient permission",
      shiva: "Insufficient permission",
      hamlet: "Insufficient permission",
      polonius: "Not allowed for guest users",
      prospero: "ok",
    });
    // The default, role:everyone, lets any member leave.
    const groupId = await createGroup("desdemona", { members: [seedUsers.hamlet.id] });
    expectSuccess(await t.post("hamlet", `/api/v1/user_groups/${groupId}/members`, { delete: [seedUsers.hamlet.id] }));
  });

  it("can_remove_members_group: remove someone else", async () => {
    const othello = seedUsers.othello.id;
    const results: Record<string, string> = {};
    for (const who of ROLES) {
      const groupId = await groupWithSetting("can_remove_members_group", { members: [othello] });
      results[who] = outcome(await t.post(who, `/api/v1/user_groups/${groupId}/members`, { delete: [othello] }));
    }
    expect(results).toEqual({
      desdemona: "ok",
      iago: "Insufficient permission",
      shiva: "Insufficient permission",
      hamlet: "Insufficient permission",
      polonius: "Not allowed for guest users",
      prospero: "ok",
    });
  });

  it("can_mention_group: mention the group in a message (guests included, no override for owners)", async () => {
    const hamletId = seedUsers.hamlet.id;
    const results: Record<string, string> = {};
    const groupId = await groupWithSetting("can_mention_group");
    const name = (await groupById(groupId)).name;
    for (const who of ROLES) {
      results[who] = outcome(
        await t.post(who, "/api/v1/messages", {
          type: "direct",
          to: JSON.stringify([hamletId === (await id(who)) ? seedUsers.othello.id : hamletId]),
          content: `hi @*${name}*`,
        }),
      );
    }
    const refused = `You are not allowed to mention user group '${name}'.`;
    expect(results).toEqual({ desdemona: refused, iago: refused, shiva: refused, hamlet: refused, polonius: "ok", prospero: "ok" });

    const moderated = await createGroup("desdemona", { can_mention_group: await t.systemGroupId("role:moderators") });
    const moderatedName = (await groupById(moderated)).name;
    const byRole: Record<string, string> = {};
    for (const who of ["desdemona", "iago", "shiva", "hamlet", "polonius"]) {
      byRole[who] = outcome(
        await t.post(who, "/api/v1/messages", { type: "direct", to: JSON.stringify([seedUsers.othello.id]), content: `@*${moderatedName}*` }),
      );
    }
    const refusedModerated = `You are not allowed to mention user group '${moderatedName}'.`;
    expect(byRole).toEqual({ desdemona: "ok", iago: "ok", shiva: "ok", hamlet: refusedModerated, polonius: refusedModerated });
  });
});

describe("@*group* mentions", () => {
  it("refuses a mention without can_mention_group in channel messages and edits, but allows silent mentions", async () => {
    const groupId = await createGroup("desdemona", { can_mention_group: await t.systemGroupId("role:administrators") });
    const name = (await groupById(groupId)).name;
    const send = (who: string, content: string) => t.post(who, "/api/v1/messages", { type: "stream", to: "Denmark", topic: "groups", content });
    expectError(await send("hamlet", `ping @*${name}*`), 400, `You are not allowed to mention user group '${name}'.`);
    expectSuccess(await send("hamlet", `ping @_*${name}*`));
    expectSuccess(await send("iago", `ping @*${name}*`));
    expectSuccess(await send("hamlet", "ping @*hamletcharacters*"));

    const messageId = expectSuccess(await send("hamlet", "no mention yet")).id;
    expectError(
      await t.patch("hamlet", `/api/v1/messages/${messageId}`, { content: `now @*${name}*` }),
      400,
      `You are not allowed to mention user group '${name}'.`,
    );
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${messageId}`, { content: `now @_*${name}*` }));
  });

  it("stops honouring a deactivated group's mention", async () => {
    const groupId = await createGroup("desdemona", { can_mention_group: await t.systemGroupId("role:administrators") });
    const name = (await groupById(groupId)).name;
    expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${groupId}/deactivate`));
    // A deactivated group is not a mention target at all (rendered as text), so sending succeeds.
    expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "groups", content: `@*${name}*` }));
  });
});
