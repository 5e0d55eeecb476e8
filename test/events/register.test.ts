import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

/** The keys Zulip's mobile app reads from POST /register with no event_types, and their JSON types. */
const MOBILE_KEYS: Record<string, "number" | "string" | "array" | "object" | "boolean"> = {
  last_event_id: "number",
  zulip_feature_level: "number",
  zulip_version: "string",
  zulip_merge_base: "string",
  alert_words: "array",
  custom_profile_fields: "array",
  max_stream_name_length: "number",
  max_topic_length: "number",
  server_presence_ping_interval_seconds: "number",
  server_presence_offline_threshold_seconds: "number",
  muted_users: "array",
  presences: "object",
  realm_emoji: "object",
  realm_user_groups: "array",
  recent_private_conversations: "array",
  subscriptions: "array",
  streams: "array",
  unread_msgs: "object",
  user_status: "object",
  user_settings: "object",
  user_topics: "array",
  realm_wildcard_mention_policy: "number",
  realm_mandatory_topics: "boolean",
  realm_name: "string",
  realm_waiting_period_threshold: "number",
  realm_allow_message_editing: "boolean",
  realm_enable_read_receipts: "boolean",
  realm_icon_url: "string",
  realm_presence_disabled: "boolean",
  realm_default_external_accounts: "object",
  max_file_upload_size_mib: "number",
  server_emoji_data_url: "string",
  realm_users: "array",
  realm_non_active_users: "array",
  cross_realm_bots: "array",
  max_message_length: "number",
  realm_empty_topic_display_name: "string",
  realm_bots: "array",
  never_subscribed: "array",
  unsubscribed: "array",
  max_message_id: "number",
  scheduled_messages: "array",
  drafts: "array",
};

const typeOf = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);

describe("POST /register initial state", () => {
  it("has every key the mobile app needs, with its JSON type", async () => {
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", {}));
    const wrong = Object.entries(MOBILE_KEYS)
      .filter(([key, type]) => typeOf(state[key]) !== type)
      .map(([key]) => `${key}: ${typeOf(state[key])}`);
    expect(wrong).toEqual([]);
    expect(Object.keys(state.unread_msgs).sort()).toEqual(["count", "huddles", "mentions", "old_unreads_missing", "pms", "streams"]);
    expect(state).toMatchObject({ max_message_length: 10000, max_topic_length: 60, realm_name: expect.any(String) });
  });

  it("fetch_event_types limits the sections; event_types is the default for it", async () => {
    const only = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["message"] }));
    expect(
      Object.keys(only)
        .filter((k) => !["result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level", "zulip_merge_base"].includes(k))
        .sort(),
    ).toEqual(["max_message_id"]);
    const byEvents = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: ["subscription"] }));
    expect(byEvents).toHaveProperty("subscriptions");
    expect(byEvents).not.toHaveProperty("realm_users");
  });

  it("reflects changes: unread messages, a status, a deactivated user, legacy settings for old clients", async () => {
    const hamlet = (await t.user("hamlet")).id;
    const id = expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: JSON.stringify([hamlet]), content: "unread for hamlet" })).id;
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/status", { status_text: "in the castle" }));
    const prospero = (await t.user("prospero")).id;
    expectSuccess(await t.delete("iago", `/api/v1/users/${prospero}`));
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", {}));
    const othello = (await t.user("othello")).id;
    expect(state.unread_msgs.pms).toContainEqual(expect.objectContaining({ other_user_id: othello, unread_message_ids: expect.arrayContaining([id]) }));
    expect(state.recent_private_conversations[0]).toEqual({ max_message_id: id, user_ids: [othello] });
    expect(state.user_status[String(hamlet)]).toEqual({ status_text: "in the castle" });
    expect(state.realm_non_active_users.map((u: any) => u.user_id)).toContain(prospero);
    expect(state.realm_users.map((u: any) => u.user_id)).not.toContain(prospero);
    // Without user_settings_object, Zulip's legacy top-level settings are there too.
    expect(state).toHaveProperty("twenty_four_hour_time");
    const modern = expectSuccess(await t.post("hamlet", "/api/v1/register", { client_capabilities: { user_settings_object: true } }));
    expect(modern).not.toHaveProperty("twenty_four_hour_time");
    expect(modern.user_settings).toHaveProperty("twenty_four_hour_time");
    expectSuccess(await t.post("iago", `/api/v1/users/${prospero}/reactivate`));
  });

  it("serves server_emoji_data_url without credentials", async () => {
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm"] }));
    const url = new URL(state.server_emoji_data_url);
    const res = await fetch(t.baseUrl + url.pathname);
    expect(res.status).toBe(200);
    const data = await res.json();
    expect(data.code_to_names["1f44d"]).toContain("+1");
    expect(data.code_to_names["1f642"][0]).toBe("smile");
  });

  it("lists a private channel only for its subscribers and administrators", async () => {
    const names = (s: any[]) => s.map((x) => x.name);
    const hamlet = expectSuccess(await t.post("hamlet", "/api/v1/register", {}));
    const cordelia = expectSuccess(await t.post("cordelia", "/api/v1/register", {}));
    const iago = expectSuccess(await t.post("iago", "/api/v1/register", {}));
    expect(names(hamlet.subscriptions)).toContain("core team");
    expect([...names(cordelia.subscriptions), ...names(cordelia.never_subscribed), ...names(cordelia.streams)]).not.toContain("core team");
    expect(names(iago.streams)).toContain("core team");
  });
});

