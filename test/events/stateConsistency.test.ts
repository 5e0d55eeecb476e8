import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyAttachmentEvents, ClientState, MODERN_CAPABILITIES, stateDifferences, type State } from "../support/stateReducer.js";
import { referenceEventTypes } from "../support/openapi.js";
import { channelId, uploadFile } from "../support/factories.js";
import { seedUsers } from "../support/seed.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

// Zulip's test_events idea: for every change a client can learn about, the initial state of
// POST /register with the change's events applied equals a fresh POST /register afterwards —
// for several observers at once (a member, an administrator, a member outside the private
// channel, a guest), so an event that reaches someone it should not, or misses someone, shows.

const t = useTestServer();
const OBSERVERS = ["hamlet", "iago", "cordelia", "polonius"] as const;
type Observer = (typeof OBSERVERS)[number];
type Who = (typeof OBSERVERS)[number] | "othello" | "desdemona" | "prospero";

const appliedTypes = new Set<string>();

interface Registration {
  includeSubscribers: boolean;
}

async function register(who: string, options: Registration): Promise<State> {
  return expectSuccess(
    await t.post(who, "/api/v1/register", {
      client_capabilities: MODERN_CAPABILITIES,
      include_subscribers: options.includeSubscribers,
      apply_markdown: true,
      client_gravatar: false,
      slim_presence: true,
    }),
  );
}

/**
 * Registers every observer, runs `change`, applies each observer's events to its state and
 * expects the result to equal a fresh registration. Returns the events each observer got.
 */
async function expectConsistent(change: () => Promise<unknown>, options: Partial<Registration> = {}): Promise<Record<Observer, any[]>> {
  const registration = { includeSubscribers: true, ...options };
  const before = new Map<string, State>();
  for (const who of OBSERVERS) before.set(who, await register(who, registration));
  await change();
  const received = {} as Record<Observer, any[]>; // the loop below fills in every observer
  const problems: string[] = [];
  for (const who of OBSERVERS) {
    const initial = before.get(who)!;
    const { events } = expectSuccess(await t.get(who, "/api/v1/events", { queue_id: initial.queue_id, last_event_id: -1, dont_block: true }));
    received[who] = events;
    for (const e of events) appliedTypes.add(e.type);
    const applied = new ClientState(initial, (await t.user(who)).id, registration).apply(events);
    const fresh = await register(who, registration);
    for (const line of stateDifferences(fresh, applied)) problems.push(`${who}: ${line}`);
    expectSuccess(await t.delete(who, "/api/v1/events", { queue_id: initial.queue_id }));
    expectSuccess(await t.delete(who, "/api/v1/events", { queue_id: fresh.queue_id }));
  }
  expect(problems).toEqual([]);
  return received;
}

const post = (who: Who, url: string, params: Record<string, unknown> = {}) => t.post(who, `/api/v1${url}`, params as never).then((r) => expectSuccess(r));
const patch = (who: Who, url: string, params: Record<string, unknown> = {}) => t.patch(who, `/api/v1${url}`, params as never).then((r) => expectSuccess(r));
const del = (who: Who, url: string, params: Record<string, unknown> = {}) => t.delete(who, `/api/v1${url}`, params as never).then((r) => expectSuccess(r));
const send = (who: Who, to: string, topic: string, content: string) =>
  post(who, "/messages", { type: "stream", to, topic, content }).then((b) => b.id as number);
const sendDirect = (who: Who, to: number[], content: string) =>
  post(who, "/messages", { type: "direct", to: JSON.stringify(to), content }).then((b) => b.id as number);

