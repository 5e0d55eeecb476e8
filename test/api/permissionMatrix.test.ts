import { beforeAll, describe, expect, it } from "vitest";
import { channelId, makeUser, sendChannelMessage } from "../support/factories.js";
import { type ApiResponse, expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Every group setting against the same cast (issue 5: owner, administrator, moderator, member,
 * guest, nested-subgroup member). Each setting is set to
 *   { direct_members: [othello, polonius], direct_subgroups: [outer] }, outer ⊃ inner ∋ cordelia,
 * then every actor tries the action the setting governs through the API.
 */
const t = useTestServer();

const ACTORS = ["desdemona", "iago", "shiva", "hamlet", "polonius", "othello", "cordelia"] as const;
type Actor = (typeof ACTORS)[number];
type Row = Record<Actor, boolean>;
const row = (allowed: Actor[]): Row => Object.fromEntries(ACTORS.map((a) => [a, allowed.includes(a)])) as Row;

let value: { direct_members: number[]; direct_subgroups: number[] };
const id = async (who: string) => (await t.user(who)).id;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}`;

async function createGroup(name: string, members: number[], subgroups: number[] = []): Promise<number> {
  return expectSuccess(await t.post("prospero", "/api/v1/user_groups/create", { name, description: name, members, subgroups })).group_id;
}

const ok = (res: ApiResponse) => res.status === 200;

/** Runs `probe` for each actor and compares with `expected`; `probe` answers whether the API allowed it. */
async function matrix(probe: (who: Actor) => Promise<boolean>, expected: Row): Promise<void> {
  const actual = {} as Row;
  for (const who of ACTORS) actual[who] = await probe(who);
  expect(actual).toEqual(expected);
}

beforeAll(async () => {
  const inner = await createGroup("matrix-inner", [await id("cordelia")]);
  const outer = await createGroup("matrix-outer", [], [inner]);
  value = { direct_members: [await id("othello"), await id("polonius")], direct_subgroups: [outer] };
});

describe("channel group settings", () => {
  let publicId: number;
  let privateId: number;
  // prospero created both channels (and stays their administrator: the private channel's
  // content is his, not the organization owner's).
  const setOnChannel = async (streamIdValue: number, setting: string, v: unknown = value) =>
    expectSuccess(await t.patch(streamIdValue === privateId ? "prospero" : "desdemona", `/api/v1/streams/${streamIdValue}`, { [setting]: { new: v } }));

  beforeAll(async () => {
    expectSuccess(
      await t.post("prospero", "/api/v1/users/me/subscriptions", {
        subscriptions: [{ name: "matrix-public" }],
        principals: [await id("prospero"), await id("polonius"), await id("aaron")],
      }),
    );
    expectSuccess(
      await t.post("prospero", "/api/v1/users/me/subscriptions", {
        subscriptions: [{ name: "matrix-private" }],
        invite_only: true,
        history_public_to_subscribers: true,
      }),
    );
    publicId = await channelId(t, "matrix-public", "prospero");
    privateId = await channelId(t, "matrix-private", "prospero");
    // Only the channel-level right may let anyone add subscribers in these tests.
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { can_add_subscribers_group: { new: await t.systemGroupId("role:nobody") } }));
  });

  it("can_send_message_group: post to the channel", async () => {
    await setOnChannel(publicId, "can_send_message_group");
    await matrix(
      async (who) => ok(await t.post(who, "/api/v1/messages", { type: "stream", to: "matrix-public", topic: "matrix", content: "hi" })),
      row(["polonius", "othello", "cordelia"]),
    );
  });

  it("can_administer_channel_group: change the description", async () => {
    await setOnChannel(publicId, "can_administer_channel_group");
    await matrix(
      async (who) => ok(await t.patch(who, `/api/v1/streams/${publicId}`, { description: unique(who) })),
      row(["desdemona", "iago", "othello", "cordelia"]),
    );
  });

  it("can_remove_subscribers_group: unsubscribe someone else", async () => {
    await setOnChannel(publicId, "can_remove_subscribers_group");
    const aaron = await id("aaron");
    await matrix(
      async (who) => {
        const res = await t.delete(who, "/api/v1/users/me/subscriptions", { subscriptions: ["matrix-public"], principals: [aaron] });
        const removed = ok(res) && expectSuccess(res).removed.length === 1;
        if (removed)
          expectSuccess(await t.post("desdemona", "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "matrix-public" }], principals: [aaron] }));
        return removed;
      },
      row(["desdemona", "iago", "othello", "cordelia"]),
    );
  });

  it("can_subscribe_group: subscribe oneself to a private channel", async () => {
    await setOnChannel(privateId, "can_subscribe_group");
    await matrix(
      async (who) => {
        const res = await t.post(who, "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "matrix-private" }] });
        if (!ok(res)) return false;
        expectSuccess(await t.delete(who, "/api/v1/users/me/subscriptions", { subscriptions: ["matrix-private"] }));
        return true;
      },
      row(["othello", "cordelia"]),
    );
    await setOnChannel(privateId, "can_subscribe_group", await t.systemGroupId("role:nobody"));
  });

  it("can_add_subscribers_group: subscribe someone else to a private channel", async () => {
    await setOnChannel(privateId, "can_add_subscribers_group");
    const aaron = await id("aaron");
    await matrix(
      async (who) => {
        const res = await t.post(who, "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "matrix-private" }], principals: [aaron] });
        if (!ok(res)) return false;
        expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: ["matrix-private"], principals: [aaron] }));
        return true;
      },
      row(["othello", "cordelia"]),
    );
  });
});

describe("user group settings", () => {
  let target: number;
  const setOnGroup = async (setting: string) => expectSuccess(await t.patch("desdemona", `/api/v1/user_groups/${target}`, { [setting]: { new: value } }));
  const members = async () =>
    expectSuccess(await t.get("desdemona", `/api/v1/user_groups/${target}/members`, { direct_member_only: true })).members as number[];

  beforeAll(async () => {
    target = await createGroup("matrix-target", [await id("aaron")]);
    // Only the settings under test (and the organization's can_manage_all_groups: owners) grant anything.
    const nobody = await t.systemGroupId("role:nobody");
    for (const setting of ["can_manage_group", "can_add_members_group", "can_join_group", "can_leave_group", "can_remove_members_group"]) {
      expectSuccess(await t.patch("desdemona", `/api/v1/user_groups/${target}`, { [setting]: { new: nobody } }));
    }
  });

  it("can_manage_group: edit the group", async () => {
    await setOnGroup("can_manage_group");
    await matrix(
      async (who) => ok(await t.patch(who, `/api/v1/user_groups/${target}`, { description: unique(who) })),
      row(["desdemona", "othello", "cordelia"]),
    );
    expectSuccess(await t.patch("desdemona", `/api/v1/user_groups/${target}`, { can_manage_group: { new: await t.systemGroupId("role:nobody") } }));
  });

  it("can_add_members_group: add someone else", async () => {
    await setOnGroup("can_add_members_group");
    const prospero = await id("prospero");
    await matrix(
      async (who) => {
        if (!ok(await t.post(who, `/api/v1/user_groups/${target}/members`, { add: [prospero] }))) return false;
        expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${target}/members`, { delete: [prospero] }));
        return true;
      },
      row(["desdemona", "othello", "cordelia"]),
    );
  });

  it("can_join_group: add oneself", async () => {
    await setOnGroup("can_join_group");
    await matrix(
      async (who) => {
        const me = await id(who);
        if ((await members()).includes(me)) expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${target}/members`, { delete: [me] }));
        if (!ok(await t.post(who, `/api/v1/user_groups/${target}/members`, { add: [me] }))) return false;
        expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${target}/members`, { delete: [me] }));
        return true;
      },
      row(["desdemona", "othello", "cordelia"]),
    );
  });

  it("can_leave_group: remove oneself", async () => {
    await setOnGroup("can_leave_group");
    await matrix(
      async (who) => {
        const me = await id(who);
        if (!(await members()).includes(me)) expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${target}/members`, { add: [me] }));
        const left = ok(await t.post(who, `/api/v1/user_groups/${target}/members`, { delete: [me] }));
        if (!left) expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${target}/members`, { delete: [me] }));
        return left;
      },
      row(["desdemona", "othello", "cordelia"]),
    );
  });

  it("can_remove_members_group: remove someone else", async () => {
    await setOnGroup("can_remove_members_group");
    const aaron = await id("aaron");
    await matrix(
      async (who) => {
        if (!ok(await t.post(who, `/api/v1/user_groups/${target}/members`, { delete: [aaron] }))) return false;
        expectSuccess(await t.post("desdemona", `/api/v1/user_groups/${target}/members`, { add: [aaron] }));
        return true;
      },
      row(["desdemona", "othello", "cordelia"]),
    );
  });

  it("can_mention_group: mention the group", async () => {
    await setOnGroup("can_mention_group");
    await matrix(
      async (who) => ok(await t.post(who, "/api/v1/messages", { type: "stream", to: "Verona", topic: "matrix", content: "hello @*matrix-target*" })),
      row(["polonius", "othello", "cordelia"]),
    );
  });
});

