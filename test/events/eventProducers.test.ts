import path from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { MODERN_CAPABILITIES } from "../support/stateReducer.js";
import { PNG } from "../support/factories.js";
import { seedUsers } from "../support/seed.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Every member of the ServerEvent union (src/contract/events.ts), as "type" or "type:op", with the
 * endpoint that produces it, triggered through HTTP: the observer's queue must get it. Members no
 * endpoint produces yet are listed with the reason. A new union member fails the listing test
 * until it is added here.
 */

const t = useTestServer();
type Who = "hamlet" | "iago" | "othello" | "cordelia" | "prospero" | "desdemona";

const post = (who: Who, url: string, params: Record<string, unknown> = {}) => t.post(who, `/api/v1${url}`, params as never).then((r) => expectSuccess(r));
const patch = (who: Who, url: string, params: Record<string, unknown> = {}) => t.patch(who, `/api/v1${url}`, params as never).then((r) => expectSuccess(r));
const del = (who: Who, url: string, params: Record<string, unknown> = {}) => t.delete(who, `/api/v1${url}`, params as never).then((r) => expectSuccess(r));
const send = (who: Who, to: string, topic: string, content: string) =>
  post(who, "/messages", { type: "stream", to, topic, content }).then((b) => b.id as number);
const streamId = async (name: string) => expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: name })).stream_id as number;
const json = JSON.stringify;

async function upload(who: Who, url: string, field: string, name: string, type: string, body: Buffer): Promise<Record<string, unknown>> {
  return expectSuccess(await t.upload(who, `/api/v1${url}`, [{ field, data: body, type, filename: name }]));
}

interface Producer {
  /** The endpoint (or endpoints) that produce it. */
  endpoint: string;
  /** Whose queue should get it (default iago, an administrator). */
  observer?: Who;
  /** Capabilities differing from the modern ones (legacy forms of events). */
  capabilities?: Partial<Record<keyof typeof MODERN_CAPABILITIES, boolean>>;
  /** Setup whose events do not count. */
  before?: () => Promise<void>;
  trigger: () => Promise<unknown>;
}
interface NotProduced {
  notProduced: string;
}

let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

async function newGroup(): Promise<number> {
  return (await post("iago", "/user_groups/create", { name: unique("producer group"), description: "", members: json([seedUsers.hamlet.id]) }))
    .group_id as number;
}
async function newStream(): Promise<number> {
  const name = unique("producer channel");
  await post("iago", "/users/me/subscriptions", { subscriptions: json([{ name }]) });
  return streamId(name);
}

/** Sets a boolean setting both ways (hamlet's own, or the realm's defaults as iago): one of them changes it. */
async function toggle(url: string, setting: string): Promise<void> {
  const who = url === "/settings" ? "hamlet" : "iago";
  await patch(who, url, { [setting]: true });
  await patch(who, url, { [setting]: false });
}

// Ids the triggers share with their setup.
let messageId = 0;
let id = 0;
let other = 0;