describe("state consistency: messages and unread state", () => {
  it("message (channel, mention, wildcard mention, direct, group direct)", async () => {
    const hamlet = seedUsers.hamlet.id;
    const cordelia = seedUsers.cordelia.id;
    await expectConsistent(async () => {
      await send("othello", "Denmark", "consistency", "hello @**King Hamlet**");
      await send("othello", "Denmark", "consistency", "hello @**all**");
      await send("iago", "core team", "secret", "private channel");
      await sendDirect("othello", [hamlet], "a direct message");
      await sendDirect("othello", [hamlet, cordelia], "a group direct message");
      await sendDirect("hamlet", [hamlet], "a note to self");
    });
  });

  it("update_message_flags (read, unread, starred)", async () => {
    const hamlet = seedUsers.hamlet.id;
    const a = await send("othello", "Denmark", "flags", "one");
    const b = await sendDirect("othello", [hamlet], "two");
    await expectConsistent(async () => {
      await post("hamlet", "/messages/flags", { messages: JSON.stringify([a, b]), op: "add", flag: "read" });
      await post("hamlet", "/messages/flags", { messages: JSON.stringify([a]), op: "remove", flag: "read" });
      await post("hamlet", "/messages/flags", { messages: JSON.stringify([b]), op: "add", flag: "starred" });
    });
    await expectConsistent(() => post("hamlet", "/mark_all_as_read"));
  });

  it("update_message (content edit, topic move) and delete_message", async () => {
    const a = await send("othello", "Denmark", "to move", "first");
    await send("othello", "Denmark", "to move", "second");
    await expectConsistent(async () => {
      await patch("othello", `/messages/${a}`, { content: "first, edited" });
      await patch("iago", `/messages/${a}`, { topic: "moved", propagate_mode: "change_all" });
    });
    const c = await send("othello", "Denmark", "to delete", "doomed");
    await expectConsistent(() => del("iago", `/messages/${c}`));
  });
});

describe("state consistency: channels and subscriptions", () => {
  it("subscription add/remove/peer_add/peer_remove and stream create (public and private)", async () => {
    await expectConsistent(async () => {
      await post("iago", "/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "harness public" }]),
        principals: JSON.stringify([seedUsers.hamlet.id]),
      });
      await post("iago", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "harness private" }]), invite_only: true });
      await post("cordelia", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Verona" }]) });
      await del("hamlet", "/users/me/subscriptions", { subscriptions: JSON.stringify(["Denmark"]) });
    });
    await expectConsistent(() => post("hamlet", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Denmark" }]) }), {
      includeSubscribers: false,
    });
  });

  it("subscription update (is_muted/in_home_view, color, pin_to_top)", async () => {
    const denmark = await channelId(t, "Denmark");
    await send("othello", "Denmark", "muting", "an unread message in a channel about to be muted");
    await expectConsistent(() =>
      post("hamlet", "/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([
          { stream_id: denmark, property: "is_muted", value: true },
          { stream_id: denmark, property: "color", value: "#abcdef" },
          { stream_id: denmark, property: "pin_to_top", value: true },
        ]),
      }),
    );
    await expectConsistent(() =>
      post("hamlet", "/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([{ stream_id: denmark, property: "in_home_view", value: true }]),
      }),
    );
  });

  it("stream update (name, description, privacy) and archiving", async () => {
    await post("iago", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "harness changes" }]) });
    const id = await channelId(t, "harness changes");
    await expectConsistent(async () => {
      await patch("iago", `/streams/${id}`, { new_name: "harness renamed", description: "A **bold** description" });
      await patch("iago", `/streams/${id}`, { is_private: true });
    });
    await expectConsistent(() => del("iago", `/streams/${id}`));
    await expectConsistent(() => patch("iago", `/streams/${id}`, { is_archived: false }));
  });

  it("default_streams (made default, created as default, no longer default)", async () => {
    const verona = await channelId(t, "Verona");
    await expectConsistent(async () => {
      await patch("iago", `/streams/${verona}`, { is_default_stream: true });
      await post("iago", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "harness default" }]), is_default_stream: true });
      await patch("iago", `/streams/${verona}`, { is_default_stream: false });
    });
  });
});