/**
 * The keys of Zulip 10.2's POST /register response by the fetch_event_types value that asks for
 * them, read from the reference OpenAPI ("Present if `x` is present in `fetch_event_types`") by
 * scripts/generate-test-fixtures.mjs into test/fixtures/register-sections.json.
 * Keys described otherwise are realm settings and server constants of the `realm` section, but
 * for the few named here.
 */
const REGISTER_SECTIONS_FILE = fileURLToPath(new URL("../fixtures/register-sections.json", import.meta.url));

function referenceKeysByEventType(): Map<string, string[]> {
  const sections = JSON.parse(fs.readFileSync(REGISTER_SECTIONS_FILE, "utf8")) as Record<string, string[]>;
  const always = ["result", "msg", "ignored_parameters_unsupported", "queue_id", "last_event_id", "zulip_feature_level", "zulip_version", "zulip_merge_base"];
  // Present only for demo organizations; and a copy of a personal setting the reference lists by mistake.
  const conditional = ["demo_organization_scheduled_deletion_date", "receives_typing_notifications"];
  const byType = new Map<string, string[]>();
  const add = (type: string, key: string) => byType.set(type, [...(byType.get(type) ?? []), key]);
  for (const [key, types] of Object.entries(sections)) {
    if (always.includes(key) || conditional.includes(key)) continue;
    if (types.length > 0) for (const type of types) add(type, key);
    else if (key === "drafts") add("drafts", key);
    else if (key === "unread_msgs") add("message,update_message_flags", key);
    else if (/^(realm|server)_/.test(key)) add("realm", key);
    else throw new Error(`no section known for ${key}`);
  }
  return byType;
}

