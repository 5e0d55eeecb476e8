import { describe, expect, it } from "vitest";
import { USER_SETTING_NAMES, USER_SETTING_RULES, userSettings } from "../../src/models/userSettings.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";
import { group } from "../../src/util/defined.js";

const t = useTestServer();

const patchSettings = (who: string | null, params: Record<string, unknown>) => t.patch(who, "/api/v1/settings", params as any);

async function settingsOf(name: string) {
  return userSettings(await t.user(name));
}

describe("PATCH /settings: validation", () => {
  it("requires authentication", async () => {
    expectError(await patchSettings(null, { enter_sends: true }), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });

  it("refuses bots", async () => {
    expectError(await patchSettings("notification-bot@zulip.com", { enter_sends: true }), 400, "This endpoint does not accept bot requests.");
  });

  const booleans = USER_SETTING_NAMES.filter((name) => USER_SETTING_RULES[name].kind === "bool");
  it.each(booleans)("rejects a non-boolean %s", async (name) => {
    // As in Zulip: a value that is not JSON at all fails before the type check.
    expectError(await patchSettings("hamlet", { [name]: "yes" }), 400, `${name} is not valid JSON`);
    expectError(await patchSettings("hamlet", { [name]: '"yes"' }), 400, `${name} is not a boolean`);
    expectError(await patchSettings("hamlet", { [name]: 1 }), 400, `${name} is not a boolean`);
  });

  const intEnums = USER_SETTING_NAMES.flatMap((name) => {
    const rule = USER_SETTING_RULES[name];
    return rule.kind === "int" && rule.values ? [[name, Math.max(...rule.values) + 1] as const] : [];
  });
  it.each(intEnums)("rejects %s = %d", async (name, value) => {
    expectError(await patchSettings("hamlet", { [name]: value }), 400, `Invalid ${name}`);
    expectError(await patchSettings("hamlet", { [name]: 0 }), 400, `Invalid ${name}`);
    expectError(await patchSettings("hamlet", { [name]: '"1"' }), 400, `${name} is not an integer`);
  });

  const stringEnums = USER_SETTING_NAMES.filter((name) => {
    const rule = USER_SETTING_RULES[name];
    return rule.kind === "string" && rule.values;
  });
  it.each(stringEnums)("rejects an unknown %s", async (name) => {
    expectError(await patchSettings("hamlet", { [name]: "bogus" }), 400, `Invalid ${name}`);
  });

  it.each(["web_font_size_px", "web_line_height_percent", "email_notifications_batching_period_seconds"])("rejects a non-integer %s", async (name) => {
    expectError(await patchSettings("hamlet", { [name]: "1.5" }), 400, `${name} is not an integer`);
    expectError(await patchSettings("hamlet", { [name]: "big" }), 400, `${name} is not valid JSON`);
  });

  it("checks the values Zulip checks beyond the type", async () => {
    expectError(await patchSettings("hamlet", { default_language: "xx" }), 400, "Invalid default_language");
    expectError(await patchSettings("hamlet", { default_language: "constructor" }), 400, "Invalid default_language");
    expectError(await patchSettings("hamlet", { notification_sound: "bogus" }), 400, "Invalid notification sound 'bogus'");
    expectError(await patchSettings("hamlet", { email_notifications_batching_period_seconds: 0 }), 400, "Invalid email batching period: 0 seconds");
    expectError(await patchSettings("hamlet", { email_notifications_batching_period_seconds: 604801 }), 400, "Invalid email batching period: 604801 seconds");
    expectError(await patchSettings("hamlet", { timezone: "Mars/Olympus_Mons" }), 400, "timezone is not a recognized time zone");
  });

  it("rejects bad full names with Zulip's texts", async () => {
    expectError(await patchSettings("hamlet", { full_name: " A " }), 400, "Name too short!");
    expectError(await patchSettings("hamlet", { full_name: "x".repeat(101) }), 400, "Name too long!");
    expectError(await patchSettings("hamlet", { full_name: "Bad*Name" }), 400, "Invalid characters in name!");
    expectError(await patchSettings("hamlet", { full_name: "Bad\u0007Name" }), 400, "Invalid characters in name!");
    expectError(await patchSettings("hamlet", { full_name: "Hamlet|15" }), 400, "Invalid format!");
  });

  it("changes nothing when one parameter is bad", async () => {
    const before = await t.user("hamlet");
    expectError(await patchSettings("hamlet", { enter_sends: true, full_name: "A", timezone: "Europe/Paris" }), 400, "Name too short!");
    const after = await t.user("hamlet");
    expect(after.settings).toBe(before.settings);
    expect(after.timezone).toBe(before.timezone);
  });

  it("lists unknown parameters as ignored", async () => {
    const body = expectSuccess(await patchSettings("hamlet", { dense_mode: true, twenty_four_hour_time: true }));
    expect(body.ignored_parameters_unsupported).toEqual(["dense_mode"]);
  });
});

describe("PATCH /settings: changing settings", () => {
  it("stores each setting and sends user_settings and legacy events for changed ones only", async () => {
    const othello = await t.user("othello");
    const { result: res, events } = await t.captureEvents(() =>
      patchSettings("othello", {
        enter_sends: true, // legacy display setting
        enable_sounds: false, // legacy notification setting
        web_font_size_px: 14, // modern setting
        emojiset: "twitter",
        color_scheme: 2,
        starred_message_counts: true, // unchanged: no event
      }),
    );
    expect(expectSuccess(res).ignored_parameters_unsupported).toBeUndefined();
    const settings = await settingsOf("othello");
    expect(settings).toMatchObject({ enter_sends: true, enable_sounds: false, web_font_size_px: 14, emojiset: "twitter", color_scheme: 2 });
    expect(JSON.parse((await t.user("othello")).settings)).toEqual({
      enter_sends: true,
      enable_sounds: false,
      web_font_size_px: 14,
      emojiset: "twitter",
      color_scheme: 2,
    });

    expect(events.every((e) => e.users.length === 1 && e.users[0] === othello.id)).toBe(true);
    const sent = events.map((e) => e.event);
    expect(sent).toHaveLength(9);
    expect(sent).toEqual(
      expect.arrayContaining([
        { type: "user_settings", op: "update", property: "enter_sends", value: true },
        { type: "update_display_settings", user: othello.email, setting_name: "enter_sends", setting: true },
        { type: "user_settings", op: "update", property: "enable_sounds", value: false },
        { type: "update_global_notifications", user: othello.email, notification_name: "enable_sounds", setting: false },
        { type: "user_settings", op: "update", property: "web_font_size_px", value: 14 },
        { type: "user_settings", op: "update", property: "emojiset", value: "twitter" },
        { type: "update_display_settings", user: othello.email, setting_name: "emojiset", setting: "twitter" },
        { type: "user_settings", op: "update", property: "color_scheme", value: 2 },
        { type: "update_display_settings", user: othello.email, setting_name: "color_scheme", setting: 2 },
      ]),
    );
  });

  it("sends no event when nothing changes", async () => {
    const { result: res, events } = await t.captureEvents(() => patchSettings("othello", { enter_sends: true, emojiset: "twitter" }));
    expectSuccess(res);
    expect(events).toEqual([]);
  });

  it("stores a value equal to the default by dropping the override", async () => {
    expectSuccess(await patchSettings("othello", { web_font_size_px: 16 }));
    expect(JSON.parse((await t.user("othello")).settings)).not.toHaveProperty("web_font_size_px");
  });

  it("accepts every allowed value of the string settings", async () => {
    expectSuccess(await patchSettings("aaron", { web_home_view: "recent_topics", web_animate_image_previews: "never", notification_sound: "none" }));
    expectSuccess(await patchSettings("aaron", { emojiset: "google-blob", notification_sound: "ding", email_notifications_batching_period_seconds: 604800 }));
    expect(await settingsOf("aaron")).toMatchObject({
      web_home_view: "recent_topics",
      web_animate_image_previews: "never",
      emojiset: "google-blob",
      notification_sound: "ding",
      email_notifications_batching_period_seconds: 604800,
    });
  });

  it("sends the language name with a default_language change", async () => {
    const { result: res, events } = await t.captureEvents(() => patchSettings("aaron", { default_language: "de" }));
    expectSuccess(res);
    expect(events.map((e) => e.event)).toEqual([
      { type: "user_settings", op: "update", property: "default_language", value: "de", language_name: "German" },
      { type: "update_display_settings", user: "aaron@zulip.com", setting_name: "default_language", setting: "de", language_name: "German" },
    ]);
  });

  it("tells administrators when a user changes consent to private data exports", async () => {
    const hamlet = await t.user("hamlet");
    const queue = expectSuccess(await t.post("iago", "/api/v1/register", { event_types: ["realm_export_consent"] }));
    const { result: res, events } = await t.captureEvents(() => patchSettings("hamlet", { allow_private_data_export: true }));
    expectSuccess(res);
    const consent = events.filter((e) => e.event.type === "realm_export_consent");
    expect(consent.map((e) => e.event)).toEqual([{ type: "realm_export_consent", user_id: hamlet.id, consented: true }]);
    const admins = await t.ctx.db.kysely.selectFrom("users").select("id").where("role", "<=", 200).where("is_bot", "=", 0).where("is_active", "=", 1).execute();
    expect(at(consent, 0).users.sort((a, b) => a - b)).toEqual(admins.map((u) => u.id).sort((a, b) => a - b));
    expect(at(consent, 0).users).not.toContain(hamlet.id);
    const polled = expectSuccess(await t.get("iago", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true })).events;
    expect(polled).toEqual([{ id: 0, type: "realm_export_consent", user_id: hamlet.id, consented: true }]);
    expectSuccess(await patchSettings("hamlet", { allow_private_data_export: false }));
    // Also when a user is created or reactivated (their consent is not in those events).
    const consentsOf = (captured: Array<{ event: any }>) => captured.filter((e) => e.event.type === "realm_export_consent").map((e) => e.event);
    const created = await t.captureEvents(() =>
      t.post("iago", "/api/v1/users", { email: "consent@zulip.com", password: "consent-pass", full_name: "Consent" }),
    );
    const newId = expectSuccess(created.result).user_id;
    expect(consentsOf(created.events)).toEqual([{ type: "realm_export_consent", user_id: newId, consented: false }]);
    expectSuccess(await t.delete("iago", `/api/v1/users/${newId}`));
    const reactivated = await t.captureEvents(() => t.post("iago", `/api/v1/users/${newId}/reactivate`));
    expectSuccess(reactivated.result);
    expect(consentsOf(reactivated.events)).toEqual([{ type: "realm_export_consent", user_id: newId, consented: false }]);
  });

  it("changes the time zone and tells everyone in the organization", async () => {
    const aaron = await t.user("aaron");
    const { result: res, events } = await t.captureEvents(() => patchSettings("aaron", { timezone: "Asia/Kolkata" }));
    expectSuccess(res);
    expect((await t.user("aaron")).timezone).toBe("Asia/Kolkata");
    expect(events.map((e) => e.event)).toEqual([
      { type: "user_settings", op: "update", property: "timezone", value: "Asia/Kolkata" },
      { type: "update_display_settings", user: "aaron@zulip.com", setting_name: "timezone", setting: "Asia/Kolkata" },
      { type: "realm_user", op: "update", person: { email: "aaron@zulip.com", user_id: aaron.id, timezone: "Asia/Kolkata" } },
    ]);
    expect(at(events, 2).users).toContain((await t.user("hamlet")).id);
    // /register shows it in user_settings, and at the top level to clients older than feature level 89.
    const modern = expectSuccess(
      await t.post("aaron", "/api/v1/register", { fetch_event_types: ["user_settings"], client_capabilities: { user_settings_object: true } }),
    );
    expect(modern.user_settings.timezone).toBe("Asia/Kolkata");
    expect(modern).not.toHaveProperty("timezone");
    const legacy = expectSuccess(await t.post("aaron", "/api/v1/register", { fetch_event_types: ["user_settings", "update_display_settings"] }));
    expect([legacy.user_settings.timezone, legacy.timezone]).toEqual(["Asia/Kolkata", "Asia/Kolkata"]);
    expectSuccess(await patchSettings("aaron", { timezone: "" }));
    expect((await t.user("aaron")).timezone).toBe("");
  });

  it("changes the full name, stripped, and tells everyone", async () => {
    const prospero = await t.user("prospero");
    const { result: res, events } = await t.captureEvents(() => patchSettings("prospero", { full_name: "  Prospero the Duke  " }));
    expectSuccess(res);
    expect((await t.user("prospero")).full_name).toBe("Prospero the Duke");
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toEqual({ type: "realm_user", op: "update", person: { user_id: prospero.id, full_name: "Prospero the Duke" } });
    expect(at(events, 0).users).toEqual(expect.arrayContaining([(await t.user("hamlet")).id, (await t.user("iago")).id]));
  });

  it("tells users who gain or lose sight of the real email when email_address_visibility changes", async () => {
    const shiva = await t.user("shiva");
    const { result: res, events } = await t.captureEvents(() => patchSettings("shiva", { email_address_visibility: 3 }));
    expectSuccess(res);
    const lost = events.find((e) => e.event.type === "realm_user");
    expect(lost?.event).toEqual({ type: "realm_user", op: "update", person: { user_id: shiva.id, delivery_email: null } });
    expect(lost?.users).toContain((await t.user("hamlet")).id);
    expect(lost?.users).not.toContain((await t.user("iago")).id);
    expect(lost?.users).not.toContain(shiva.id);
  });

  it("is also served at the deprecated /settings/display and /settings/notifications", async () => {
    expectSuccess(await t.patch("ZOE", "/api/v1/settings/display", { high_contrast_mode: true }));
    expectSuccess(await t.patch("ZOE", "/api/v1/settings/notifications", { enable_digest_emails: false }));
    expect(await settingsOf("ZOE")).toMatchObject({ high_contrast_mode: true, enable_digest_emails: false });
  });
});

