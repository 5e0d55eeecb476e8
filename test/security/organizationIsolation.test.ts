import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { doCreateUser } from "../../src/actions/createUser.js";
import { doSetUpNewRealm } from "../../src/actions/onboarding.js";
import { doCreateRealm } from "../../src/actions/realms.js";
import { transaction } from "../../src/appContext.js";
import { Role } from "../../src/models/roles.js";
import { basicAuth } from "../support/auth.js";
import { PNG } from "../support/factories.js";
import { type ApiResponse, fetchWithHost, type Params, type RequestOptions, useTestServer } from "../support/testApp.js";

/**
 * Two organizations on one server never see into each other (issue 38 item 7). One server with a
 * root domain serves the seeded "zulip" organization at zulip.parley.test and a second one, "acme",
 * at acme.parley.test, made here as `parley create-organization` makes one. Acme has a user with
 * the SAME email as a zulip user (hamlet@zulip.com), and each organization fills itself with
 * channels of every kind, messages, direct messages, reactions, edits, files, an avatar, custom
 * emoji, a user group, a status, a draft, a scheduled message, a saved snippet, a bot, a custom
 * profile field, a linkifier, a code playground, invitations and alert words — all carrying
 * unique markers of their organization (zmk… for zulip, amk… for acme).
 *
 * Then each organization's users (a member and an administrator, both with an event queue
 * registered before any of it) try every way in: narrows, ids, names, emails, file and avatar
 * URLs, writes on the other organization's objects. Every request goes to the caller's own host
 * with the caller's own credentials, so the test stays right once credentials are bound to their
 * host. The last test sweeps every answer and every event an organization's users received for a
 * marker of the other organization (a marker the request itself named, and an error message
 * echoes, does not count).
 */
const ROOT_DOMAIN = "parley.test";
const t = useTestServer({ rootDomain: ROOT_DOMAIN, externalUrl: `http://${ROOT_DOMAIN}:9991` });

// ---------------------------------------------------------------------------------------------
// Organizations, their users, markers

interface Actor {
  label: string;
  org: Org;
  id: number;
  email: string;
  apiKey: string;
}

interface Org {
  stringId: "zulip" | "acme";
  host: string;
  realmId: number;
  prefix: string;
  tokens: Set<string>;
  owner: Actor;
  admin: Actor;
  author: Actor;
  observer: Actor;
  /** A user whose address exists only in this organization. */
  onlyHere: Actor;
  channels: { public: number; private: number; web: number; plain: number };
  channelNames: { public: string; private: string; web: string; plain: string };
  messages: { public: number; private: number; web: number; dm: number; groupDm: number; file: number; webFile: number };
  /** Every message id of the organization made here. */
  messageIds: number[];
  fileUrl: string;
  webFileUrl: string;
  unsentFileUrl: string;
  attachmentIds: number[];
  emojiName: string;
  realmName: string;
  groupId: number;
  draftId: number;
  snippetId: number;
  scheduledId: number;
  botId: number;
  profileFieldId: number;
  linkifierId: number;
  playgroundId: number;
  inviteIds: { email: number; multiuse: number };
  queues: Map<Actor, { id: string; events: unknown[] }>;
}

const MARKER = /[az]mk[0-9a-f]{10}/g;
function mark(org: Org): string {
  const token = org.prefix + randomBytes(5).toString("hex");
  org.tokens.add(token);
  return token;
}

function newOrg(stringId: Org["stringId"]): Org {
  return {
    stringId,
    host: `${stringId}.${ROOT_DOMAIN}`,
    prefix: stringId === "zulip" ? "zmk" : "amk",
    tokens: new Set(),
    queues: new Map(),
    messageIds: [],
    attachmentIds: [],
  } as unknown as Org;
}
const zulip = newOrg("zulip");
const acme = newOrg("acme");
const other = (org: Org) => (org === zulip ? acme : zulip);

/** Everything an organization's users were answered: the sweep reads it. */
const seen: Array<{ org: Org; where: string; request: string; response: string }> = [];
const problems: string[] = [];

async function call(a: Actor, method: string, path: string, params: Params = {}, options: RequestOptions = {}): Promise<ApiResponse> {
  const res = await t.request(method, null, path, params, {
    ...options,
    host: a.org.host,
    headers: { Authorization: basicAuth(a.email, a.apiKey), ...(options.headers ?? {}) },
  });
  seen.push({ org: a.org, where: `${a.label}: ${method} ${path}`, request: path + JSON.stringify(params), response: JSON.stringify(res.body) });
  return res;
}

/** A raw GET (file URLs, pages) on `org`'s host, with `a`'s credentials or none. */
async function raw(org: Org, a: Actor | null, path: string): Promise<{ status: number; text: string }> {
  const res = await fetchWithHost(t.baseUrl + path, org.host, { headers: a ? { Authorization: basicAuth(a.email, a.apiKey) } : {} });
  const text = await res.text();
  seen.push({ org, where: `${a?.label ?? `visitor of ${org.stringId}`}: GET ${path}`, request: path, response: text });
  return { status: res.status, text };
}

function ok(res: ApiResponse, where: string): any {
  expect({ where, status: res.status, body: res.body }).toMatchObject({ where, status: 200, body: { result: "success" } });
  return res.body;
}