const PRODUCERS: Record<string, Producer | NotProduced> = {
  message: { endpoint: "POST /messages", trigger: () => send("othello", "Denmark", "producers", "hello") },
  update_message: {
    endpoint: "PATCH /messages/{message_id}",
    before: async () => void (messageId = await send("iago", "Denmark", "producers", "to edit")),
    trigger: () => patch("iago", `/messages/${messageId}`, { content: "edited" }),
  },
  delete_message: {
    endpoint: "DELETE /messages/{message_id}",
    before: async () => void (messageId = await send("iago", "Denmark", "producers", "to delete")),
    trigger: () => del("iago", `/messages/${messageId}`),
  },
  "update_message_flags:add": {
    endpoint: "POST /messages/flags",
    before: async () => void (messageId = await send("othello", "Denmark", "producers", "to star")),
    trigger: () => post("iago", "/messages/flags", { messages: json([messageId]), op: "add", flag: "starred" }),
  },
  "update_message_flags:remove": {
    endpoint: "POST /messages/flags",
    before: async () => {
      messageId = await send("othello", "Denmark", "producers", "to unstar");
      await post("iago", "/messages/flags", { messages: json([messageId]), op: "add", flag: "starred" });
    },
    trigger: () => post("iago", "/messages/flags", { messages: json([messageId]), op: "remove", flag: "starred" }),
  },
  "reaction:add": {
    endpoint: "POST /messages/{message_id}/reactions",
    before: async () => void (messageId = await send("othello", "Denmark", "producers", "to react to")),
    trigger: () => post("iago", `/messages/${messageId}/reactions`, { emoji_name: "smile" }),
  },
  "reaction:remove": {
    endpoint: "DELETE /messages/{message_id}/reactions",
    before: async () => {
      messageId = await send("othello", "Denmark", "producers", "to unreact to");
      await post("iago", `/messages/${messageId}/reactions`, { emoji_name: "smile" });
    },
    trigger: () => del("iago", `/messages/${messageId}/reactions`, { emoji_name: "smile" }),
  },
  "typing:start": {
    endpoint: "POST /typing",
    trigger: async () => post("othello", "/typing", { op: "start", type: "direct", to: json([seedUsers.iago.id]) }),
  },
  "typing:stop": {
    endpoint: "POST /typing",
    trigger: async () => post("othello", "/typing", { op: "stop", type: "stream", stream_id: await streamId("Denmark"), topic: "producers" }),
  },
  "typing_edit_message:start": {
    endpoint: "POST /messages/{message_id}/typing",
    before: async () => void (messageId = await send("othello", "Denmark", "producers", "being edited")),
    trigger: () => post("othello", `/messages/${messageId}/typing`, { op: "start" }),
  },
  "typing_edit_message:stop": {
    endpoint: "POST /messages/{message_id}/typing",
    before: async () => void (messageId = await send("othello", "Denmark", "producers", "edited")),
    trigger: () => post("othello", `/messages/${messageId}/typing`, { op: "stop" }),
  },
  submessage: {
    endpoint: "POST /submessage",
    before: async () => void (messageId = await send("iago", "Denmark", "producers", "/poll Which?")),
    trigger: () => post("iago", "/submessage", { message_id: messageId, msg_type: "widget", content: json({ type: "vote", key: "canned,0", vote: 1 }) }),
  },
  "stream:create": {
    endpoint: "POST /users/me/subscriptions (new channel)",
    trigger: () => post("iago", "/users/me/subscriptions", { subscriptions: json([{ name: unique("created") }]) }),
  },
  "stream:update": {
    endpoint: "PATCH /streams/{stream_id}",
    before: async () => void (id = await newStream()),
    trigger: () => patch("iago", `/streams/${id}`, { description: "changed" }),
  },
  "stream:delete": {
    endpoint: "DELETE /streams/{stream_id} (archiving, for clients without archived_channels)",
    capabilities: { archived_channels: false },
    before: async () => void (id = await newStream()),
    trigger: () => del("iago", `/streams/${id}`),
  },
  "subscription:add": {
    endpoint: "POST /users/me/subscriptions",
    observer: "hamlet",
    trigger: () => post("hamlet", "/users/me/subscriptions", { subscriptions: json([{ name: "Verona" }, { name: unique("joined") }]) }),
  },
  "subscription:remove": {
    endpoint: "DELETE /users/me/subscriptions",
    before: async () => void (await post("iago", "/users/me/subscriptions", { subscriptions: json([{ name: "to leave" }]) })),
    trigger: () => del("iago", "/users/me/subscriptions", { subscriptions: json(["to leave"]) }),
  },
  "subscription:update": {
    endpoint: "POST /users/me/subscriptions/properties",
    trigger: async () =>
      post("iago", "/users/me/subscriptions/properties", {
        subscription_data: json([{ stream_id: await streamId("Denmark"), property: "color", value: "#abcdef" }]),
      }),
  },
  "subscription:peer_add": {
    endpoint: "POST /users/me/subscriptions (another user)",
    before: async () => void (id = await newStream()),
    trigger: async () =>
      post("iago", "/users/me/subscriptions", {
        subscriptions: json([{ name: (await t.get("iago", `/api/v1/streams/${id}`)).body.stream.name }]),
        principals: json([seedUsers.othello.id]),
      }),
  },
  "subscription:peer_remove": {
    endpoint: "DELETE /users/me/subscriptions (another user)",
    before: async () => void (id = await newStream()),
    trigger: async () => {
      const name = (await t.get("iago", `/api/v1/streams/${id}`)).body.stream.name;
      await post("iago", "/users/me/subscriptions", { subscriptions: json([{ name }]), principals: json([seedUsers.othello.id]) });
      await del("iago", "/users/me/subscriptions", { subscriptions: json([name]), principals: json([seedUsers.othello.id]) });
    },
  },
  default_streams: {
    endpoint: "POST /default_streams",
    before: async () => void (id = await newStream()),
    trigger: () => post("iago", "/default_streams", { stream_id: id }),
  },
  "realm_user:add": {
    endpoint: "POST /users",
    before: async () => {
      // No endpoint grants can_create_users (Zulip: a management command).
      await t.ctx.db.kysely.updateTable("users").set({ can_create_users: 1 }).where("id", "=", seedUsers.desdemona.id).execute();
    },
    trigger: () => post("desdemona", "/users", { email: `${unique("new").replace(" ", "")}@zulip.com`, password: "a long password", full_name: "New Comer" }),
  },
  "realm_user:update": {
    endpoint: "PATCH /users/{user_id}",
    trigger: async () => patch("iago", `/users/${seedUsers.prospero.id}`, { full_name: unique("Prospero") }),
  },
  "realm_user:remove": {
    notProduced:
      "sent to a guest restricted by can_access_all_users_group when a user becomes inaccessible to him; test/api/userAccess.test.ts produces it (here the restriction would change every later producer's audience)",
  },
  invites_changed: {
    endpoint: "POST /invites",
    trigger: () => post("iago", "/invites", { invitee_emails: `${unique("invitee").replace(" ", "")}@example.com`, stream_ids: json([]) }),
  },
  realm_export: { endpoint: "POST /export/realm", trigger: () => post("iago", "/export/realm", {}) },
  "realm_bot:add": {
    endpoint: "POST /bots",
    observer: "hamlet",
    trigger: () => post("hamlet", "/bots", { full_name: unique("Producer Bot"), short_name: unique("producer").replace(" ", "") }),
  },
  "realm_bot:update": {
    endpoint: "PATCH /bots/{bot_id}",
    observer: "hamlet",
    before: async () => void (id = (await post("hamlet", "/bots", { full_name: unique("Bot"), short_name: unique("bot").replace(" ", "") })).user_id),
    trigger: () => patch("hamlet", `/bots/${id}`, { full_name: unique("Renamed Bot") }),
  },
  "realm_bot:delete": {
    endpoint: "PATCH /bots/{bot_id} (bot_owner_id: the old owner stops seeing it)",
    observer: "hamlet",
    before: async () => void (id = (await post("hamlet", "/bots", { full_name: unique("Bot"), short_name: unique("bot").replace(" ", "") })).user_id),
    trigger: async () => patch("iago", `/bots/${id}`, { bot_owner_id: seedUsers.cordelia.id }),
  },
  "realm_bot:remove": { notProduced: "Zulip's deactivation sends realm_bot update with is_active (remove is a legacy op no current code path sends)" },
  "user_group:add": { endpoint: "POST /user_groups/create", trigger: newGroup },
  "user_group:update": {
    endpoint: "PATCH /user_groups/{user_group_id}",
    before: async () => void (id = await newGroup()),
    trigger: () => patch("iago", `/user_groups/${id}`, { description: "changed" }),
  },
  "user_group:remove": {
    endpoint: "POST /user_groups/{user_group_id}/deactivate (for clients without include_deactivated_groups)",
    capabilities: { include_deactivated_groups: false },
    before: async () => void (id = await newGroup()),
    trigger: () => post("iago", `/user_groups/${id}/deactivate`),
  },
  "user_group:add_members": {
    endpoint: "POST /user_groups/{user_group_id}/members",
    before: async () => void (id = await newGroup()),
    trigger: async () => post("iago", `/user_groups/${id}/members`, { add: json([seedUsers.cordelia.id]) }),
  },
  "user_group:remove_members": {
    endpoint: "POST /user_groups/{user_group_id}/members",
    before: async () => void (id = await newGroup()),
    trigger: async () => post("iago", `/user_groups/${id}/members`, { delete: json([seedUsers.hamlet.id]) }),
  },
  "user_group:add_subgroups": {
    endpoint: "POST /user_groups/{user_group_id}/subgroups",
    before: async () => void (id = await newGroup()),
    trigger: async () => post("iago", `/user_groups/${id}/subgroups`, { add: json([await newGroup()]) }),
  },
  "user_group:remove_subgroups": {
    endpoint: "POST /user_groups/{user_group_id}/subgroups",
    before: async () => {
      id = await newGroup();
      other = await newGroup();
      await post("iago", `/user_groups/${id}/subgroups`, { add: json([other]) });
    },
    trigger: () => post("iago", `/user_groups/${id}/subgroups`, { delete: json([other]) }),
  },
  "realm:deactivated": {
    notProduced: "no endpoint deactivates an organization: `parley deactivate-organization` does (test/api/organizationDeactivation.test.ts)",
  },
  "realm:update": { endpoint: "PATCH /realm", trigger: () => patch("iago", "/realm", { description: unique("A description") }) },
  "realm:update_dict": {
    endpoint: "PATCH /realm (group-setting)",
    trigger: async () => {
      const groups = expectSuccess(await t.get("iago", "/api/v1/user_groups")).user_groups as { id: number; name: string }[];
      const moderators = groups.find((g) => g.name === "role:moderators")!.id;
      await patch("iago", "/realm", { can_add_custom_emoji_group: { new: { direct_members: [seedUsers.hamlet.id], direct_subgroups: [moderators] } } });
    },
  },
  "user_settings:update": { endpoint: "PATCH /settings", observer: "hamlet", trigger: () => toggle("/settings", "twenty_four_hour_time") },
  update_display_settings: {
    endpoint: "PATCH /settings (for clients without user_settings_object)",
    observer: "hamlet",
    capabilities: { user_settings_object: false },
    trigger: () => toggle("/settings", "twenty_four_hour_time"),
  },
  update_global_notifications: {
    endpoint: "PATCH /settings (for clients without user_settings_object)",
    observer: "hamlet",
    capabilities: { user_settings_object: false },
    trigger: () => toggle("/settings", "enable_sounds"),
  },
  user_status: { endpoint: "POST /users/me/status", trigger: () => post("hamlet", "/users/me/status", { status_text: unique("busy") }) },
  user_topic: {
    endpoint: "POST /user_topics",
    observer: "hamlet",
    trigger: async () => post("hamlet", "/user_topics", { stream_id: await streamId("Verona"), topic: unique("muted"), visibility_policy: 1 }),
  },
  muted_topics: {
    endpoint: "POST /user_topics (the legacy event beside user_topic)",
    observer: "hamlet",
    trigger: async () => post("hamlet", "/user_topics", { stream_id: await streamId("Verona"), topic: unique("muted"), visibility_policy: 1 }),
  },
  presence: { endpoint: "POST /users/me/presence", trigger: () => post("prospero", "/users/me/presence", { status: "active" }) },
  "scheduled_messages:add": {
    endpoint: "POST /scheduled_messages",
    observer: "hamlet",
    trigger: async () =>
      post("hamlet", "/scheduled_messages", {
        type: "stream",
        to: await streamId("Verona"),
        topic: "later",
        content: "later",
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
      }),
  },
  "scheduled_messages:update": {
    endpoint: "PATCH /scheduled_messages/{scheduled_message_id}",
    observer: "hamlet",
    before: async () => {
      const at = Math.floor(Date.now() / 1000) + 3600;
      id = (
        await post("hamlet", "/scheduled_messages", {
          type: "stream",
          to: await streamId("Verona"),
          topic: "later",
          content: "later",
          scheduled_delivery_timestamp: at,
        })
      ).scheduled_message_id;
    },
    trigger: () => patch("hamlet", `/scheduled_messages/${id}`, { content: "even later" }),
  },
  "scheduled_messages:remove": {
    endpoint: "DELETE /scheduled_messages/{scheduled_message_id}",
    observer: "hamlet",
    before: async () => {
      const at = Math.floor(Date.now() / 1000) + 3600;
      id = (
        await post("hamlet", "/scheduled_messages", {
          type: "stream",
          to: await streamId("Verona"),
          topic: "later",
          content: "later",
          scheduled_delivery_timestamp: at,
        })
      ).scheduled_message_id;
    },
    trigger: () => del("hamlet", `/scheduled_messages/${id}`),
  },
  "attachment:add": {
    endpoint: "POST /user_uploads",
    observer: "hamlet",
    trigger: () => upload("hamlet", "/user_uploads", "file", "a.txt", "text/plain", Buffer.from("attached")),
  },
  "attachment:update": {
    endpoint: "POST /messages (linking an upload)",
    observer: "hamlet",
    trigger: async () => {
      const { url } = await upload("hamlet", "/user_uploads", "file", "b.txt", "text/plain", Buffer.from("linked"));
      await send("hamlet", "Verona", "files", `[b](${url as string})`);
    },
  },
  "attachment:remove": {
    endpoint: "DELETE /attachments/{attachment_id}",
    observer: "hamlet",
    trigger: async () => {
      await upload("hamlet", "/user_uploads", "file", "c.txt", "text/plain", Buffer.from("removed"));
      const listing = expectSuccess(await t.get("hamlet", "/api/v1/attachments"));
      await del("hamlet", `/attachments/${listing.attachments.find((a: { name: string }) => a.name === "c.txt").id}`);
    },
  },
  "realm_emoji:update": {
    endpoint: "POST /realm/emoji/{emoji_name}",
    trigger: () => upload("iago", `/realm/emoji/${unique("producer").replace(" ", "_")}`, "f0", "e.png", "image/png", PNG),
  },
  custom_profile_fields: {
    endpoint: "POST /realm/profile_fields",
    trigger: () => post("iago", "/realm/profile_fields", { name: unique("Field"), field_type: 1, hint: "" }),
  },
  "drafts:add": {
    endpoint: "POST /drafts",
    observer: "hamlet",
    trigger: () => post("hamlet", "/drafts", { drafts: json([{ type: "", to: [], topic: "", content: "draft", timestamp: 1_700_000_000 }]) }),
  },
  "drafts:update": {
    endpoint: "PATCH /drafts/{draft_id}",
    observer: "hamlet",
    before: async () =>
      void (id = (await post("hamlet", "/drafts", { drafts: json([{ type: "", to: [], topic: "", content: "draft", timestamp: 1_700_000_000 }]) })).ids[0]),
    trigger: () => patch("hamlet", `/drafts/${id}`, { draft: json({ type: "", to: [], topic: "", content: "changed", timestamp: 1_700_000_100 }) }),
  },
  "drafts:remove": {
    endpoint: "DELETE /drafts/{draft_id}",
    observer: "hamlet",
    before: async () =>
      void (id = (await post("hamlet", "/drafts", { drafts: json([{ type: "", to: [], topic: "", content: "draft", timestamp: 1_700_000_000 }]) })).ids[0]),
    trigger: () => del("hamlet", `/drafts/${id}`),
  },
  "saved_snippets:add": {
    endpoint: "POST /saved_snippets",
    observer: "hamlet",
    trigger: () => post("hamlet", "/saved_snippets", { title: "Hi", content: "Hello" }),
  },
  "saved_snippets:update": {
    endpoint: "PATCH /saved_snippets/{saved_snippet_id}",
    observer: "hamlet",
    before: async () => void (id = (await post("hamlet", "/saved_snippets", { title: "Hi", content: "Hello" })).saved_snippet_id),
    trigger: () => patch("hamlet", `/saved_snippets/${id}`, { title: "Hello" }),
  },
  "saved_snippets:remove": {
    endpoint: "DELETE /saved_snippets/{saved_snippet_id}",
    observer: "hamlet",
    before: async () => void (id = (await post("hamlet", "/saved_snippets", { title: "Hi", content: "Hello" })).saved_snippet_id),
    trigger: () => del("hamlet", `/saved_snippets/${id}`),
  },
  muted_users: {
    endpoint: "POST /users/me/muted_users/{muted_user_id}",
    observer: "hamlet",
    trigger: async () => post("hamlet", `/users/me/muted_users/${seedUsers.othello.id}`),
  },
  alert_words: {
    endpoint: "POST /users/me/alert_words",
    observer: "hamlet",
    trigger: () => post("hamlet", "/users/me/alert_words", { alert_words: json([unique("word")]) }),
  },
  realm_export_consent: {
    endpoint: "PATCH /settings (allow_private_data_export)",
    trigger: () => toggle("/settings", "allow_private_data_export"),
  },
  realm_linkifiers: {
    endpoint: "POST /realm/filters",
    trigger: () => post("iago", "/realm/filters", { pattern: `${unique("T").replace(" ", "")}-(?P<id>[0-9]+)`, url_template: "https://example.com/t/{id}" }),
  },
  realm_playgrounds: {
    endpoint: "POST /realm/playgrounds",
    trigger: () =>
      post("iago", "/realm/playgrounds", { name: unique("Python"), pygments_language: "Python", url_template: "https://python.example.com/?code={code}" }),
  },
  "realm_user_settings_defaults:update": {
    endpoint: "PATCH /realm/user_settings_defaults",
    trigger: () => toggle("/realm/user_settings_defaults", "twenty_four_hour_time"),
  },
};