describe("PATCH /settings: password", () => {
  const login = (username: string, password: string) => t.post(null, "/api/v1/fetch_api_key", { username, password });

  it("requires the old password", async () => {
    expectError(await patchSettings("cordelia", { new_password: "newpassword1" }), 400, "Wrong password!");
    expectError(await patchSettings("cordelia", { old_password: "nope", new_password: "newpassword1" }), 400, "Wrong password!");
  });

  it("rejects a new password of the wrong length", async () => {
    expectError(await patchSettings("cordelia", { old_password: "parleydev", new_password: "short" }), 400, "New password is too weak!");
    expectError(await patchSettings("cordelia", { old_password: "parleydev", new_password: "x".repeat(101) }), 400, "New password is too weak!");
  });

  it("changes the password", async () => {
    expectSuccess(await patchSettings("cordelia", { old_password: "parleydev", new_password: "a new passphrase" }));
    expectSuccess(await login("cordelia@zulip.com", "a new passphrase"));
    expectError(await login("cordelia@zulip.com", "parleydev"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
  });
});

describe("PATCH /settings: email change", () => {
  async function confirmationLinkSentTo(address: string): Promise<string> {
    const jobs = await t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "email").orderBy("id", "desc").execute();
    const job = jobs.map((j) => JSON.parse(j.payload)).find((payload) => payload.to === address);
    expect(job?.template).toBe("confirm_new_email");
    const link = /http:\/\/localhost:9991(\/accounts\/confirm_new_email\/\S+)/.exec(job.text);
    expect(link).not.toBeNull();
    return group(link!, 1);
  }
  const open = (path: string) => fetch(t.baseUrl + path);

  it("rejects an invalid or taken address", async () => {
    expectError(await patchSettings("polonius", { email: "not an address" }), 400, "Invalid address.");
    expectError(await patchSettings("polonius", { email: "Hamlet@zulip.com" }), 400, "Already has an account.");
  });

  it("changes nothing when the address is the current one", async () => {
    const { result: res, events } = await t.captureEvents(() => patchSettings("polonius", { email: " polonius@zulip.com " }));
    expectSuccess(res);
    expect(events).toEqual([]);
  });

  it("sends a link to the new address; opening it changes the address", async () => {
    const polonius = await t.user("polonius");
    expectSuccess(await patchSettings("polonius", { email: "polonius.new@example.com" }));
    // Nothing changes before the link is opened.
    expect((await t.user("polonius")).delivery_email).toBe("polonius@zulip.com");
    const path = await confirmationLinkSentTo("polonius.new@example.com");

    const { result: page, events } = await t.captureEvents(() => open(path));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("polonius.new@example.com");

    const me = expectSuccess(await t.get("polonius.new@example.com", "/api/v1/users/me"));
    expect(me.delivery_email).toBe("polonius.new@example.com");
    expect(me.email).toBe("polonius.new@example.com");
    const persons = events.filter((e) => e.event.type === "realm_user").map((e) => e.event.person);
    expect(persons).toEqual(
      expect.arrayContaining([
        { user_id: polonius.id, delivery_email: "polonius.new@example.com" },
        { user_id: polonius.id, new_email: "polonius.new@example.com" },
      ]),
    );
    const notices = await t.ctx.db.kysely.selectFrom("jobs").select("payload").where("kind", "=", "email").execute();
    expect(notices.map((j) => JSON.parse(j.payload)).some((p) => p.to === "polonius@zulip.com" && p.template === "notify_change_in_email")).toBe(true);

    const again = await open(path);
    expect(again.status).toBe(404);
    expect(await again.text()).toContain("expired or has already been used");
  });

  it("keeps only the newest link valid", async () => {
    expectSuccess(await patchSettings("iago", { email: "iago.first@example.com" }));
    const first = await confirmationLinkSentTo("iago.first@example.com");
    expectSuccess(await patchSettings("iago", { email: "iago.second@example.com" }));
    const second = await confirmationLinkSentTo("iago.second@example.com");
    expect((await open(first)).status).toBe(404);
    expect((await open(second)).status).toBe(200);
    expect((await t.user("iago.second@example.com")).delivery_email).toBe("iago.second@example.com");
  });

  it("answers an unknown link with a 404 page", async () => {
    const res = await open("/accounts/confirm_new_email/doesnotexist");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("does not exist");
  });

  it("refuses the link when the address was taken meanwhile", async () => {
    expectSuccess(await patchSettings("desdemona", { email: "contested@example.com" }));
    const path = await confirmationLinkSentTo("contested@example.com");
    await t.ctx.db.kysely
      .updateTable("users")
      .set({ delivery_email: "contested@example.com" })
      .where("id", "=", (await t.user("shiva")).id)
      .execute();
    const res = await open(path);
    expect(res.status).toBe(400);
    expect((await t.user("desdemona")).delivery_email).toBe("desdemona@zulip.com");
  });
});

describe("PATCH /settings: email change rate limit", () => {
  const limited = useTestServer({
    rateLimits: {
      enabled: true,
      user: { max: 1000, windowSeconds: 60 },
      ip: { max: 1000, windowSeconds: 60 },
      login: { max: 5, windowSeconds: 1800 },
      email: { max: 2, windowSeconds: 3600 },
    },
  });

  it("limits email-change requests per user", async () => {
    expectSuccess(await limited.patch("hamlet", "/api/v1/settings", { email: "h1@example.com" }));
    expectSuccess(await limited.patch("hamlet", "/api/v1/settings", { email: "h2@example.com" }));
    const res = await limited.patch("hamlet", "/api/v1/settings", { email: "h3@example.com" });
    expectError(res, 429, "API usage exceeded rate limit", "RATE_LIMIT_HIT");
    // Other settings are not limited.
    expectSuccess(await limited.patch("hamlet", "/api/v1/settings", { enter_sends: true }));
  });
});