/** Records a problem unless the answer is Zulip's error (`msg` exact, or any 4xx text when omitted). */
function refused(res: ApiResponse, where: string, status: number | "4xx", msg?: string | RegExp, code?: string): void {
  const statusOk = status === "4xx" ? res.status >= 400 && res.status < 500 : res.status === status;
  const body = res.body as { result?: string; msg?: string; code?: string } | null;
  const msgOk = msg === undefined || (typeof msg === "string" ? body?.msg === msg : msg.test(body?.msg ?? ""));
  if (!statusOk || body?.result !== "error" || !msgOk || (code !== undefined && body?.code !== code)) {
    problems.push(`NOT REFUSED ${where}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
}
function check(condition: boolean, what: string): void {
  if (!condition) problems.push(what);
}

const pathOf = (url: string) => (url.startsWith("/") ? url : new URL(url).pathname);

// ---------------------------------------------------------------------------------------------
// The fixture

async function actorRow(org: Org, label: string, email: string): Promise<Actor> {
  const row = await t.ctx.db.kysely
    .selectFrom("users")
    .select(["id", "email", "api_key"])
    .where("realm_id", "=", org.realmId)
    .where("delivery_email", "=", email)
    .executeTakeFirstOrThrow();
  return { label: `${label} of ${org.stringId}`, org, id: row.id, email: row.email, apiKey: row.api_key };
}

async function setUpZulip(): Promise<void> {
  zulip.realmId = (await t.ctx.db.kysely.selectFrom("realms").select("id").where("string_id", "=", "zulip").executeTakeFirstOrThrow()).id;
  zulip.owner = await actorRow(zulip, "owner desdemona", "desdemona@zulip.com");
  zulip.admin = await actorRow(zulip, "administrator iago", "iago@zulip.com");
  zulip.author = await actorRow(zulip, "member othello", "othello@zulip.com");
  zulip.observer = await actorRow(zulip, "member hamlet", "hamlet@zulip.com");
  zulip.onlyHere = await actorRow(zulip, "member cordelia", "cordelia@zulip.com");
}

/** The second organization, as `parley create-organization` makes it, and its users. */
async function setUpAcme(): Promise<void> {
  const names = { realm: `Acme ${mark(acme)}`, description: `Acme ${mark(acme)}`, boss: `Boss ${mark(acme)}`, writer: `Writer ${mark(acme)}` };
  const emails = { boss: `boss-${mark(acme)}@acme.test`, writer: `writer-${mark(acme)}@acme.test`, chief: `chief-${mark(acme)}@acme.test` };
  const realmId = await transaction(t.ctx, async (tx) => {
    const realm = await doCreateRealm(tx, { string_id: "acme", name: names.realm, description: names.description });
    const owner = await doCreateUser(tx, realm, { email: emails.boss, full_name: names.boss, password_hash: null, role: Role.OWNER, can_create_users: true });
    await doSetUpNewRealm(tx, realm, owner);
    await doCreateUser(tx, realm, { email: emails.writer, full_name: names.writer, password_hash: null });
    // The same address as the zulip organization's Hamlet: another account.
    await doCreateUser(tx, realm, { email: "hamlet@zulip.com", full_name: `Acme Hamlet ${mark(acme)}`, password_hash: null });
    await doCreateUser(tx, realm, { email: emails.chief, full_name: `Chief ${mark(acme)}`, password_hash: null, role: Role.ADMINISTRATOR });
    return realm.id;
  });
  acme.realmId = realmId;
  acme.owner = await actorRow(acme, "owner", emails.boss);
  acme.admin = await actorRow(acme, "administrator", emails.chief);
  acme.author = await actorRow(acme, "member writer", emails.writer);
  acme.observer = await actorRow(acme, "member hamlet@zulip.com", "hamlet@zulip.com");
  acme.onlyHere = acme.author;
  expect(acme.observer.id).not.toBe(zulip.observer.id);
}

/** Queues with every event type, registered before anything of either organization is made. */
async function registerQueues(org: Org): Promise<void> {
  for (const a of [org.observer, org.admin]) {
    const body = ok(await call(a, "POST", "/api/v1/register", { apply_markdown: true, client_gravatar: false }), `register ${a.label}`);
    org.queues.set(a, { id: body.queue_id, events: [] });
  }
}

async function drainQueue(org: Org, a: Actor): Promise<void> {
  const queue = org.queues.get(a)!;
  let last = -1;
  for (;;) {
    const body = ok(await call(a, "GET", "/api/v1/events", { queue_id: queue.id, last_event_id: last, dont_block: true }), `events of ${a.label}`);
    const real = (body.events as Array<{ id: number; type: string }>).filter((e) => e.type !== "heartbeat");
    if (real.length === 0) return;
    queue.events.push(...real);
    last = Math.max(...body.events.map((e: { id: number }) => e.id));
  }
}

async function channelIdOf(a: Actor, name: string): Promise<number> {
  return ok(await call(a, "GET", "/api/v1/get_stream_id", { stream: name }), `get_stream_id ${name}`).stream_id as number;
}

async function sendMessage(a: Actor, params: Params): Promise<number> {
  const id = ok(await call(a, "POST", "/api/v1/messages", params), `send as ${a.label}`).id as number;
  a.org.messageIds.push(id);
  return id;
}

async function upload(a: Actor, name: string, data: string): Promise<string> {
  const body = ok(await call(a, "POST", "/api/v1/user_uploads", {}, { files: [{ field: "filename", data, type: "text/plain", filename: name }] }), "upload");
  return pathOf(body.url as string);
}

/** Everything an organization holds, each piece with a marker of its own. */
async function fillOrganization(org: Org): Promise<void> {
  const { owner, admin, author, observer } = org;
  const now = Math.floor(Date.now() / 1000);
  org.realmName = `Org ${mark(org)}`;
  ok(await call(owner, "PATCH", "/api/v1/realm", { enable_spectator_access: true, description: `About ${mark(org)}`, name: org.realmName }), "realm settings");
  ok(await call(author, "PATCH", "/api/v1/settings", { full_name: `Author ${mark(org)}` }), "rename");
  ok(await call(author, "POST", "/api/v1/users/me/status", { status_text: `busy ${mark(org)}` }), "status");
  ok(await call(author, "POST", "/api/v1/users/me/avatar", {}, { files: [{ data: PNG, type: "image/png", filename: "me.png" }] }), "avatar");

  org.channelNames = { public: `public ${mark(org)}`, private: `private ${mark(org)}`, web: `web ${mark(org)}`, plain: `plain-${org.stringId}` };
  const create = async (who: Actor, name: string, extra: Params) =>
    ok(
      await call(who, "POST", "/api/v1/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name, description: `described ${mark(org)}` }]),
        principals: JSON.stringify([author.id, observer.id, admin.id]),
        ...extra,
      }),
      `create ${name}`,
    );
  await create(author, org.channelNames.public, {});
  await create(author, org.channelNames.private, { invite_only: true, principals: JSON.stringify([author.id, observer.id]) });
  await create(owner, org.channelNames.web, { is_web_public: true });
  await create(author, org.channelNames.plain, {});
  org.channels = {
    public: await channelIdOf(author, org.channelNames.public),
    private: await channelIdOf(author, org.channelNames.private),
    web: await channelIdOf(author, org.channelNames.web),
    plain: await channelIdOf(author, org.channelNames.plain),
  };

  const toChannel = (channel: number, content: string) => ({ type: "stream", to: String(channel), topic: `topic ${mark(org)}`, content });
  org.messages = {} as Org["messages"];
  org.messages.public = await sendMessage(author, toChannel(org.channels.public, `public ${mark(org)} @**all**`));
  org.messages.private = await sendMessage(author, toChannel(org.channels.private, `private ${mark(org)}`));
  org.messages.web = await sendMessage(author, toChannel(org.channels.web, `web ${mark(org)}`));
  org.messages.dm = await sendMessage(author, { type: "direct", to: JSON.stringify([observer.id]), content: `dm ${mark(org)}` });
  org.messages.groupDm = await sendMessage(author, { type: "direct", to: JSON.stringify([observer.id, admin.id]), content: `group dm ${mark(org)}` });
  ok(await call(author, "PATCH", `/api/v1/messages/${org.messages.public}`, { content: `edited ${mark(org)}` }), "edit");

  org.emojiName = mark(org);
  ok(await call(admin, "POST", `/api/v1/realm/emoji/${org.emojiName}`, {}, { files: [{ data: PNG, type: "image/png", filename: "e.png" }] }), "custom emoji");
  ok(await call(observer, "POST", `/api/v1/messages/${org.messages.public}/reactions`, { emoji_name: org.emojiName }), "reaction");
  ok(await call(observer, "POST", `/api/v1/messages/${org.messages.dm}/reactions`, { emoji_name: "smile" }), "reaction on a dm");
  ok(await call(observer, "POST", "/api/v1/messages/flags", { messages: JSON.stringify([org.messages.dm]), op: "add", flag: "starred" }), "star");

  org.fileUrl = await upload(author, `${mark(org)}.txt`, `file ${mark(org)}`);
  org.messages.file = await sendMessage(author, toChannel(org.channels.private, `[file](${org.fileUrl})`));
  org.webFileUrl = await upload(author, `${mark(org)}.txt`, `web file ${mark(org)}`);
  org.messages.webFile = await sendMessage(author, toChannel(org.channels.web, `[file](${org.webFileUrl})`));
  org.unsentFileUrl = await upload(author, `${mark(org)}.txt`, `unsent ${mark(org)}`);
  const attachments = ok(await call(author, "GET", "/api/v1/attachments"), "attachments").attachments as Array<{ id: number }>;
  org.attachmentIds = attachments.map((a) => a.id);

  ok(
    await call(admin, "POST", "/api/v1/user_groups/create", {
      name: `group ${mark(org)}`,
      description: `group ${mark(org)}`,
      members: JSON.stringify([author.id, observer.id]),
    }),
    "user group",
  );
  const groups = ok(await call(admin, "GET", "/api/v1/user_groups"), "user groups").user_groups as Array<{ id: number; name: string }>;
  org.groupId = groups.find((g) => g.name.startsWith("group "))!.id;

  const drafts = ok(
    await call(author, "POST", "/api/v1/drafts", {
      drafts: JSON.stringify([{ type: "stream", to: [org.channels.private], topic: `draft ${mark(org)}`, content: `draft ${mark(org)}`, timestamp: now }]),
    }),
    "draft",
  );
  org.draftId = drafts.ids[0];
  org.snippetId = ok(
    await call(author, "POST", "/api/v1/saved_snippets", { title: `snippet ${mark(org)}`, content: `snippet ${mark(org)}` }),
    "snippet",
  ).saved_snippet_id;
  org.scheduledId = ok(
    await call(author, "POST", "/api/v1/scheduled_messages", {
      type: "stream",
      to: String(org.channels.private),
      topic: `later ${mark(org)}`,
      content: `later ${mark(org)}`,
      scheduled_delivery_timestamp: now + 86_400,
    }),
    "scheduled message",
  ).scheduled_message_id;
  org.botId = ok(await call(author, "POST", "/api/v1/bots", { full_name: `Bot ${mark(org)}`, short_name: `bot-${mark(org)}`, bot_type: 1 }), "bot").user_id;
  org.profileFieldId = ok(
    await call(admin, "POST", "/api/v1/realm/profile_fields", { name: `field ${mark(org)}`, hint: mark(org), field_type: 1 }),
    "field",
  ).id;
  ok(
    await call(admin, "PATCH", `/api/v1/users/${author.id}`, { profile_data: JSON.stringify([{ id: org.profileFieldId, value: mark(org) }]) }),
    "profile data",
  );
  org.linkifierId = ok(
    await call(admin, "POST", "/api/v1/realm/filters", { pattern: `${mark(org)}-(?P<id>[0-9]+)`, url_template: `https://${mark(org)}.example/{id}` }),
    "linkifier",
  ).id;
  org.playgroundId = ok(
    await call(admin, "POST", "/api/v1/realm/playgrounds", {
      name: `play ${mark(org)}`,
      pygments_language: "Python",
      url_template: `https://p.example/${mark(org)}/{code}`,
    }),
    "playground",
  ).id;
  ok(await call(admin, "POST", "/api/v1/default_streams", { stream_id: org.channels.public }), "default channel");
  ok(
    await call(admin, "POST", "/api/v1/invites", {
      invitee_emails: `invitee-${mark(org)}@example.com`,
      stream_ids: JSON.stringify([org.channels.public]),
      invite_expires_in_minutes: 1440,
    }),
    "invitation",
  );
  ok(await call(admin, "POST", "/api/v1/invites/multiuse", { stream_ids: JSON.stringify([org.channels.public]), invite_expires_in_minutes: 1440 }), "link");
  const invites = ok(await call(admin, "GET", "/api/v1/invites"), "invites").invites as Array<{ id: number; is_multiuse: boolean }>;
  org.inviteIds = { email: invites.find((i) => !i.is_multiuse)!.id, multiuse: invites.find((i) => i.is_multiuse)!.id };
  ok(await call(author, "POST", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify([mark(org)]) }), "alert word");
  ok(await call(author, "POST", `/api/v1/users/me/muted_users/${org.onlyHere === author ? admin.id : org.onlyHere.id}`), "mute");
  ok(await call(author, "POST", "/api/v1/typing", { op: "start", to: JSON.stringify([observer.id]) }), "typing");
  ok(await call(observer, "POST", "/api/v1/users/me/presence", { status: "active" }), "presence");
}