describe("state consistency: users and settings", () => {
  it("user_settings, user_status, user_topic", async () => {
    const verona = await channelId(t, "Verona");
    await send("othello", "Verona", "to mute", "an unread message in a topic about to be muted");
    await expectConsistent(async () => {
      await patch("hamlet", "/settings", { twenty_four_hour_time: true, default_language: "de" });
      await post("hamlet", "/users/me/status", { status_text: "on a boat", emoji_name: "boat" });
      await post("othello", "/users/me/status", { away: true });
      await post("hamlet", "/user_topics", { stream_id: verona, topic: "to mute", visibility_policy: 1 });
      await post("hamlet", "/user_topics", { stream_id: verona, topic: "to follow", visibility_policy: 3 });
    });
    await expectConsistent(async () => {
      await post("hamlet", "/users/me/status", { status_text: "", emoji_name: "" });
      await post("hamlet", "/user_topics", { stream_id: verona, topic: "to mute", visibility_policy: 0 });
    });
  });

  it("realm_user update (name, role, profile data) and deactivation/reactivation", async () => {
    const prospero = seedUsers.prospero.id;
    await expectConsistent(async () => {
      await patch("iago", `/users/${prospero}`, { full_name: "Prospero, Duke of Milan", role: 300 });
      await patch("iago", `/users/${prospero}`, { role: 400 });
    });
    await expectConsistent(() => del("iago", `/users/${prospero}`));
    await expectConsistent(() => post("iago", `/users/${prospero}/reactivate`));
  });

  it("realm_user update (avatar uploaded, deleted) and realm update_dict (icon)", async () => {
    const image = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
    const uploadImage = async (who: string, path: string) => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(image)], { type: "image/png" }), "dot.png");
      const res = await fetch(`${t.baseUrl}/api/v1${path}`, { method: "POST", headers: { Authorization: await t.authHeader(who) }, body: form });
      expect(res.status).toBe(200);
    };
    await expectConsistent(async () => {
      await uploadImage("hamlet", "/users/me/avatar");
      await uploadImage("iago", "/realm/icon");
    });
    await expectConsistent(async () => {
      await del("hamlet", "/users/me/avatar");
      await del("iago", "/realm/icon");
    });
  });

  it("realm_user add, realm_emoji, custom_profile_fields", async () => {
    // No endpoint grants can_create_users (Zulip: a management command); set it as that would.
    await t.ctx.db.kysely.updateTable("users").set({ can_create_users: 1 }).where("id", "=", seedUsers.desdemona.id).execute();
    await expectConsistent(async () => {
      await post("desdemona", "/users", { email: "newcomer@zulip.com", password: "a long password", full_name: "New Comer" });
      await post("iago", "/realm/profile_fields", { name: "Harness field", field_type: 1, hint: "" });
    });
  });
});

describe("state consistency: custom emoji", () => {
  const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

  it("realm_emoji update (add, deactivate)", async () => {
    const upload = async () => {
      const form = new FormData();
      form.append("f0", new Blob([new Uint8Array(PNG)], { type: "image/png" }), "harness.png");
      const res = await fetch(`${t.baseUrl}/api/v1/realm/emoji/harness_emoji`, {
        method: "POST",
        headers: { Authorization: await t.authHeader("iago") },
        body: form,
      });
      expect(res.status).toBe(200);
    };
    await expectConsistent(upload);
    await expectConsistent(() => del("iago", "/realm/emoji/harness_emoji"));
  });
});

describe("state consistency: user groups", () => {
  it("user_group add, update, add_members, remove_members, add_subgroups, deactivation", async () => {
    const [hamlet, cordelia] = [seedUsers.hamlet.id, seedUsers.cordelia.id];
    let id = 0;
    let sub = 0;
    await expectConsistent(async () => {
      id = (await post("iago", "/user_groups/create", { name: "harness group", description: "first", members: JSON.stringify([hamlet]) })).group_id;
      sub = (await post("iago", "/user_groups/create", { name: "harness subgroup", description: "", members: JSON.stringify([cordelia]) })).group_id;
    });
    await expectConsistent(async () => {
      await patch("iago", `/user_groups/${id}`, { description: "second" });
      await post("iago", `/user_groups/${id}/members`, { add: JSON.stringify([cordelia]), delete: JSON.stringify([hamlet]) });
      await post("iago", `/user_groups/${id}/subgroups`, { add: JSON.stringify([sub]) });
    });
    await expectConsistent(() => post("iago", `/user_groups/${id}/subgroups`, { delete: JSON.stringify([sub]) }));
    await expectConsistent(() => post("iago", `/user_groups/${id}/deactivate`));
  });
});

