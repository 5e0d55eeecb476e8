import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** PATCH /realm/user_settings_defaults: the settings new users of the organization start with. */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const defaults = async (who = "hamlet") =>
  expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: JSON.stringify(["realm_user_settings_defaults"]) })).realm_user_settings_defaults;

describe("PATCH /realm/user_settings_defaults", () => {
  it("changes the defaults, tells every user, and applies them to users created afterwards only", async () => {
    const reg = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["realm_user_settings_defaults"]) }));
    expectSuccess(
      await t.patch("iago", "/api/v1/realm/user_settings_defaults", {
        left_side_userlist: true,
        emojiset: "text",
        web_font_size_px: 16,
        notification_sound: "ding",
      }),
    );
    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    // web_font_size_px is already 16: no event for it.
    expect(events.map((e: any) => [e.op, e.property, e.value])).toEqual([
      ["update", "left_side_userlist", true],
      ["update", "emojiset", "text"],
      ["update", "notification_sound", "ding"],
    ]);
    expect(await defaults()).toMatchObject({ left_side_userlist: true, emojiset: "text", notification_sound: "ding", enter_sends: false });

    const id = expectSuccess(await t.post("iago", "/api/v1/users", { email: "defaulted@zulip.com", password: "parleydev1", full_name: "Defaulted" })).user_id;
    const row = await t.ctx.db.kysely.selectFrom("users").select("settings").where("id", "=", id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.settings)).toEqual({ left_side_userlist: true, emojiset: "text", notification_sound: "ding" });
    // Existing users keep their settings.
    const mine = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["user_settings"]) })).user_settings;
    expect(mine).toMatchObject({ left_side_userlist: false, emojiset: "google" });
    expectSuccess(
      await t.patch("iago", "/api/v1/realm/user_settings_defaults", { left_side_userlist: false, emojiset: "google", notification_sound: "zulip" }),
    );
  });

  it("is for administrators, and checks values as PATCH /settings does", async () => {
    expectError(
      await t.patch("hamlet", "/api/v1/realm/user_settings_defaults", { enter_sends: true }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(await t.patch("iago", "/api/v1/realm/user_settings_defaults", { notification_sound: "nope" }), 400, "Invalid notification sound 'nope'");
    expectError(
      await t.patch("iago", "/api/v1/realm/user_settings_defaults", { email_notifications_batching_period_seconds: 0 }),
      400,
      "Invalid email batching period: 0 seconds",
    );
    expectError(await t.patch("iago", "/api/v1/realm/user_settings_defaults", { color_scheme: 9 }), 400, "Invalid color_scheme");
    expect(await defaults()).toMatchObject({ enter_sends: false, color_scheme: 1, notification_sound: "zulip" });
  });
});