// ---------------------------------------------------------------------------------------------
// The probes: `a` (of one organization, on its host) tries to reach organization `b`.

const INVALID_MESSAGE = "Invalid message(s)";
const INVALID_CHANNEL = "Invalid channel ID";
const NO_SUCH_USER = "No such user";

async function probeMessages(a: Actor, b: Org): Promise<void> {
  const narrows: Array<[string, unknown[]]> = [
    ["no narrow", []],
    ["channel by id", [{ operator: "channel", operand: b.channels.public }]],
    ["private channel by id", [{ operator: "channel", operand: b.channels.private }]],
    ["web-public channel by id", [{ operator: "channel", operand: b.channels.web }]],
    ["channel by name", [{ operator: "channel", operand: b.channelNames.public }]],
    ["private channel by name", [{ operator: "channel", operand: b.channelNames.private }]],
    ["plain channel name", [{ operator: "channel", operand: b.channelNames.plain }]],
    ["channels:public", [{ operator: "channels", operand: "public" }]],
    ["channels:web-public", [{ operator: "channels", operand: "web-public" }]],
    ["search of a marker", [{ operator: "search", operand: [...b.tokens][5]! }]],
    ["search of a word", [{ operator: "search", operand: "public" }]],
    ["dm with a user id", [{ operator: "dm", operand: [b.author.id] }]],
    ["dm with an email", [{ operator: "dm", operand: b.onlyHere.email }]],
    ["dm-including", [{ operator: "dm-including", operand: b.observer.id }]],
    ["sender by id", [{ operator: "sender", operand: b.author.id }]],
    ["sender by email", [{ operator: "sender", operand: b.author.email }]],
    ["id:", [{ operator: "id", operand: b.messages.public }]],
    ["id: of a dm", [{ operator: "id", operand: b.messages.dm }]],
    ["with:", [{ operator: "with", operand: b.messages.private }]],
    ["near:", [{ operator: "near", operand: b.messages.public }]],
    ["is:dm", [{ operator: "is", operand: "dm" }]],
    ["is:starred", [{ operator: "is", operand: "starred" }]],
    ["has:attachment", [{ operator: "has", operand: "attachment" }]],
    ["has:reaction", [{ operator: "has", operand: "reaction" }]],
    ["is:mentioned", [{ operator: "is", operand: "mentioned" }]],
    ["topic", [{ operator: "topic", operand: "topic" }]],
  ];
  const foreign = new Set(b.messageIds);
  for (const [label, narrow] of narrows) {
    for (const anchor of ["newest", String(b.messages.public)]) {
      const res = await call(a, "GET", "/api/v1/messages", { anchor, num_before: 100, num_after: 100, narrow: JSON.stringify(narrow) });
      if (res.status === 200) {
        const ids = (res.body.messages as Array<{ id: number }>).map((m) => m.id);
        check(!ids.some((id) => foreign.has(id)), `LEAK GET /messages (${label}, anchor ${anchor}) as ${a.label}: ${ids.filter((id) => foreign.has(id))}`);
      } else {
        refused(res, `GET /messages (${label}) as ${a.label}`, 400);
      }
    }
  }
  const matches = await call(a, "GET", "/api/v1/messages/matches_narrow", { msg_ids: JSON.stringify(b.messageIds), narrow: JSON.stringify([]) });
  check(matches.status === 200 && Object.keys(matches.body.messages).length === 0, `LEAK matches_narrow as ${a.label}: ${JSON.stringify(matches.body)}`);

  for (const [key, id] of Object.entries(b.messages)) {
    const where = (what: string) => `${what} of ${b.stringId}'s ${key} message as ${a.label}`;
    refused(await call(a, "GET", `/api/v1/messages/${id}`), where("GET /messages/{id}"), 400, INVALID_MESSAGE);
    refused(await call(a, "GET", `/api/v1/messages/${id}/history`), where("GET /messages/{id}/history"), 400, INVALID_MESSAGE);
    refused(await call(a, "GET", `/api/v1/messages/${id}/read_receipts`), where("GET read_receipts"), 400, INVALID_MESSAGE);
    refused(await call(a, "POST", `/api/v1/messages/${id}/reactions`, { emoji_name: "smile" }), where("POST reaction"), 400, INVALID_MESSAGE);
    refused(
      await call(a, "DELETE", `/api/v1/messages/${id}/reactions`, { emoji_name: b.emojiName }, { inQuery: true }),
      where("DELETE reaction"),
      400,
      INVALID_MESSAGE,
    );
    refused(await call(a, "PATCH", `/api/v1/messages/${id}`, { content: "taken over" }), where("PATCH content"), 400, INVALID_MESSAGE);
    refused(await call(a, "PATCH", `/api/v1/messages/${id}`, { topic: "taken over" }), where("PATCH topic"), 400, INVALID_MESSAGE);
    refused(await call(a, "PATCH", `/api/v1/messages/${id}`, { stream_id: a.org.channels.public }), where("PATCH move to own channel"), 400, INVALID_MESSAGE);
    refused(await call(a, "DELETE", `/api/v1/messages/${id}`), where("DELETE"), 400, INVALID_MESSAGE);
    refused(await call(a, "POST", `/api/v1/messages/${id}/typing`, { op: "start" }), where("edit typing"), 400, INVALID_MESSAGE);
    refused(await call(a, "GET", `/api/v1/messages/${id}/read_receipts`), where("read receipts"), 400, INVALID_MESSAGE);
  }
  refused(
    await call(a, "POST", "/api/v1/messages/flags", { messages: JSON.stringify(b.messageIds), op: "add", flag: "starred" }),
    `starring ${b.stringId}'s messages as ${a.label}`,
    400,
    INVALID_MESSAGE,
  );
  // Marking read what one has no row for changes nothing (Zulip's do_update_message_flags: the
  // historical default is read), whoever's the message: the answer tells nothing about it.
  const missing = [b.messageIds.map((id) => id + 1_000_000)];
  for (const ids of [b.messageIds, ...missing]) {
    const res = await call(a, "POST", "/api/v1/messages/flags", { messages: JSON.stringify(ids), op: "add", flag: "read" });
    check(res.status === 200 && JSON.stringify(res.body.messages) === JSON.stringify(ids), `marking read ${ids} as ${a.label}: ${JSON.stringify(res.body)}`);
    // Marking unread would make rows: missing and foreign alike are "Invalid message(s)".
    refused(
      await call(a, "POST", "/api/v1/messages/flags", { messages: JSON.stringify(ids), op: "remove", flag: "read" }),
      `marking unread ${ids} as ${a.label}`,
      400,
      INVALID_MESSAGE,
    );
  }
  // A message written here to the other organization: refused with Zulip's texts.
  refused(
    await call(a, "POST", "/api/v1/messages", { type: "direct", to: JSON.stringify([b.author.id]), content: "hello" }),
    `DM to ${b.stringId}'s user id as ${a.label}`,
    400,
    `Invalid user ID ${b.author.id}`,
  );
  refused(
    await call(a, "POST", "/api/v1/messages", { type: "direct", to: JSON.stringify([a.org.author.id, b.observer.id]), content: "hello" }),
    `group DM with ${b.stringId}'s user as ${a.label}`,
    400,
    `Invalid user ID ${b.observer.id}`,
  );
  refused(
    await call(a, "POST", "/api/v1/messages", { type: "direct", to: JSON.stringify([b.onlyHere.email]), content: "hello" }),
    `DM to ${b.stringId}'s address as ${a.label}`,
    400,
    `Invalid email '${b.onlyHere.email}'`,
  );
  for (const channel of [b.channels.public, b.channels.web, b.channels.private]) {
    refused(
      await call(a, "POST", "/api/v1/messages", { type: "stream", to: String(channel), topic: "t", content: "hello" }),
      `message to ${b.stringId}'s channel ${channel} as ${a.label}`,
      400,
      `Channel with ID '${channel}' does not exist`,
    );
    refused(
      await call(a, "POST", "/api/v1/scheduled_messages", {
        type: "stream",
        to: String(channel),
        topic: "t",
        content: "hello",
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
      }),
      `scheduled message to ${b.stringId}'s channel as ${a.label}`,
      400,
      `Channel with ID '${channel}' does not exist`,
    );
    refused(
      await call(a, "POST", "/api/v1/typing", { type: "stream", op: "start", stream_id: channel, topic: "t" }),
      `typing in ${b.stringId}'s channel as ${a.label}`,
      400,
      INVALID_CHANNEL,
    );
  }
  refused(
    await call(a, "POST", "/api/v1/typing", { op: "start", to: JSON.stringify([b.observer.id]) }),
    `typing to ${b.stringId}'s user as ${a.label}`,
    400,
    `Invalid user ID ${b.observer.id}`,
  );
  refused(
    await call(a, "POST", "/api/v1/scheduled_messages", {
      type: "direct",
      to: JSON.stringify([b.author.id]),
      content: "hello",
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
    }),
    `scheduled DM to ${b.stringId}'s user as ${a.label}`,
    400,
    `Invalid user ID ${b.author.id}`,
  );
  refused(
    await call(a, "POST", "/api/v1/drafts", {
      drafts: JSON.stringify([{ type: "stream", to: [b.channels.public], topic: "t", content: "x", timestamp: Math.floor(Date.now() / 1000) }]),
    }),
    `draft to ${b.stringId}'s channel as ${a.label}`,
    400,
    INVALID_CHANNEL,
  );
  refused(
    await call(a, "POST", "/api/v1/drafts", {
      drafts: JSON.stringify([{ type: "private", to: [b.author.id], topic: "", content: "x", timestamp: Math.floor(Date.now() / 1000) }]),
    }),
    `draft to ${b.stringId}'s user as ${a.label}`,
    400,
    `Invalid user ID ${b.author.id}`,
  );
}