describe("state consistency: presence", () => {
  it("presence (a user comes online)", async () => {
    await expectConsistent(() => post("prospero", "/users/me/presence", { status: "active" }));
  });
});

describe("state consistency: scheduled messages", () => {
  it("scheduled_messages add, update, remove", async () => {
    const at = Math.floor(Date.now() / 1000) + 3600;
    let id = 0;
    await expectConsistent(async () => {
      id = (
        await post("hamlet", "/scheduled_messages", {
          type: "stream",
          to: await channelId(t, "Verona"),
          topic: "later",
          content: "in an hour",
          scheduled_delivery_timestamp: at,
        })
      ).scheduled_message_id;
    });
    await expectConsistent(() => patch("hamlet", `/scheduled_messages/${id}`, { content: "in two hours", scheduled_delivery_timestamp: at + 3600 }));
    await expectConsistent(() => del("hamlet", `/scheduled_messages/${id}`));
  });
});

describe("state consistency: bots", () => {
  it("realm_bot add, update (name, defaults, service, key, owner), delete; realm_user for bots", async () => {
    let botId = 0;
    let hookId = 0;
    await expectConsistent(async () => {
      botId = (await post("hamlet", "/bots", { full_name: "Consistent Bot", short_name: "consistent" })).user_id;
      hookId = (
        await post("hamlet", "/bots", {
          full_name: "Consistent Hook",
          short_name: "consistenthook",
          bot_type: 3,
          payload_url: JSON.stringify("http://127.0.0.1:9/x"),
        })
      ).user_id;
    });
    await expectConsistent(async () => {
      await patch("hamlet", `/bots/${botId}`, { full_name: "Renamed Bot", default_sending_stream: "Verona", default_all_public_streams: true });
      await patch("hamlet", `/bots/${hookId}`, { service_payload_url: JSON.stringify("http://127.0.0.1:9/y"), service_interface: 2 });
      await post("hamlet", `/bots/${botId}/api_key/regenerate`);
    });
    const cordelia = seedUsers.cordelia.id;
    await expectConsistent(() => patch("iago", `/bots/${botId}`, { bot_owner_id: cordelia }));
    await expectConsistent(() => del("iago", `/bots/${hookId}`));
    await expectConsistent(() => post("iago", `/users/${hookId}/reactivate`));
  });
});

describe("state consistency: organization settings", () => {
  it("realm update (plain settings, name, description) and update_dict (group settings)", async () => {
    const moderators = expectSuccess(await t.get("iago", "/api/v1/user_groups")).user_groups.find((g: any) => g.name === "role:moderators").id;
    const members = expectSuccess(await t.get("iago", "/api/v1/user_groups")).user_groups.find((g: any) => g.name === "role:members").id;
    await expectConsistent(() =>
      patch("iago", "/realm", {
        name: "Consistency",
        description: "A *new* description",
        mandatory_topics: true,
        message_content_edit_limit_seconds: JSON.stringify("unlimited"),
      }),
    );
    await expectConsistent(() => patch("iago", "/realm", { can_add_custom_emoji_group: { new: { direct_members: [], direct_subgroups: [] } } }));
    await expectConsistent(async () => {
      await patch("iago", "/realm", { can_add_custom_emoji_group: { new: { direct_members: [seedUsers.hamlet.id], direct_subgroups: [moderators] } } });
      await patch("iago", "/realm", { can_mention_many_users_group: { new: members }, mandatory_topics: false });
    });
  });
});