describe("POST /register sections (Zulip's fetch_initial_state_data)", () => {
  const byType = referenceKeysByEventType();

  it("has, for each fetch_event_types value, every key Zulip 10.2 returns", async () => {
    const missing: string[] = [];
    for (const [types, keys] of byType) {
      const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: types.split(",") }));
      for (const key of keys) if (!(key in state)) missing.push(`${types}: ${key}`);
    }
    expect(missing).toEqual([]);
    expect([...byType.keys()]).toEqual(
      expect.arrayContaining(["realm", "muted_topics", "stop_words", "realm_user_settings_defaults", "update_display_settings"]),
    );
  });

  it("has every key with no fetch_event_types but the legacy settings, which user_settings_object clients do not get", async () => {
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { client_capabilities: { user_settings_object: true } }));
    const legacy = new Set([...byType.get("update_display_settings")!, ...byType.get("update_global_notifications")!]);
    const missing = [...byType.values()].flat().filter((key) => !legacy.has(key) && !(key in state));
    expect(missing).toEqual([]);
    // realm_name_in_email_notifications_policy is also the name of an organization setting.
    expect([...legacy].filter((key) => key in state)).toEqual(["realm_name_in_email_notifications_policy"]);
  });

  it("gives realm_default_stream_groups empty to everyone: the 10.2 reference has no endpoint that creates one", async () => {
    for (const who of ["hamlet", "iago", "polonius"]) {
      const state = expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: ["default_stream_groups"] }));
      expect(state.realm_default_stream_groups).toEqual([]);
    }
  });

  it("gives zulip-terminal's muted_topics unless the client asks for user_topic", async () => {
    const denmark = await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", "Denmark").executeTakeFirstOrThrow();
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: denmark.id, topic: "muted here", visibility_policy: 1 }));
    const terminal = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["muted_topics", "message", "realm"] }));
    expect(terminal.muted_topics).toEqual([["Denmark", "muted here", expect.any(Number)]]);
    expect(terminal.realm_allow_edit_history).toBe(true);
    const modern = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["muted_topics", "user_topic"] }));
    expect(modern).not.toHaveProperty("muted_topics");
    expect(modern.user_topics).toContainEqual(expect.objectContaining({ topic_name: "muted here", visibility_policy: 1 }));
  });
});

describe("POST /register: the user's permission flags follow the organization's group settings", () => {
  const FLAGS = [
    "can_create_streams",
    "can_create_public_streams",
    "can_create_private_streams",
    "can_create_web_public_streams",
    "can_subscribe_other_users",
    "can_invite_others_to_realm",
  ];
  const flags = async (who: string) => {
    const state = expectSuccess(await t.post(who, "/api/v1/register", { fetch_event_types: ["realm_user"] }));
    return Object.fromEntries(FLAGS.map((name) => [name, state[name]]));
  };
  const setting = async (name: string, group: string) =>
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { [name]: { new: await t.systemGroupId(group) } }));

  it("with Zulip's defaults: members may, guests may not; web-public channels need spectator access and owners", async () => {
    const member = {
      can_create_streams: true,
      can_create_public_streams: true,
      can_create_private_streams: true,
      can_create_web_public_streams: false,
      can_subscribe_other_users: true,
      can_invite_others_to_realm: true,
    };
    expect(await flags("hamlet")).toEqual(member);
    expect(await flags("polonius")).toEqual(Object.fromEntries(FLAGS.map((name) => [name, false])));
    expect(await flags("desdemona")).toEqual(member);
    expectSuccess(await t.patch("iago", "/api/v1/realm", { enable_spectator_access: true }));
    expect((await flags("desdemona")).can_create_web_public_streams).toBe(true);
    expect((await flags("iago")).can_create_web_public_streams).toBe(false);
    expectSuccess(await t.patch("iago", "/api/v1/realm", { enable_spectator_access: false }));
  });

  it("after the settings change: each flag reads its own group setting", async () => {
    await setting("can_create_public_channel_group", "role:administrators");
    await setting("can_add_subscribers_group", "role:moderators");
    await setting("can_invite_users_group", "role:nobody");
    expect(await flags("hamlet")).toMatchObject({
      can_create_public_streams: false,
      can_create_private_streams: true,
      can_create_streams: true,
      can_subscribe_other_users: false,
      can_invite_others_to_realm: false,
    });
    expect(await flags("iago")).toMatchObject({ can_create_public_streams: true, can_subscribe_other_users: true, can_invite_others_to_realm: false });
    await setting("can_create_private_channel_group", "role:administrators");
    expect(await flags("hamlet")).toMatchObject({ can_create_streams: false, can_create_private_streams: false });
    // Back to Zulip's defaults for the tests that follow.
    for (const name of ["can_create_public_channel_group", "can_create_private_channel_group", "can_add_subscribers_group", "can_invite_users_group"])
      await setting(name, "role:members");
    expect((await flags("hamlet")).can_invite_others_to_realm).toBe(true);
  });
});