/** Mentions of the other organization's users render as text and notify nobody there. */
async function probeMentions(a: Actor, b: Org): Promise<void> {
  const id = await sendMessage(a, {
    type: "stream",
    to: String(a.org.channels.public),
    topic: `mentions ${mark(a.org)}`,
    content: `hey @**Someone|${b.observer.id}** and @_**Someone|${b.author.id}** ${mark(a.org)}`,
  });
  const rendered = ok(await call(a, "GET", `/api/v1/messages/${id}`), "own mention message").message.content as string;
  check(
    !rendered.includes(`data-user-id="${b.observer.id}"`) && !rendered.includes(`data-user-id="${b.author.id}"`),
    `mention of ${b.stringId}'s user rendered: ${rendered}`,
  );
}

async function probeUsers(a: Actor, b: Org): Promise<void> {
  const foreignUsers = [b.owner, b.admin, b.author, b.observer];
  const listed = ok(await call(a, "GET", "/api/v1/users", { include_custom_profile_fields: true }), "GET /users").members as Array<{ user_id: number }>;
  const ids = new Set(listed.map((u) => u.user_id));
  check(!foreignUsers.some((u) => ids.has(u.id)), `LEAK GET /users as ${a.label}`);
  check(ids.has(a.org.author.id), `GET /users as ${a.label} misses its own organization`);
  for (const u of foreignUsers) {
    refused(await call(a, "GET", `/api/v1/users/${u.id}`), `GET /users/{id} of ${u.label} as ${a.label}`, 400, NO_SUCH_USER);
    refused(await call(a, "GET", `/api/v1/users/${u.id}/presence`), `GET presence of ${u.label} as ${a.label}`, 400, NO_SUCH_USER);
    refused(await call(a, "GET", `/api/v1/users/${u.id}/status`), `GET status of ${u.label} as ${a.label}`, 400, NO_SUCH_USER);
    refused(
      await call(a, "GET", `/api/v1/users/${u.id}/subscriptions/${a.org.channels.public}`),
      `GET subscription status of ${u.label} as ${a.label}`,
      400,
      NO_SUCH_USER,
    );
    refused(await call(a, "PATCH", `/api/v1/users/${u.id}`, { full_name: "Taken over" }), `PATCH ${u.label} as ${a.label}`, 400, NO_SUCH_USER);
    refused(await call(a, "DELETE", `/api/v1/users/${u.id}`), `deactivate ${u.label} as ${a.label}`, 400, NO_SUCH_USER);
    refused(await call(a, "POST", `/api/v1/users/${u.id}/reactivate`), `reactivate ${u.label} as ${a.label}`, 400, NO_SUCH_USER);
  }
  refused(
    await call(a, "GET", `/api/v1/users/${encodeURIComponent(b.onlyHere.email)}`),
    `GET /users/{email} of ${b.stringId} as ${a.label}`,
    400,
    NO_SUCH_USER,
  );
  // The address both organizations have names this organization's account.
  const same = ok(await call(a, "GET", "/api/v1/users/hamlet@zulip.com"), "GET /users/hamlet@zulip.com").user.user_id;
  check(same === a.org.observer.id, `GET /users/hamlet@zulip.com as ${a.label} gave user ${same}, not ${a.org.observer.id}`);
  const foreignIds = foreignUsers.map((u) => u.id);
  refused(
    await call(a, "POST", "/api/v1/user_groups/create", { name: `with strangers ${a.id}`, description: "x", members: JSON.stringify(foreignIds) }),
    `user group with ${b.stringId}'s users as ${a.label}`,
    400,
    `Invalid user ID: ${foreignIds[0]}`,
  );
}