describe("state consistency: attachments (GET /attachments, which POST /register does not carry)", () => {
  const upload = (name: string) => uploadFile(t, "hamlet", name, `contents of ${name}`);

  it("attachment add, update (linked, unlinked), remove", async () => {
    const initial = await register("hamlet", { includeSubscribers: false });
    const before = expectSuccess(await t.get("hamlet", "/api/v1/attachments"));
    const kept = await upload("kept.txt");
    const dropped = await upload("dropped.txt");
    const first = await send("hamlet", "Verona", "files", `[kept](${kept}) [dropped](${dropped})`);
    await send("hamlet", "Verona", "files", `[kept again](${kept})`);
    await patch("hamlet", `/messages/${first}`, { content: `only [kept](${kept})` });
    await del("iago", `/messages/${first}`);
    const listing = expectSuccess(await t.get("hamlet", "/api/v1/attachments"));
    await del("hamlet", `/attachments/${listing.attachments.find((a: any) => a.name === "dropped.txt").id}`);
    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: initial.queue_id, last_event_id: -1, dont_block: true }));
    for (const e of events) appliedTypes.add(e.type);
    expect(events.filter((e: any) => e.type === "attachment").map((e: any) => e.op)).toEqual([
      "add",
      "add",
      "update",
      "update",
      "update",
      "update",
      "update",
      "remove",
    ]);
    const fresh = expectSuccess(await t.get("hamlet", "/api/v1/attachments"));
    expect(applyAttachmentEvents(before, events)).toEqual({ attachments: fresh.attachments, upload_space_used: fresh.upload_space_used });
    expectSuccess(await t.delete("hamlet", "/api/v1/events", { queue_id: initial.queue_id }));
  });
});

describe("state consistency: drafts and saved snippets", () => {
  it("drafts (add, update, remove) and saved_snippets (add, update, remove)", async () => {
    const denmark = await channelId(t, "Denmark");
    await expectConsistent(async () => {
      const { ids } = await post("hamlet", "/drafts", {
        drafts: JSON.stringify([
          { type: "stream", to: [denmark], topic: "t", content: "one", timestamp: 1_700_000_000 },
          { type: "", to: [], topic: "", content: "two", timestamp: 1_700_000_050 },
        ]),
      });
      await patch("hamlet", `/drafts/${ids[0]}`, {
        draft: JSON.stringify({ type: "stream", to: [denmark], topic: "t", content: "one, later", timestamp: 1_700_000_100 }),
      });
      await del("hamlet", `/drafts/${ids[1]}`);
      const snippet = (await post("hamlet", "/saved_snippets", { title: "Hi", content: "Hello there" })).saved_snippet_id;
      await post("hamlet", "/saved_snippets", { title: "Bye", content: "Goodbye" });
      await patch("hamlet", `/saved_snippets/${snippet}`, { title: "Hello" });
      await del("hamlet", `/saved_snippets/${snippet}`);
    });
  });
});

describe("state consistency: muted users", () => {
  it("muted_users and the read flags muting sets", async () => {
    const othello = seedUsers.othello.id;
    await send("othello", "Denmark", "muting", "unread until muted");
    await expectConsistent(async () => {
      await post("hamlet", `/users/me/muted_users/${othello}`);
      await send("othello", "Denmark", "muting", "arrives read for hamlet");
      await del("hamlet", `/users/me/muted_users/${othello}`);
    });
  });
});

describe("state consistency: alert words", () => {
  it("alert_words", async () => {
    await expectConsistent(async () => {
      await post("hamlet", "/users/me/alert_words", { alert_words: JSON.stringify(["consistency", "words"]) });
      await del("hamlet", "/users/me/alert_words", { alert_words: JSON.stringify(["words"]) });
    });
  });
});

