import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

async function registerRealm(who = "hamlet") {
  return expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: ["realm"] }));
}

describe("PATCH /realm", () => {
  it("needs an administrator, and an owner for owner-only settings", async () => {
    expectError(await t.patch("hamlet", "/api/v1/realm", { name: "Renamed" }), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.patch("shiva", "/api/v1/realm", { mandatory_topics: true }), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    for (const [name, value] of [
      ["invite_required", false],
      ["waiting_period_threshold", 3],
      ["message_retention_days", 30],
      ["emails_restricted_to_domains", true],
      ["can_create_groups", { new: await t.systemGroupId("role:administrators") }],
      ["can_manage_all_groups", { new: await t.systemGroupId("role:administrators") }],
    ] as const) {
      expectError(await t.patch("iago", "/api/v1/realm", { [name]: value }), 400, "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    }
    expect((await registerRealm()).realm_message_retention_days).toBe(-1);
  });

  it("changes plain settings, answers what changed and tells every user", async () => {
    const { result, events } = await t.captureEvents(() =>
      t.patch("iago", "/api/v1/realm", {
        name: "Verona Dev",
        description: "Where **it** happens",
        mandatory_topics: true,
        giphy_rating: 3,
        message_content_edit_limit_seconds: 3600,
        allow_message_editing: true,
      }),
    );
    const body = expectSuccess(result);
    expect(body).toMatchObject({ name: "updated", description: "updated", mandatory_topics: true, giphy_rating: 3, message_content_edit_limit_seconds: 3600 });
    expect("allow_message_editing" in body).toBe(false); // unchanged
    const state = await registerRealm();
    expect(state).toMatchObject({
      realm_name: "Verona Dev",
      realm_mandatory_topics: true,
      realm_giphy_rating: 3,
      realm_message_content_edit_limit_seconds: 3600,
    });
    expect(state.realm_description).toBe("<p>Where **it** happens</p>");
    const realmEvents = events.filter((e) => e.event.type === "realm");
    expect(realmEvents.map((e) => e.event.property)).toEqual(["name", "description", "mandatory_topics", "giphy_rating", "message_content_edit_limit_seconds"]);
    const active = await t.ctx.db.kysely
      .selectFrom("users")
      .select("id")
      .where("realm_id", "=", (await t.user("hamlet")).realm_id)
      .where("is_active", "=", 1)
      .execute();
    expect([...at(realmEvents, 0).users].sort((a, b) => a - b)).toEqual(active.map((u) => u.id).sort((a, b) => a - b));
    expectSuccess(await t.patch("iago", "/api/v1/realm", { message_content_edit_limit_seconds: JSON.stringify("unlimited"), mandatory_topics: false }));
    expect((await registerRealm()).realm_message_content_edit_limit_seconds).toBe(null);
  });

  it("refuses bad values and changes nothing when any value is bad", async () => {
    const before = await registerRealm();
    expectError(await t.patch("iago", "/api/v1/realm", { name: "x".repeat(41) }), 400, "name is too long (limit: 40 characters)");
    expectError(await t.patch("iago", "/api/v1/realm", { name: "Fine", giphy_rating: 9 }), 400, "Invalid giphy_rating 9");
    expectError(await t.patch("iago", "/api/v1/realm", { name: "Fine", video_chat_provider: 7 }), 400, "Invalid video_chat_provider 7");
    expectError(await t.patch("iago", "/api/v1/realm", { mandatory_topics: 1 }), 400, "mandatory_topics is not a boolean");
    expectError(
      await t.patch("iago", "/api/v1/realm", { name: "Fine", message_content_delete_limit_seconds: 0 }),
      400,
      "Bad value for 'message_content_delete_limit_seconds': 0",
    );
    expectError(await t.patch("desdemona", "/api/v1/realm", { name: "Fine", message_retention_days: 0 }), 400, "Bad value for 'message_retention_days': 0");
    expectError(await t.patch("iago", "/api/v1/realm", { name: "Fine", new_stream_announcements_stream_id: 99999 }), 400, "Invalid channel ID");
    expectError(await t.patch("iago", "/api/v1/realm", { default_language: "not a language" }), 400, "Invalid language 'not a language'");
    expectError(
      await t.patch("iago", "/api/v1/realm", { name: "Fine", can_add_custom_emoji_group: { new: await t.systemGroupId("role:internet") } }),
      400,
      "'can_add_custom_emoji_group' setting cannot be set to 'role:internet' group.",
    );
    const after = await registerRealm();
    for (const key of [
      "realm_name",
      "realm_giphy_rating",
      "realm_video_chat_provider",
      "realm_can_add_custom_emoji_group",
      "realm_new_stream_announcements_stream_id",
    ]) {
      expect(after[key], key).toEqual(before[key]);
    }
  });

  it("sets group settings to named and anonymous groups with Zulip's rules and update_dict events", async () => {
    const moderators = await t.systemGroupId("role:moderators");
    const members = await t.systemGroupId("role:members");
    const nobody = await t.systemGroupId("role:nobody");
    const othello = await t.user("othello");
    const { result, events } = await t.captureEvents(() => t.patch("iago", "/api/v1/realm", { can_add_custom_emoji_group: { new: moderators } }));
    expect(expectSuccess(result).can_add_custom_emoji_group).toBe(moderators);
    expect(events.map((e) => e.event)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { can_add_custom_emoji_group: moderators } }]);
    const anonymous = { direct_members: [othello.id], direct_subgroups: [moderators] };
    expectSuccess(await t.patch("iago", "/api/v1/realm", { can_add_custom_emoji_group: { new: anonymous, old: moderators } }));
    expect((await registerRealm()).realm_can_add_custom_emoji_group).toEqual(anonymous);
    expectError(
      await t.patch("iago", "/api/v1/realm", { can_add_custom_emoji_group: { new: members, old: moderators } }),
      400,
      "'old' value does not match the expected value.",
    );
    expectError(
      await t.patch("desdemona", "/api/v1/realm", { can_create_web_public_channel_group: { new: members } }),
      400,
      "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
    );
    expectError(
      await t.patch("desdemona", "/api/v1/realm", { can_create_web_public_channel_group: { new: anonymous } }),
      400,
      "'can_create_web_public_channel_group' must be a system user group.",
    );
    expectError(
      await t.patch("desdemona", "/api/v1/realm", { can_manage_all_groups: { new: nobody } }),
      400,
      "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.",
    );
    expectError(
      await t.patch("iago", "/api/v1/realm", { can_delete_any_message_group: { new: await t.systemGroupId("role:everyone") } }),
      400,
      "'can_delete_any_message_group' setting cannot be set to 'role:everyone' group.",
    );
    // Back to a named group: the anonymous group goes.
    expectSuccess(await t.patch("iago", "/api/v1/realm", { can_add_custom_emoji_group: { new: members } }));
    expect((await registerRealm()).realm_can_add_custom_emoji_group).toBe(members);
  });

  it("can_mention_many_users_group also moves the deprecated wildcard_mention_policy", async () => {
    const members = await t.systemGroupId("role:members");
    const res = await t.captureEvents(() => t.patch("iago", "/api/v1/realm", { can_mention_many_users_group: { new: members } }));
    expectSuccess(res.result);
    expect(res.events.map((e) => e.event)).toEqual([
      { type: "realm", op: "update_dict", property: "default", data: { can_mention_many_users_group: members } },
      { type: "realm", op: "update", property: "wildcard_mention_policy", value: 2 },
    ]);
    expect((await registerRealm()).realm_wildcard_mention_policy).toBe(2);
  });
});