async function probeChannels(a: Actor, b: Org): Promise<void> {
  const foreign = new Set(Object.values(b.channels));
  for (const params of [{}, { include_all: true }, { include_web_public: true }]) {
    const streams = ok(await call(a, "GET", "/api/v1/streams", params), "GET /streams").streams as Array<{ stream_id: number }>;
    check(!streams.some((s) => foreign.has(s.stream_id)), `LEAK GET /streams ${JSON.stringify(params)} as ${a.label}`);
  }
  const subs = ok(await call(a, "GET", "/api/v1/users/me/subscriptions", { include_subscribers: true }), "subscriptions").subscriptions as Array<{
    stream_id: number;
    subscribers: number[];
  }>;
  check(!subs.some((s) => foreign.has(s.stream_id)), `LEAK subscriptions as ${a.label}`);
  for (const [key, id] of Object.entries(b.channels)) {
    const where = (what: string) => `${what} of ${b.stringId}'s ${key} channel as ${a.label}`;
    refused(await call(a, "GET", `/api/v1/streams/${id}`), where("GET /streams/{id}"), 400, INVALID_CHANNEL);
    refused(await call(a, "GET", `/api/v1/streams/${id}/members`), where("GET members"), 400, INVALID_CHANNEL);
    refused(await call(a, "GET", `/api/v1/users/me/${id}/topics`), where("GET topics"), 400, INVALID_CHANNEL);
    refused(await call(a, "GET", `/api/v1/users/${a.id}/subscriptions/${id}`), where("GET subscription status"), 400, INVALID_CHANNEL);
    refused(await call(a, "PATCH", `/api/v1/streams/${id}`, { description: "taken over" }), where("PATCH"), 400, INVALID_CHANNEL);
    refused(await call(a, "DELETE", `/api/v1/streams/${id}`), where("DELETE"), 400, INVALID_CHANNEL);
    refused(
      await call(a, "POST", "/api/v1/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([{ stream_id: id, property: "is_muted", value: true }]),
      }),
      where("subscription properties"),
      400,
      INVALID_CHANNEL,
    );
    refused(await call(a, "POST", "/api/v1/user_topics", { stream_id: id, topic: "x", visibility_policy: 1 }), where("topic visibility"), 400, INVALID_CHANNEL);
  }
  for (const key of ["public", "private", "web"] as const) {
    refused(
      await call(a, "GET", "/api/v1/get_stream_id", { stream: b.channelNames[key] }),
      `get_stream_id of ${b.stringId}'s ${key} channel as ${a.label}`,
      400,
      `Invalid channel name '${b.channelNames[key]}'`,
    );
  }
  refused(
    await call(a, "POST", "/api/v1/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: a.org.channelNames.public }]),
      principals: JSON.stringify([b.author.id]),
    }),
    `subscribing ${b.stringId}'s user as ${a.label}`,
    400,
    NO_SUCH_USER,
  );
  refused(
    await call(a, "POST", "/api/v1/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: a.org.channelNames.public }]),
      principals: JSON.stringify([b.onlyHere.email]),
    }),
    `subscribing ${b.stringId}'s user by address as ${a.label}`,
    400,
    NO_SUCH_USER,
  );
}

/** Subscribing to a name only the other organization has makes a new channel here. */
async function probeSubscribeByName(a: Actor, b: Org): Promise<void> {
  const name = b.channelNames.plain;
  ok(await call(a, "POST", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]) }), `subscribe to ${name}`);
  const mine = await channelIdOf(a, name);
  check(mine !== b.channels.plain, `subscribing to "${name}" as ${a.label} joined ${b.stringId}'s channel`);
  const members = ok(await call(b.author, "GET", `/api/v1/streams/${b.channels.plain}/members`), "members").subscribers as number[];
  check(!members.includes(a.id), `${a.label} became a subscriber of ${b.stringId}'s "${name}"`);
  const channel = ok(await call(a, "GET", `/api/v1/streams/${mine}`), "own new channel").stream;
  check(!JSON.stringify(channel).includes("described"), `the new channel "${name}" of ${a.org.stringId} took ${b.stringId}'s description`);
}