describe("state consistency: linkifiers and code playgrounds", () => {
  it("realm_linkifiers", async () => {
    await expectConsistent(async () => {
      const first = (await post("iago", "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/issues/{id}" })).id;
      const second = (await post("iago", "/realm/filters", { pattern: "PR(?P<id>[0-9]+)", url_template: "https://example.com/pulls/{id}" })).id;
      await patch("iago", `/realm/filters/${first}`, { pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/tickets/{id}" });
      await patch("iago", "/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([second, first]) });
      await del("iago", `/realm/filters/${second}`);
    });
  });

  it("realm_playgrounds", async () => {
    await expectConsistent(async () => {
      const id = (
        await post("iago", "/realm/playgrounds", { name: "Python", pygments_language: "Python", url_template: "https://python.example.com/?code={code}" })
      ).id;
      await post("iago", "/realm/playgrounds", { name: "Rust", pygments_language: "Rust", url_template: "https://play.example.com/{?code}" });
      await del("iago", `/realm/playgrounds/${id}`);
    });
  });
});

describe("state consistency: default channels", () => {
  it("default_streams", async () => {
    const verona = await channelId(t, "Verona");
    const denmark = await channelId(t, "Denmark");
    const received = await expectConsistent(async () => {
      await post("iago", "/default_streams", { stream_id: verona });
      await del("iago", "/default_streams", { stream_id: denmark });
      await patch("iago", `/streams/${denmark}`, { is_default_stream: true });
    });
    // Guests do not learn of default channels.
    expect(received.polonius.filter((e) => e.type === "default_streams")).toEqual([]);
  });
});

describe("state consistency: defaults for new users", () => {
  it("realm_user_settings_defaults", async () => {
    await expectConsistent(async () => {
      await patch("iago", "/realm/user_settings_defaults", { twenty_four_hour_time: true, web_home_view: "all_messages" });
      await patch("iago", "/realm/user_settings_defaults", { twenty_four_hour_time: false });
    });
  });
});

describe("state consistency: data exports", () => {
  it("realm_export (requested, completed with the Notification Bot's notice, deleted)", async () => {
    const received = await expectConsistent(async () => {
      const id = (await post("iago", "/export/realm", { export_type: 1 })).id;
      await t.drainJobs();
      await del("iago", `/export/realm/${id}`);
      await t.drainJobs();
    });
    expect(received.iago.filter((e) => e.type === "realm_export")).toHaveLength(3);
    expect(received.hamlet.filter((e) => e.type === "realm_export")).toEqual([]);
  });
});

describe("state consistency: coverage", () => {
  it("every event type the server emits has a consistency test above", () => {
    const emitted = emittedEventTypes();
    // Event types that change nothing POST /register returns, or that the modern client this harness
    // registers as never gets (every event is still checked against the reference schema, in its
    // modern and legacy forms, by useTestServer).
    const exempt: Record<string, string> = {
      typing: "typing notices are transient: POST /register has no typing state",
      typing_edit_message: "typing notices are transient: POST /register has no typing state",
      reaction: "reactions live on messages, which POST /register does not return",
      submessage: "submessages (widgets) live on messages, which POST /register does not return",
      update_display_settings: "legacy form of user_settings, only for clients without user_settings_object",
      update_global_notifications: "legacy form of user_settings, only for clients without user_settings_object",
      invites_changed: "carries no data: it tells clients to fetch GET /invites again, and POST /register has no invitation state",
    };
    const missing = [...emitted].filter((type) => !appliedTypes.has(type) && !(type in exempt));
    expect(missing).toEqual([]);
  });
});

/**
 * Event types the server can emit: Zulip event types (from the OpenAPI's GET /events schema)
 * named as `type: "x"` in src/actions, where every event is published.
 */
function emittedEventTypes(): Set<string> {
  const zulipTypes = referenceEventTypes();
  const root = path.resolve(import.meta.dirname, "../../src/actions");
  const types = new Set<string>();
  for (const name of fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))) {
    const text = fs.readFileSync(path.join(root, name), "utf8");
    // (An object with `settings` is a permission objection, not an event.)
    for (const m of text.matchAll(/type: "([a-z_]+)"(?!, settings)/g)) if (zulipTypes.has(at(m, 1))) types.add(at(m, 1));
  }
  return types;
}