/** "type" or "type:op" for every member of the ServerEvent union, read with the TypeScript checker. */
function serverEventKinds(): string[] {
  const file = path.resolve(import.meta.dirname, "../../src/contract/events.ts");
  const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, noLib: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === "ServerEvent");
  if (!alias) throw new Error("ServerEvent not found in src/contract/events.ts");
  const union = checker.getTypeAtLocation(alias.name);
  const kinds = new Set<string>();
  for (const member of union.isUnion() ? union.types : [union]) {
    const literals = (name: string): (string | null)[] => {
      const property = member.getProperty(name);
      if (!property) return [null];
      const type = checker.getTypeOfSymbol(property);
      return (type.isUnion() ? type.types : [type]).map((part) => (part.isStringLiteral() ? part.value : null));
    };
    for (const type of literals("type")) {
      if (type === null) throw new Error(`a ServerEvent member without a literal type: ${checker.typeToString(member)}`);
      for (const op of literals("op")) kinds.add(op === null ? type : `${type}:${op}`);
    }
  }
  return [...kinds].sort();
}

describe("event producers", () => {
  // The first message, registration and event fetch load the renderer and compile the reference
  // schemas responses are checked against: not part of any producer's time.
  beforeAll(async () => {
    const queue = expectSuccess(await t.post("iago", "/api/v1/register", { event_types: json(["message"]) }));
    await send("iago", "Denmark", "producers", "warming up");
    expectSuccess(await t.get("iago", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true }));
    expectSuccess(await t.delete("iago", "/api/v1/events", { queue_id: queue.queue_id }));
  }, 60_000);

  it("lists every member of the ServerEvent union", () => {
    expect(Object.keys(PRODUCERS).sort()).toEqual(serverEventKinds());
  });

  for (const [kind, entry] of Object.entries(PRODUCERS)) {
    if ("notProduced" in entry) {
      it.skip(`${kind}: not produced (${entry.notProduced})`, () => {});
      continue;
    }
    it(`${kind} from ${entry.endpoint}`, async () => {
      const [type, op] = kind.split(":");
      const observer = entry.observer ?? "iago";
      await entry.before?.();
      const queue = expectSuccess(
        await t.post(observer, "/api/v1/register", { event_types: json([type]), client_capabilities: json({ ...MODERN_CAPABILITIES, ...entry.capabilities }) }),
      );
      await entry.trigger();
      const { events } = expectSuccess(await t.get(observer, "/api/v1/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true }));
      expect(events.map((e: { type: string; op?: string }) => (op ? `${e.type}:${e.op}` : e.type))).toContain(kind);
      expectSuccess(await t.delete(observer, "/api/v1/events", { queue_id: queue.queue_id }));
    });
  }
});