async function probeOrganizationData(a: Actor, b: Org): Promise<void> {
  const groups = ok(await call(a, "GET", "/api/v1/user_groups"), "user groups").user_groups as Array<{ id: number }>;
  check(!groups.some((g) => g.id === b.groupId), `LEAK user group as ${a.label}`);
  refused(await call(a, "GET", `/api/v1/user_groups/${b.groupId}/members`), `GET members of ${b.stringId}'s group as ${a.label}`, 400, "Invalid user group");
  refused(
    await call(a, "POST", `/api/v1/user_groups/${b.groupId}/members`, { add: JSON.stringify([a.id]) }),
    `joining ${b.stringId}'s group as ${a.label}`,
    400,
    "Invalid user group",
  );
  refused(
    await call(a, "PATCH", `/api/v1/user_groups/${b.groupId}`, { name: "taken over" }),
    `renaming ${b.stringId}'s group as ${a.label}`,
    400,
    "Invalid user group",
  );
  const emoji = ok(await call(a, "GET", "/api/v1/realm/emoji"), "realm emoji").emoji as Record<string, { name: string }>;
  check(!Object.values(emoji).some((e) => e.name === b.emojiName), `LEAK realm emoji as ${a.label}`);
  refused(
    await call(a, "DELETE", `/api/v1/realm/emoji/${b.emojiName}`),
    `deleting ${b.stringId}'s emoji as ${a.label}`,
    404,
    `Emoji '${b.emojiName}' does not exist`,
  );
  refused(
    await call(a, "POST", `/api/v1/messages/${a.org.messages.public}/reactions`, { emoji_name: b.emojiName }),
    `reacting with ${b.stringId}'s emoji as ${a.label}`,
    400,
    `Emoji '${b.emojiName}' does not exist`,
  );
  const attachments = ok(await call(a, "GET", "/api/v1/attachments"), "attachments").attachments as Array<{ id: number }>;
  check(!attachments.some((x) => b.attachmentIds.includes(x.id)), `LEAK attachments as ${a.label}`);
  for (const id of b.attachmentIds) {
    refused(await call(a, "DELETE", `/api/v1/attachments/${id}`), `deleting ${b.stringId}'s attachment as ${a.label}`, 400, "Invalid attachment");
  }
  refused(
    await call(a, "PATCH", `/api/v1/drafts/${b.draftId}`, {
      draft: JSON.stringify({ type: "stream", to: [a.org.channels.public], topic: "x", content: "taken over", timestamp: 1 }),
    }),
    `editing ${b.stringId}'s draft as ${a.label}`,
    404,
    "Draft does not exist",
  );
  refused(await call(a, "DELETE", `/api/v1/drafts/${b.draftId}`), `deleting ${b.stringId}'s draft as ${a.label}`, 404, "Draft does not exist");
  refused(
    await call(a, "PATCH", `/api/v1/saved_snippets/${b.snippetId}`, { title: "taken over" }),
    `editing ${b.stringId}'s snippet as ${a.label}`,
    404,
    "Saved snippet does not exist.",
  );
  refused(
    await call(a, "DELETE", `/api/v1/saved_snippets/${b.snippetId}`),
    `deleting ${b.stringId}'s snippet as ${a.label}`,
    404,
    "Saved snippet does not exist.",
  );
  refused(
    await call(a, "PATCH", `/api/v1/scheduled_messages/${b.scheduledId}`, { content: "taken over" }),
    `editing ${b.stringId}'s scheduled message as ${a.label}`,
    404,
    "Scheduled message does not exist",
  );
  refused(
    await call(a, "DELETE", `/api/v1/scheduled_messages/${b.scheduledId}`),
    `deleting ${b.stringId}'s scheduled message as ${a.label}`,
    404,
    "Scheduled message does not exist",
  );
  // The text where it does not depend on the caller's role (members meet permission errors first).
  for (const [what, method, path, params, msg] of [
    ["editing the bot", "PATCH", `/api/v1/bots/${b.botId}`, { full_name: "taken over" }, "No such bot"],
    ["deleting the bot", "DELETE", `/api/v1/bots/${b.botId}`, {}, "No such bot"],
    ["regenerating the bot's key", "POST", `/api/v1/bots/${b.botId}/api_key/regenerate`, {}, "No such bot"],
    ["editing the profile field", "PATCH", `/api/v1/realm/profile_fields/${b.profileFieldId}`, { name: "taken over" }, undefined],
    ["deleting the profile field", "DELETE", `/api/v1/realm/profile_fields/${b.profileFieldId}`, {}, undefined],
    [
      "editing the linkifier",
      "PATCH",
      `/api/v1/realm/filters/${b.linkifierId}`,
      { pattern: "x(?P<id>[0-9]+)", url_template: "https://x.example/{id}" },
      undefined,
    ],
    ["deleting the linkifier", "DELETE", `/api/v1/realm/filters/${b.linkifierId}`, {}, undefined],
    ["deleting the playground", "DELETE", `/api/v1/realm/playgrounds/${b.playgroundId}`, {}, undefined],
    ["revoking the invitation", "DELETE", `/api/v1/invites/${b.inviteIds.email}`, {}, "No such invitation"],
    ["resending the invitation", "POST", `/api/v1/invites/${b.inviteIds.email}/resend`, {}, "No such invitation"],
    ["revoking the invitation link", "DELETE", `/api/v1/invites/multiuse/${b.inviteIds.multiuse}`, {}, "No such invitation"],
    ["muting a user", "POST", `/api/v1/users/me/muted_users/${b.author.id}`, {}, NO_SUCH_USER],
    ["making a default channel", "POST", "/api/v1/default_streams", { stream_id: b.channels.public }, undefined],
    [
      "inviting to a channel",
      "POST",
      "/api/v1/invites",
      { invitee_emails: "new@example.com", stream_ids: JSON.stringify([b.channels.public]), invite_expires_in_minutes: 60 },
    ],
    [
      "an invitation link to a channel",
      "POST",
      "/api/v1/invites/multiuse",
      { stream_ids: JSON.stringify([b.channels.public]), invite_expires_in_minutes: 60 },
      undefined,
    ],
    ["adding a subgroup", "POST", `/api/v1/user_groups/${a.org.groupId}/subgroups`, { add: JSON.stringify([b.groupId]) }, undefined],
    ["adding a member", "POST", `/api/v1/user_groups/${a.org.groupId}/members`, { add: JSON.stringify([b.author.id]) }, undefined],
    ["asking membership", "GET", `/api/v1/user_groups/${a.org.groupId}/members/${b.author.id}`, {}, NO_SUCH_USER],
    ["a group setting", "PATCH", `/api/v1/streams/${a.org.channels.public}`, { can_subscribe_group: JSON.stringify({ new: b.groupId }) }, undefined],
    ["moving an own message there", "PATCH", `/api/v1/messages/${a.org.messages.public}`, { stream_id: b.channels.public }, INVALID_CHANNEL],
    ["the channel's email address", "GET", `/api/v1/streams/${b.channels.public}/email_address`, {}, INVALID_CHANNEL],
    ["deleting a topic", "POST", `/api/v1/streams/${b.channels.public}/delete_topic`, { topic_name: "x" }, undefined],
    ["marking the channel read", "POST", "/api/v1/mark_stream_as_read", { stream_id: b.channels.public }, INVALID_CHANNEL],
    ["marking a topic read", "POST", "/api/v1/mark_topic_as_read", { stream_id: b.channels.public, topic_name: "x" }, INVALID_CHANNEL],
    ["a submessage", "POST", "/api/v1/submessage", { message_id: b.messages.public, msg_type: "widget", content: "{}" }, INVALID_MESSAGE],
  ] as const) {
    refused(await call(a, method, path, params as Params), `${what} of ${b.stringId} as ${a.label}`, msg === undefined ? "4xx" : 400, msg);
  }
  if (a === a.org.admin) {
    const consents = ok(await call(a, "GET", "/api/v1/export/realm/consents"), "consents").export_consents as Array<{ user_id: number }>;
    check(!consents.some((c) => [b.owner, b.admin, b.author, b.observer].some((u) => u.id === c.user_id)), `LEAK export consents as ${a.label}`);
    ok(await call(a, "GET", "/api/v1/invites"), "invites");
    ok(await call(a, "GET", "/api/v1/export/realm"), "exports");
  }
  const presence = ok(await call(a, "GET", "/api/v1/realm/presence"), "presence").presences as Record<string, unknown>;
  // Keyed by address: the one both organizations have is this organization's user's.
  const foreignIds = new Set([b.owner, b.admin, b.author, b.observer].flatMap((u) => [String(u.id), ...(u.email === a.org.observer.email ? [] : [u.email])]));
  check(!Object.keys(presence).some((key) => foreignIds.has(key)), `LEAK realm presence as ${a.label}: ${Object.keys(presence)}`);
  const rendered = ok(await call(a, "POST", "/api/v1/messages/render", { content: `@**Someone|${b.author.id}** #**x|${b.channels.public}**` }), "render");
  check(
    !rendered.rendered.includes(`data-user-id="${b.author.id}"`) && !rendered.rendered.includes(`data-stream-id="${b.channels.public}"`),
    `render of ${b.stringId}'s user and channel as ${a.label}: ${rendered.rendered}`,
  );
  // Another organization's event queue is "missing", for reading and deleting alike.
  for (const queue of b.queues.values()) {
    refused(
      await call(a, "GET", "/api/v1/events", { queue_id: queue.id, last_event_id: -1, dont_block: true }),
      `reading ${b.stringId}'s queue as ${a.label}`,
      400,
      `Bad event queue ID: ${queue.id}`,
      "BAD_EVENT_QUEUE_ID",
    );
    refused(
      await call(a, "DELETE", "/api/v1/events", { queue_id: queue.id }),
      `deleting ${b.stringId}'s queue as ${a.label}`,
      400,
      `Bad event queue ID: ${queue.id}`,
      "BAD_EVENT_QUEUE_ID",
    );
  }
}