describe("organization group settings", () => {
  const setOnRealm = async (setting: string) => expectSuccess(await t.patch("desdemona", "/api/v1/realm", { [setting]: { new: value } }));

  it("can_create_groups: create a user group", async () => {
    await setOnRealm("can_create_groups");
    await matrix(
      async (who) => ok(await t.post(who, "/api/v1/user_groups/create", { name: unique("made-by"), description: "", members: [] })),
      row(["othello", "cordelia"]),
    );
  });

  it("can_create_public_channel_group: create a public channel", async () => {
    await setOnRealm("can_create_public_channel_group");
    await matrix(
      async (who) => ok(await t.post(who, "/api/v1/users/me/subscriptions", { subscriptions: [{ name: unique("channel-by") }] })),
      row(["othello", "cordelia"]),
    );
  });

  it("can_add_custom_emoji_group: add a custom emoji", async () => {
    await setOnRealm("can_add_custom_emoji_group");
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
    await matrix(
      async (who) => {
        const form = new FormData();
        form.append("f", new Blob([new Uint8Array(png)], { type: "image/png" }), "e.png");
        const res = await fetch(`${t.baseUrl}/api/v1/realm/emoji/${unique("emoji").replace("-", "_")}`, {
          method: "POST",
          headers: { Authorization: await t.authHeader(who) },
          body: form,
        });
        return res.status === 200;
      },
      row(["othello", "cordelia"]),
    );
  });

  it("can_mention_many_users_group: @**all** in a channel with more than 15 subscribers", async () => {
    const crowd: number[] = [];
    for (let i = 0; i < 10; i++) crowd.push((await makeUser(t, { email: `crowd${i}@zulip.com`, full_name: `Crowd ${i}` })).id);
    const everyone = [...crowd, ...(await Promise.all(ACTORS.map(id)))];
    // Channel creation and adding subscribers are restricted by earlier tests; restore the defaults.
    expectSuccess(
      await t.patch("desdemona", "/api/v1/realm", {
        can_create_public_channel_group: { new: await t.systemGroupId("role:members") },
        can_add_subscribers_group: { new: await t.systemGroupId("role:members") },
      }),
    );
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: [{ name: "matrix-crowd" }], principals: everyone }));
    await setOnRealm("can_mention_many_users_group");
    await matrix(
      async (who) => ok(await t.post(who, "/api/v1/messages", { type: "stream", to: "matrix-crowd", topic: "all", content: "hello @**all**" })),
      row(["polonius", "othello", "cordelia"]),
    );
  });

  it("can_delete_any_message_group: delete someone else's message", async () => {
    await setOnRealm("can_delete_any_message_group");
    await matrix(
      async (who) => {
        const messageId = await sendChannelMessage(t, "aaron", "Verona", "matrix", "delete me");
        return ok(await t.delete(who, `/api/v1/messages/${messageId}`));
      },
      row(["othello", "cordelia"]),
    );
  });
});