/** File and avatar URLs of the other organization, with the caller's credentials on its own host. */
async function probeFiles(a: Actor, b: Org): Promise<void> {
  for (const url of [b.fileUrl, b.webFileUrl, b.unsentFileUrl]) {
    for (const path of [url, url.replace("/user_uploads/", "/user_uploads/download/")]) {
      const res = await raw(a.org, a, path);
      check(res.status === 404 || res.status === 403, `file ${path} of ${b.stringId} as ${a.label}: ${res.status}`);
    }
    // The same path under the caller's own organization's id finds nothing either.
    const moved = url.replace(`/user_uploads/${b.realmId}/`, `/user_uploads/${a.org.realmId}/`);
    const res = await raw(a.org, a, moved);
    check(res.status === 404 || res.status === 403, `file ${moved} (other organization's path, own id) as ${a.label}: ${res.status}`);
    refused(await call(a, "GET", `/api/v1${url}`), `temporary URL of ${b.stringId}'s file as ${a.label}`, 404, "File not found.");
  }
  for (const path of [`/user_avatars/${b.realmId}/${b.author.id}.png`, `/user_avatars/${a.org.realmId}/${b.author.id}.png`]) {
    const res = await raw(a.org, a, path);
    check(res.status === 404, `avatar ${path} as ${a.label}: ${res.status}`);
  }
  // Visitors of this organization's host: only its own web-public files.
  const visitor = await raw(a.org, null, b.webFileUrl);
  check(visitor.status === 401 || visitor.status === 404, `visitor of ${a.org.stringId} read ${b.stringId}'s web-public file: ${visitor.status}`);
}

/** A visitor (no credentials) of this organization's host: its web-public channel only. */
async function probeVisitor(org: Org, b: Org): Promise<void> {
  const visitorCall = async (path: string, params: Params, method = "GET") => {
    const res = await t.request(method, null, path, params, { host: org.host });
    seen.push({ org, where: `visitor of ${org.stringId}: ${method} ${path}`, request: path + JSON.stringify(params), response: JSON.stringify(res.body) });
    return res;
  };
  const web = (channel: number) => [
    { operator: "channel", operand: channel },
    { operator: "channels", operand: "web-public" },
  ];
  const own = await visitorCall("/api/v1/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: JSON.stringify(web(org.channels.web)) });
  const ownIds = (ok(own, `visitor of ${org.stringId}`).messages as Array<{ id: number }>).map((m) => m.id);
  check(ownIds.includes(org.messages.web), `visitor of ${org.stringId} does not see its web-public message`);
  const theirs = await visitorCall("/api/v1/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: JSON.stringify(web(b.channels.web)) });
  if (theirs.status === 200) {
    const ids = (theirs.body.messages as Array<{ id: number }>).map((m) => m.id);
    check(!ids.some((id) => b.messageIds.includes(id)), `LEAK visitor of ${org.stringId} read ${b.stringId}'s web-public channel`);
  } else {
    refused(theirs, `visitor of ${org.stringId} narrowing to ${b.stringId}'s web-public channel`, "4xx");
  }
  const all = await visitorCall("/api/v1/messages", {
    anchor: "newest",
    num_before: 100,
    num_after: 0,
    narrow: JSON.stringify([{ operator: "channels", operand: "web-public" }]),
  });
  if (all.status === 200) {
    const ids = (all.body.messages as Array<{ id: number }>).map((m) => m.id);
    check(!ids.some((id) => b.messageIds.includes(id)), `LEAK visitor of ${org.stringId}: channels:web-public shows ${b.stringId}'s messages`);
  }
  refused(await visitorCall(`/api/v1/messages/${b.messages.web}`, {}), `visitor of ${org.stringId} reading ${b.stringId}'s web-public message`, "4xx");
  for (const path of ["/archive/", `/archive/channel/${b.channels.web}/`, `/archive/channel/${org.channels.web}/`]) await raw(org, null, path);
  // What clients read before logging in describes the organization of the host.
  const settings = JSON.parse((await raw(org, null, "/api/v1/server_settings")).text);
  check(settings.realm_name === org.realmName, `server_settings on ${org.host} names ${settings.realm_name}`);
  ok(await visitorCall("/api/v1/register", {}, "POST"), "visitor register");
}

// ---------------------------------------------------------------------------------------------

describe("two organizations on one server", () => {
  beforeAll(async () => {
    await setUpZulip();
    // Zulip's queues listen before the second organization even exists.
    await registerQueues(zulip);
    await setUpAcme();
    await registerQueues(acme);
    await fillOrganization(zulip);
    await fillOrganization(acme);
  }, 120_000);

  it("each organization's users read only their own organization's messages", async () => {
    for (const [org, b] of [
      [zulip, acme],
      [acme, zulip],
    ] as const) {
      for (const a of [org.observer, org.admin, org.owner]) await probeMessages(a, b);
      await probeMentions(org.author, b);
    }
    // The test can fail: each organization's own messages are there.
    for (const org of [zulip, acme]) {
      const body = ok(await call(org.observer, "GET", "/api/v1/messages", { anchor: "newest", num_before: 200, num_after: 0, narrow: "[]" }), "own messages");
      const ids = (body.messages as Array<{ id: number }>).map((m) => m.id);
      expect(ids).toEqual(expect.arrayContaining([org.messages.public, org.messages.private, org.messages.dm, org.messages.groupDm]));
    }
    expect(problems.splice(0)).toEqual([]);
  }, 300_000);

  it("users, channels, groups, emoji, files, drafts and queues of the other organization do not exist", async () => {
    for (const [org, b] of [
      [zulip, acme],
      [acme, zulip],
    ] as const) {
      for (const a of [org.observer, org.admin]) {
        await probeUsers(a, b);
        await probeChannels(a, b);
        await probeOrganizationData(a, b);
        await probeFiles(a, b);
      }
      await probeVisitor(org, b);
    }
    // The owner of each file and avatar reads it on the own organization's host (the test can fail).
    for (const org of [zulip, acme]) {
      const file = await raw(org, org.author, org.fileUrl);
      expect(file.status).toBe(200);
      expect(await raw(org, org.observer, `/user_avatars/${org.realmId}/${org.author.id}.png`)).toMatchObject({ status: 200 });
      expect(await raw(org, null, org.webFileUrl)).toMatchObject({ status: 200 });
    }
    expect(problems.splice(0)).toEqual([]);
  }, 300_000);

  it("subscribing to a channel name only the other organization has creates a channel of one's own", async () => {
    await probeSubscribeByName(zulip.observer, acme);
    await probeSubscribeByName(acme.observer, zulip);
    expect(problems.splice(0)).toEqual([]);
  });

  it("the other organization's attempts changed nothing", async () => {
    for (const org of [zulip, acme]) {
      const message = ok(await call(org.author, "GET", `/api/v1/messages/${org.messages.private}`), "message").message;
      expect(message.content).toContain("private ");
      expect(message.subject).toMatch(/^topic /);
      const history = ok(await call(org.author, "GET", `/api/v1/messages/${org.messages.public}/history`), "history").message_history;
      expect(history).toHaveLength(2);
      const reactions = ok(await call(org.author, "GET", `/api/v1/messages/${org.messages.dm}`), "dm").message.reactions as unknown[];
      expect(reactions).toHaveLength(1);
      const channel = ok(await call(org.author, "GET", `/api/v1/streams/${org.channels.public}`), "channel").stream;
      expect(channel.description).toMatch(/^described /);
      const emoji = ok(await call(org.author, "GET", "/api/v1/realm/emoji"), "emoji").emoji as Record<string, { name: string; deactivated: boolean }>;
      expect(Object.values(emoji).some((e) => e.name === org.emojiName && !e.deactivated)).toBe(true);
      const me = ok(await call(org.author, "GET", "/api/v1/users/me"), "me");
      expect(me.full_name).toMatch(/^Author /);
      expect(ok(await call(org.author, "GET", "/api/v1/drafts"), "drafts").drafts).toHaveLength(1);
      expect(ok(await call(org.author, "GET", "/api/v1/saved_snippets"), "snippets").saved_snippets).toHaveLength(1);
      expect(ok(await call(org.author, "GET", "/api/v1/scheduled_messages"), "scheduled").scheduled_messages).toHaveLength(1);
      const group = ok(await call(org.admin, "GET", `/api/v1/user_groups/${org.groupId}/members`), "group members").members as number[];
      expect(group.sort()).toEqual([org.author.id, org.observer.id].sort());
      for (const a of [org.owner, org.admin, org.observer]) ok(await call(a, "GET", "/api/v1/users/me"), `${a.label} still active`);
      const bots = ok(await call(org.author, "GET", "/api/v1/bots"), "bots").bots as Array<{ user_id: number; full_name: string }>;
      expect(bots.find((bot) => bot.user_id === org.botId)?.full_name).toMatch(/^Bot /);
      const fields = ok(await call(org.admin, "GET", "/api/v1/realm/profile_fields"), "fields").custom_fields as Array<{ id: number; name: string }>;
      expect(fields.find((f) => f.id === org.profileFieldId)?.name).toMatch(/^field /);
      const linkifiers = ok(await call(org.admin, "GET", "/api/v1/realm/linkifiers"), "linkifiers").linkifiers as Array<{ id: number; pattern: string }>;
      expect(linkifiers.find((l) => l.id === org.linkifierId)?.pattern).toMatch(/^[az]mk/);
      const invites = ok(await call(org.admin, "GET", "/api/v1/invites"), "invites").invites as Array<{ id: number }>;
      expect(invites.map((i) => i.id)).toEqual(expect.arrayContaining([org.inviteIds.email, org.inviteIds.multiuse]));
      const defaults = ok(
        await call(org.admin, "POST", "/api/v1/register", { fetch_event_types: JSON.stringify(["default_streams", "realm_playgrounds"]) }),
        "state",
      );
      expect(defaults.realm_default_streams).toEqual(expect.arrayContaining([org.channels.public]));
      expect(defaults.realm_playgrounds.map((x: { id: number }) => x.id)).toContain(org.playgroundId);
    }
  });

  // Credentials are bound to their organization's host (http/auth.ts checkHost): another
  // organization's host, the bare root domain and a host naming no organization all refuse them.
  it("credentials work only on their own organization's host", async () => {
    for (const org of [zulip, acme]) {
      for (const a of [org.owner, org.admin, org.observer]) {
        for (const host of [other(org).host, ROOT_DOMAIN, `nosuch.${ROOT_DOMAIN}`]) {
          const res = await t.request("GET", null, "/api/v1/users/me", {}, { host, headers: { Authorization: basicAuth(a.email, a.apiKey) } });
          refused(res, `${a.label}'s key on ${host}`, 401, "Account is not associated with this subdomain");
          const file = await fetchWithHost(t.baseUrl + org.fileUrl, host, { headers: { Authorization: basicAuth(a.email, a.apiKey) } });
          check(file.status === 401, `${a.label}'s key on ${host} read its own organization's file: ${file.status}`);
        }
      }
    }
    expect(problems.splice(0)).toEqual([]);
  });

  it("no answer or event an organization's users received names anything of the other organization", async () => {
    for (const org of [zulip, acme]) {
      for (const a of org.queues.keys()) await drainQueue(org, a);
      // A fresh client's whole initial state.
      for (const a of [org.observer, org.admin]) await call(a, "POST", "/api/v1/register", { apply_markdown: true, include_subscribers: true });
    }
    const leaks: string[] = [];
    for (const entry of seen) {
      const theirs = other(entry.org).tokens;
      for (const match of entry.response.matchAll(MARKER)) {
        if (theirs.has(match[0]) && !entry.request.includes(match[0])) leaks.push(`LEAK ${entry.where}: ${match[0]} in ${entry.response.slice(0, 200)}`);
      }
    }
    for (const org of [zulip, acme]) {
      const theirs = other(org).tokens;
      const foreignIds = new Set(other(org).messageIds);
      for (const [a, queue] of org.queues) {
        const text = JSON.stringify(queue.events);
        for (const match of text.matchAll(MARKER)) if (theirs.has(match[0])) leaks.push(`LEAK events of ${a.label}: ${match[0]}`);
        for (const event of queue.events as Array<{ type: string; message?: { id: number }; message_id?: number; messages?: number[] }>) {
          const ids = [event.message?.id, event.message_id, ...(event.messages ?? [])].filter((id): id is number => id !== undefined);
          if (ids.some((id) => foreignIds.has(id))) leaks.push(`LEAK events of ${a.label}: ${JSON.stringify(event).slice(0, 200)}`);
        }
        // The test can fail: the queue got its own organization's messages.
        const own = [...text.matchAll(MARKER)].filter((m) => org.tokens.has(m[0]));
        expect(own.length, `events of ${a.label}`).toBeGreaterThan(10);
        const types = new Set((queue.events as Array<{ type: string }>).map((e) => e.type));
        expect([...types]).toEqual(expect.arrayContaining(["message", "reaction", "update_message", "realm_user", "stream", "subscription"]));
      }
    }
    expect(seen.length).toBeGreaterThan(500);
    expect(leaks).toEqual([]);
  });
});
