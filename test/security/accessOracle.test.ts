import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeHashComponent } from "../../src/contract/hash.js";
import { HTTP_ROUTES, ROUTES } from "../../src/http/routes.js";
import { uploadFile } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

/**
 * The access oracle (issue 17): an organization full of unique secret markers — in a private
 * channel with shared history, one with protected history, a public one, a web-public one, a
 * private one whose can_subscribe_group / can_add_subscribers_group give non-subscribers content
 * access (and the protected one's can_subscribe_group too), DMs, a group DM,
 * uploaded files (names and contents), edit histories (a marker edited out), messages moved
 * between private and public channels, private channel names and descriptions, a draft, a
 * scheduled message — is read by every observer role through every read endpoint and every
 * event its queue received while the markers were made. A small model of the read rules
 * (docs/security.md) gives, per observer and surface, the markers that MAY appear and those that MUST appear: the
 * test fails when a marker shows up where it may not, and when one is missing where it must be.
 */
const t = useTestServer();
let requestCount = 0;
const request = t.request.bind(t);
t.request = (...args) => ((requestCount += 1), request(...args));

// ---------------------------------------------------------------------------------------------
// Markers
const markers = new Map<string, string>(); // token -> marker name
const tokenOf = new Map<string, string>(); // marker name -> token
function marker(name: string): string {
  const token = "orc" + randomBytes(6).toString("hex");
  markers.set(token, name);
  tokenOf.set(name, token);
  return token;
}
const MARKER = /orc[0-9a-f]{12}/g;
function markersIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(MARKER)) {
    const name = markers.get(m[0]);
    if (name) found.add(name);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The model
type Channel = "pub" | "shared" | "prot" | "web" | "grp";
type Phase = "during" | "end";
interface ChannelSpec {
  inviteOnly: boolean;
  historyPublic: boolean;
  webPublic?: boolean;
  /** Marker names of the channel's name and description (a public channel's are not secret). */
  name?: string;
  description?: string;
  /** Users (test names) of the channel's can_subscribe_group and can_add_subscribers_group (else role:nobody). */
  canSubscribe?: string[];
  canAddSubscribers?: string[];
}
const CHANNELS: Record<Channel, ChannelSpec> = {
  pub: { inviteOnly: false, historyPublic: true },
  shared: { inviteOnly: true, historyPublic: true, name: "SHARED_NAME", description: "SHARED_DESCRIPTION" },
  // Hamlet may subscribe himself: content access, yet protected history shows him nothing he did not receive.
  prot: { inviteOnly: true, historyPublic: false, name: "PROT_NAME", description: "PROT_DESCRIPTION", canSubscribe: ["hamlet"] },
  // Every user of the organization may read it, guests included, and so may a client without
  // credentials (a visitor: Zulip's spectator, through GET /messages, /messages/{id}, /register, the
  // files its messages link, and the /archive/ pages).
  web: { inviteOnly: false, historyPublic: true, webPublic: true, name: "WEB_NAME", description: "WEB_DESCRIPTION" },
  // Content access through the groups: Hamlet (can_subscribe_group) and Prospero
  // (can_add_subscribers_group); the guest Polonius is in can_subscribe_group but guests never hold it.
  grp: {
    inviteOnly: true,
    historyPublic: true,
    name: "GRP_NAME",
    description: "GRP_DESCRIPTION",
    canSubscribe: ["hamlet", "polonius"],
    canAddSubscribers: ["prospero"],
  },
};

interface Observer {
  key: string;
  /** Test user name or bot email; null for a client without credentials. */
  who: string | null;
  role: "owner" | "admin" | "moderator" | "member" | "guest" | "bot" | "spectator";
  incomingWebhook?: boolean;
  deactivatedAtEnd?: boolean;
  id?: number;
}

const OBSERVERS: Observer[] = [
  { key: "author (member, in every channel)", who: "othello", role: "member" },
  { key: "owner", who: "desdemona", role: "owner" },
  { key: "admin (subscribed to the shared-history channel)", who: "iago", role: "admin" },
  { key: "unsubscribed admin", who: "ZOE", role: "admin" },
  { key: "moderator (subscribed to the protected channel afterwards)", who: "shiva", role: "moderator" },
  { key: "member (subscribed to the shared channel afterwards)", who: "hamlet", role: "member" },
  { key: "member (in the protected channel, DM and group DM)", who: "cordelia", role: "member" },
  { key: "guest (shared channel, group DM)", who: "polonius", role: "guest" },
  { key: "removed subscriber", who: "prospero", role: "member" },
  { key: "deactivated user", who: "aaron", role: "member", deactivatedAtEnd: true },
  { key: "generic bot (in the shared channel)", who: "", role: "bot" },
  { key: "incoming webhook bot", who: "", role: "bot", incomingWebhook: true },
  { key: "outgoing webhook bot", who: "", role: "bot" },
  { key: "embedded bot", who: "", role: "bot" },
  { key: "spectator (no credentials)", who: null, role: "spectator" },
];
const obs = (who: string) => OBSERVERS.find((o) => o.who === who)!;
const GENERIC_BOT = at(OBSERVERS, 10);
const INCOMING_BOT = at(OBSERVERS, 11);
const OUTGOING_BOT = at(OBSERVERS, 12);
const EMBEDDED_BOT = at(OBSERVERS, 13);

/** Subscribers while the markers are made, and at the end (after the membership changes). */
const MEMBERS: Record<Phase, Record<Channel, Set<Observer>>> = {
  during: {
    pub: new Set([obs("othello"), obs("iago"), obs("cordelia")]),
    shared: new Set([obs("othello"), obs("iago"), obs("polonius"), obs("prospero"), obs("aaron"), GENERIC_BOT]),
    prot: new Set([obs("othello"), obs("cordelia"), obs("prospero"), obs("aaron")]),
    web: new Set([obs("othello"), obs("cordelia")]),
    grp: new Set([obs("othello"), obs("iago")]),
  },
  end: {
    pub: new Set([obs("othello"), obs("iago"), obs("cordelia")]),
    shared: new Set([obs("othello"), obs("iago"), obs("polonius"), obs("hamlet"), GENERIC_BOT]),
    prot: new Set([obs("othello"), obs("cordelia"), obs("shiva")]),
    web: new Set([obs("othello"), obs("cordelia")]),
    grp: new Set([obs("othello"), obs("iago")]),
  },
};
const FORMER: Record<Channel, Set<Observer>> = {
  pub: new Set(),
  shared: new Set([obs("prospero")]),
  prot: new Set([obs("prospero")]),
  web: new Set(),
  grp: new Set(),
};

type Place = { channel: Channel; topic?: string } | { dm: Set<Observer> };
interface ModelMessage {
  key: string;
  id?: number;
  place: Place;
  /** Where it was before a move (the move happens while the queues listen). */
  movedFrom?: Place;
  /** Marker names of the current content (a file link carries the file's name). */
  content: string[];
  /** Marker names only in earlier versions (edited out). */
  old: string[];
  /** Who received it when it was sent (user_messages rows). */
  receivedAtSend: Set<Observer>;
  /** Who holds a user_messages row at the end (a move into a protected channel adds its subscribers). */
  receivedAtEnd: Set<Observer>;
  sentAtEnd?: boolean;
}
interface ModelFile {
  name: string;
  data: string;
  linkedFrom?: ModelMessage;
  url?: string;
}

const isActive = (o: Observer, phase: Phase) => o.role !== "spectator" && !o.incomingWebhook && !(phase === "end" && o.deactivatedAtEnd);
const isVisitor = (o: Observer) => o.role === "spectator";
const isAdmin = (o: Observer) => o.role === "owner" || o.role === "admin";

/**
 * Zulip's has_content_access (zerver/lib/streams.py): web-public channels for every user of the
 * organization; subscribers; non-guests for public channels and, for private ones, members of
 * can_subscribe_group or can_add_subscribers_group (groups whose setting guests can never hold).
 * A visitor: web-public channels only.
 */
function contentAccess(o: Observer, channel: Channel, phase: Phase): boolean {
  const spec = CHANNELS[channel];
  if (isVisitor(o)) return spec.webPublic === true;
  if (spec.webPublic || MEMBERS[phase][channel].has(o)) return true;
  if (o.role === "guest") return false;
  const inGroups = [...(spec.canSubscribe ?? []), ...(spec.canAddSubscribers ?? [])].includes(o.who ?? "");
  return !spec.inviteOnly || inGroups;
}
function metadataAccess(o: Observer, channel: Channel, phase: Phase): boolean {
  return contentAccess(o, channel, phase) || isAdmin(o);
}
function readableAt(o: Observer, place: Place, received: Set<Observer>, phase: Phase): boolean {
  if (!isActive(o, phase) && !isVisitor(o)) return false;
  if ("dm" in place) return place.dm.has(o);
  if (!contentAccess(o, place.channel, phase)) return false;
  return CHANNELS[place.channel].historyPublic || received.has(o);
}
const readable = (o: Observer, m: ModelMessage) => readableAt(o, m.place, m.receivedAtEnd, "end");
/** For the routes only users may call (a visitor gets 401 there). */
const readableByUser = (o: Observer, m: ModelMessage) => !isVisitor(o) && readable(o, m);
/** Whether `o` could read `m` at some moment while its queue listened. */
function readableWhileListening(o: Observer, m: ModelMessage): boolean {
  if (m.sentAtEnd) return readable(o, m);
  return (
    (m.movedFrom !== undefined && readableAt(o, m.movedFrom, m.receivedAtSend, "during")) ||
    readableAt(o, m.place, m.movedFrom ? m.receivedAtEnd : m.receivedAtSend, "during") ||
    readable(o, m)
  );
}
const channelName = (place: Place) => ("channel" in place ? CHANNELS[place.channel].name : undefined);
/** What a message payload shows: content, topic, channel name. */
function payloadMarkers(m: ModelMessage): string[] {
  return [...m.content, ...("channel" in m.place && m.place.topic ? [m.place.topic] : []), ...[channelName(m.place)].filter((x): x is string => !!x)];
}
function topicMarker(m: ModelMessage): string[] {
  return "channel" in m.place && m.place.topic ? [m.place.topic] : [];
}

// ---------------------------------------------------------------------------------------------
// The fixture
const messages: ModelMessage[] = [];
const files: ModelFile[] = [];
const channelIds = {} as Record<Channel, number>;
const channelNames = {} as Record<Channel, string>;
const queues = new Map<Observer, { id: string; events: string }>();

function idOf(o: Observer): number {
  return o.id!;
}

async function send(m: ModelMessage, content: string): Promise<number> {
  const params =
    "dm" in m.place
      ? { type: "private", to: JSON.stringify([...m.place.dm].filter((o) => o.who !== "othello").map(idOf)), content }
      : { type: "stream", to: String(channelIds[m.place.channel]), topic: m.place.topic ? tok(m.place.topic) : "plain topic", content };
  const id = expectSuccess(await t.post("othello", "/api/v1/messages", params)).id as number;
  m.id = id;
  messages.push(m);
  return id;
}
function channelMessage(key: string, channel: Channel, content: string[], topic?: string, old: string[] = []): ModelMessage {
  const receivedAtSend = new Set(MEMBERS.during[channel]);
  return { key, place: { channel, topic }, content, old, receivedAtSend, receivedAtEnd: receivedAtSend };
}
const tok = (...names: string[]) => names.map((n) => tokenOf.get(n) ?? marker(n)).join(" ");

async function upload(file: ModelFile): Promise<string> {
  file.url = await uploadFile(t, "othello", `${tokenOf.get(file.name)}.txt`, tokenOf.get(file.data)!);
  files.push(file);
  return file.url;
}

async function buildFixture(): Promise<void> {
  for (const o of OBSERVERS) if (o.who) o.id = (await t.user(o.who)).id;
  // Bots (of hamlet): generic, incoming webhook, outgoing webhook, embedded.
  const botSpecs: Array<[Observer, Record<string, unknown>]> = [
    [GENERIC_BOT, { full_name: "Oracle generic", short_name: "oracle-generic", bot_type: 1 }],
    [INCOMING_BOT, { full_name: "Oracle incoming", short_name: "oracle-incoming", bot_type: 2 }],
    [
      OUTGOING_BOT,
      { full_name: "Oracle outgoing", short_name: "oracle-outgoing", bot_type: 3, payload_url: JSON.stringify("http://127.0.0.1:9/hook"), interface_type: 1 },
    ],
    [EMBEDDED_BOT, { full_name: "Oracle embedded", short_name: "oracle-embedded", bot_type: 4, service_name: "helloworld" }],
  ];
  for (const [bot, params] of botSpecs) {
    const created = expectSuccess(await t.post("hamlet", "/api/v1/bots", params as never));
    bot.id = created.user_id;
    const row = await t.ctx.db.kysely.selectFrom("users").select("delivery_email").where("id", "=", created.user_id).executeTakeFirstOrThrow();
    bot.who = row.delivery_email;
  }
  expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_read_receipts: true }));
  // ZOE becomes an administrator with no subscriptions.
  expectSuccess(await t.patch("desdemona", `/api/v1/users/${obs("ZOE").id}`, { role: 200 }));

  const nobody = await t.systemGroupId("role:nobody");
  // Web-public channels need spectator access on, and are created by owners (Zulip's defaults).
  expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: true }));
  const groupOf = async (name: string, users: string[] | undefined): Promise<number> => {
    if (!users) return nobody;
    const members = await Promise.all(users.map(async (u) => (await t.user(u)).id));
    expectSuccess(await t.post("desdemona", "/api/v1/user_groups/create", { name, description: "oracle", members: JSON.stringify(members) }));
    const groups = expectSuccess(await t.get("desdemona", "/api/v1/user_groups")).user_groups as Array<{ id: number; name: string }>;
    return groups.find((g) => g.name === name)!.id;
  };
  channelNames.pub = "oracle public";
  for (const channel of ["pub", "shared", "prot", "web", "grp"] as const) {
    const spec = CHANNELS[channel];
    if (spec.name) channelNames[channel] = tok(spec.name);
    expectSuccess(
      await t.post(spec.webPublic ? "desdemona" : "othello", "/api/v1/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: channelNames[channel], description: spec.description ? tok(spec.description) : "a public channel" }]),
        principals: JSON.stringify([...MEMBERS.during[channel]].map(idOf)),
        invite_only: spec.inviteOnly,
        is_web_public: spec.webPublic === true,
        history_public_to_subscribers: spec.historyPublic,
        can_add_subscribers_group: await groupOf(`oracle adders ${channel}`, spec.canAddSubscribers),
        can_subscribe_group: await groupOf(`oracle subscribers ${channel}`, spec.canSubscribe),
      }),
    );
    channelIds[channel] = expectSuccess(await t.get("othello", "/api/v1/get_stream_id", { stream: channelNames[channel] })).stream_id;
  }
}

async function registerQueues(): Promise<void> {
  for (const o of OBSERVERS) {
    const res = await t.post(o.who, "/api/v1/register", { apply_markdown: false });
    if (o.incomingWebhook) {
      expect(res.status).toBe(401);
      continue;
    }
    // A visitor gets the initial state and a visitor's queue (src/events/visitorQueues.ts), polled without credentials.
    queues.set(o, { id: expectSuccess(res).queue_id, events: "" });
  }
}

async function drainQueue(o: Observer): Promise<void> {
  const queue = queues.get(o)!;
  let last = -1;
  for (;;) {
    const body = expectSuccess(await t.get(o.who, "/api/v1/events", { queue_id: queue.id, last_event_id: last, dont_block: true }));
    const real = body.events.filter((e: { type: string }) => e.type !== "heartbeat");
    if (real.length === 0) return;
    queue.events += JSON.stringify(real);
    last = Math.max(...body.events.map((e: { id: number }) => e.id));
  }
}

async function makeMarkers(): Promise<void> {
  const d = MEMBERS.during;
  await send(channelMessage("public", "pub", ["PUB_MSG"]), tok("PUB_MSG"));
  await send(channelMessage("shared", "shared", ["SHARED_MSG"], "SHARED_TOPIC"), tok("SHARED_MSG"));
  await send(channelMessage("protected", "prot", ["PROT_MSG"], "PROT_TOPIC"), tok("PROT_MSG"));
  await send(channelMessage("web-public", "web", ["WEB_MSG"], "WEB_TOPIC"), tok("WEB_MSG"));
  await send(channelMessage("group access", "grp", ["GRP_MSG"], "GRP_TOPIC"), tok("GRP_MSG"));
  const dm: ModelMessage = {
    key: "dm",
    place: { dm: new Set([obs("othello"), obs("cordelia")]) },
    content: ["DM_MSG"],
    old: [],
    receivedAtSend: new Set([obs("othello"), obs("cordelia")]),
    receivedAtEnd: new Set([obs("othello"), obs("cordelia")]),
  };
  await send(dm, tok("DM_MSG"));
  const groupMembers = new Set([obs("othello"), obs("cordelia"), obs("polonius")]);
  await send(
    { key: "group dm", place: { dm: groupMembers }, content: ["GROUP_DM_MSG"], old: [], receivedAtSend: groupMembers, receivedAtEnd: groupMembers },
    tok("GROUP_DM_MSG"),
  );

  // Edits: a marker edited out (only the edit history and the events of the time show it).
  for (const [channel, prefix, topic] of [
    ["prot", "PROT", "PROT_TOPIC"],
    ["shared", "SHARED", "SHARED_TOPIC"],
  ] as const) {
    const m = channelMessage(`edited (${channel})`, channel, [`${prefix}_EDIT_NEW`], topic, [`${prefix}_EDIT_OLD`]);
    await send(m, tok(`${prefix}_EDIT_OLD`));
    expectSuccess(await t.patch("othello", `/api/v1/messages/${m.id}`, { content: "edited " + tok(`${prefix}_EDIT_NEW`) }));
  }

  // Moves: private (shared history) to public, public to private (protected history).
  const toPublic = channelMessage("moved to public", "shared", ["MOVED_TO_PUBLIC"]);
  await send(toPublic, tok("MOVED_TO_PUBLIC"));
  const toPrivate = channelMessage("moved to protected", "pub", ["MOVED_TO_PROTECTED"]);
  await send(toPrivate, tok("MOVED_TO_PROTECTED"));
  for (const [m, to] of [
    [toPublic, "pub"],
    [toPrivate, "prot"],
  ] as const) {
    // No notification-bot messages: Zulip's "moved here from #**channel>topic**" names the old channel.
    expectSuccess(
      await t.patch("othello", `/api/v1/messages/${m.id}`, {
        stream_id: channelIds[to],
        send_notification_to_old_thread: false,
        send_notification_to_new_thread: false,
      }),
    );
    m.movedFrom = m.place;
    m.place = { channel: to };
    // Zulip's do_update_message: subscribers of the old channel who are not in the new one lose
    // their rows; a protected destination gives its subscribers rows (user_ids_gaining_usermessages).
    m.receivedAtEnd = to === "prot" ? new Set(d.prot) : new Set([...m.receivedAtSend].filter((o) => d[to].has(o)));
  }

  // Files: linked from the protected channel, from the DM, and never sent.
  const protFile: ModelFile = { name: "FILE_PROT_NAME", data: "FILE_PROT_DATA" };
  marker(protFile.name);
  marker(protFile.data);
  const protUrl = await upload(protFile);
  protFile.linkedFrom = channelMessage("file (protected)", "prot", ["FILE_PROT_NAME"], "PROT_TOPIC");
  await send(protFile.linkedFrom, `[file](${protUrl})`);
  const dmFile: ModelFile = { name: "FILE_DM_NAME", data: "FILE_DM_DATA" };
  marker(dmFile.name);
  marker(dmFile.data);
  const dmUrl = await upload(dmFile);
  dmFile.linkedFrom = { ...dm, key: "file (dm)", content: ["FILE_DM_NAME"] };
  await send(dmFile.linkedFrom, `[file](${dmUrl})`);
  for (const channel of ["web", "grp"] as const) {
    const prefix = `FILE_${channel.toUpperCase()}`;
    const file: ModelFile = { name: `${prefix}_NAME`, data: `${prefix}_DATA` };
    marker(file.name);
    marker(file.data);
    const url = await upload(file);
    file.linkedFrom = channelMessage(`file (${channel})`, channel, [file.name], `${channel.toUpperCase()}_TOPIC`);
    await send(file.linkedFrom, `[file](${url})`);
  }
  const unsent: ModelFile = { name: "FILE_UNSENT_NAME", data: "FILE_UNSENT_DATA" };
  marker(unsent.name);
  marker(unsent.data);
  await upload(unsent);

  // The author's draft and scheduled message.
  expectSuccess(
    await t.post("othello", "/api/v1/drafts", {
      drafts: JSON.stringify([{ type: "stream", to: [channelIds.prot], topic: "draft", content: tok("DRAFT"), timestamp: Math.floor(Date.now() / 1000) }]),
    }),
  );
  expectSuccess(
    await t.post("othello", "/api/v1/scheduled_messages", {
      type: "stream",
      to: String(channelIds.prot),
      topic: "later",
      content: tok("SCHEDULED"),
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400,
    }),
  );
}

async function changeMemberships(): Promise<void> {
  // The deactivated user's queue is read before the deactivation (which deletes it).
  await drainQueue(obs("aaron"));
  expectSuccess(
    await t.post("iago", "/api/v1/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: channelNames.shared }]),
      principals: JSON.stringify([obs("hamlet").id]),
    }),
  );
  expectSuccess(
    await t.post("othello", "/api/v1/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: channelNames.prot }]),
      principals: JSON.stringify([obs("shiva").id]),
    }),
  );
  expectSuccess(
    await t.delete("iago", "/api/v1/users/me/subscriptions", {
      subscriptions: JSON.stringify([channelNames.shared, channelNames.prot]),
      principals: JSON.stringify([obs("prospero").id]),
    }),
  );
  expectSuccess(await t.delete("desdemona", `/api/v1/users/${obs("aaron").id}`));
  // After the changes: a new protected-channel message (the late subscriber gets it, the removed one not).
  const late = channelMessage("late (protected)", "prot", ["PROT_LATE"], "PROT_TOPIC");
  late.receivedAtSend = late.receivedAtEnd = new Set(MEMBERS.end.prot);
  late.sentAtEnd = true;
  await send(late, tok("PROT_LATE"));
}

// ---------------------------------------------------------------------------------------------
// Surfaces: what each observer reads, and what the model allows there.
interface Expectation {
  may: Set<string>;
  must: Set<string>;
}
interface Surface {
  name: string;
  /** The response texts (plus pseudo-markers for answers that reveal existence). */
  read: (o: Observer) => Promise<string>;
  expected: (o: Observer) => Expectation;
}

const same = (set: Iterable<string>): Expectation => ({ may: new Set(set), must: new Set(set) });
function union(...lists: Iterable<string>[]): Set<string> {
  const out = new Set<string>();
  for (const l of lists) for (const x of l) out.add(x);
  return out;
}
const channelMetadataMarkers = (c: Channel) => [CHANNELS[c].name, CHANNELS[c].description].filter((x): x is string => !!x);
/** The channels whose name and description are markers. */
const privateChannels: Channel[] = ["shared", "prot", "web", "grp"];

/**
 * Message payloads: content, topic and channel name of readable messages; `edit_history` may
 * carry earlier content (Zulip sends it when the organization allows edit history), and the
 * channel's "channel events" notice its description.
 */
function payloadExpectation(o: Observer, withNotices: boolean): Expectation {
  const readableMessages = messages.filter((m) => readable(o, m));
  const must = new Set(readableMessages.flatMap(payloadMarkers));
  const notices = withNotices
    ? privateChannels.filter((c) => (isActive(o, "end") || isVisitor(o)) && contentAccess(o, c, "end")).flatMap(channelMetadataMarkers)
    : [];
  return {
    must,
    may: union(
      must,
      readableMessages.flatMap((m) => m.old),
      notices,
    ),
  };
}

/** The uploader, and whoever may read a message that links the file (a visitor: one in the web-public channel). */
function fileVisible(o: Observer, f: ModelFile): boolean {
  if (!isActive(o, "end") && !isVisitor(o)) return false;
  return o.who === "othello" || (f.linkedFrom !== undefined && readable(o, f.linkedFrom));
}
function searchable(m: ModelMessage): string[] {
  return [...m.content, ...m.old].filter((n) => !n.startsWith("FILE_"));
}

async function text(res: Promise<{ status: number; body: unknown }>): Promise<string> {
  const r = await res;
  return JSON.stringify(r.body);
}
/** A pseudo-marker: the answer succeeded, which tells that the thing exists and is readable. */
async function succeeded(res: Promise<{ status: number }>, markerName: string): Promise<string> {
  return (await res).status === 200 ? tokenOf.get(markerName)! : "";
}
async function fileText(o: Observer, url: string): Promise<string> {
  requestCount += 1;
  const res = await fetch(t.baseUrl + url, { headers: o.who === null ? {} : { Authorization: await t.authHeader(o.who) } });
  return res.status === 200 ? await res.text() : "";
}

function surfaces(): Surface[] {
  const ids = () => messages.map((m) => m.id!);
  const s: Surface[] = [
    {
      name: "GET /messages (all, is:dm, each channel, search with and without the channel)",
      read: async (o) => {
        const get = (narrow: unknown[]) =>
          text(t.get(o.who, "/api/v1/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow: JSON.stringify(narrow) }));
        const narrows: unknown[][] = [[], [{ operator: "is", operand: "dm" }], ...Object.values(channelIds).map((c) => [{ operator: "channel", operand: c }])];
        for (const m of messages) {
          for (const n of searchable(m)) {
            narrows.push([{ operator: "search", operand: tokenOf.get(n) }]);
            if ("channel" in m.place)
              narrows.push([
                { operator: "channel", operand: channelIds[m.place.channel] },
                { operator: "search", operand: tokenOf.get(n) },
              ]);
          }
        }
        return (await Promise.all(narrows.map(get))).join("\n");
      },
      expected: (o) => payloadExpectation(o, true),
    },
    {
      name: "GET /messages/{id}",
      read: async (o) => (await Promise.all(ids().map((id) => text(t.get(o.who, `/api/v1/messages/${id}`, { apply_markdown: false }))))).join("\n"),
      expected: (o) => payloadExpectation(o, false),
    },
    {
      name: "GET /messages/{id}/history",
      read: async (o) => (await Promise.all(ids().map((id) => text(t.get(o.who, `/api/v1/messages/${id}/history`))))).join("\n"),
      expected: (o) => same(messages.filter((m) => readableByUser(o, m)).flatMap((m) => [...m.content, ...m.old, ...topicMarker(m)])),
    },
    {
      name: "GET /messages/matches_narrow (search for each marker among every message)",
      read: async (o) => {
        const words = messages.flatMap(searchable);
        const answers = words.map((n) =>
          text(
            t.get(o.who, "/api/v1/messages/matches_narrow", {
              msg_ids: JSON.stringify(ids()),
              narrow: JSON.stringify([{ operator: "search", operand: tokenOf.get(n) }]),
            }),
          ),
        );
        return (await Promise.all(answers)).join("\n");
      },
      // Zulip answers from the user's own user_messages rows; current content only is searched.
      expected: (o) => {
        const hits = messages
          .filter((m) => readable(o, m))
          .flatMap((m) =>
            m.content
              .filter((n) => !n.startsWith("FILE_"))
              .map(() => [...m.content, ...topicMarker(m)])
              .flat(),
          );
        const must = messages
          .filter((m) => readable(o, m) && m.receivedAtEnd.has(o))
          .flatMap((m) => (m.content.some((n) => !n.startsWith("FILE_")) ? [...m.content, ...topicMarker(m)] : []));
        return { may: new Set(hits), must: new Set(must) };
      },
    },
    {
      name: "GET /messages/{id}/read_receipts",
      read: async (o) =>
        (await Promise.all(messages.map((m) => succeeded(t.get(o.who, `/api/v1/messages/${m.id}/read_receipts`), at(m.content, 0))))).join("\n"),
      expected: (o) => same(messages.filter((m) => readableByUser(o, m)).map((m) => at(m.content, 0))),
    },
    {
      name: "POST /register (initial state of every kind)",
      read: (o) => text(t.post(o.who, "/api/v1/register", {})),
      expected: (o) => {
        // A visitor: the channels visitors may read, as subscriptions (Zulip's get_web_public_subs).
        if (isVisitor(o)) return same(privateChannels.filter((c) => contentAccess(o, c, "end")).flatMap(channelMetadataMarkers));
        if (!isActive(o, "end")) return same([]);
        // Names and descriptions: subscribed (subscriptions), administrators (never_subscribed;
        // a former subscriber without metadata access gets nothing, as in Zulip's
        // gather_subscriptions_helper); unread topics of readable messages; the author's draft and scheduled message.
        const must = union(
          ...privateChannels.filter((c) => metadataAccess(o, c, "end")).map(channelMetadataMarkers),
          o.who === "othello" ? ["DRAFT", "SCHEDULED"] : [],
        );
        const may = union(must, messages.filter((m) => readable(o, m)).flatMap(payloadMarkers));
        return { may, must };
      },
    },
    {
      name: "GET /users/me/subscriptions",
      read: (o) => text(t.get(o.who, "/api/v1/users/me/subscriptions", { include_subscribers: true })),
      expected: (o) => same(isActive(o, "end") ? privateChannels.filter((c) => MEMBERS.end[c].has(o)).flatMap(channelMetadataMarkers) : []),
    },
    {
      name: "GET /streams (include_all)",
      read: (o) => text(t.get(o.who, "/api/v1/streams", { include_all: true })),
      expected: (o) => same(isActive(o, "end") ? privateChannels.filter((c) => metadataAccess(o, c, "end")).flatMap(channelMetadataMarkers) : []),
    },
    {
      name: "GET /streams/{id}",
      read: async (o) => (await Promise.all(privateChannels.map((c) => text(t.get(o.who, `/api/v1/streams/${channelIds[c]}`))))).join("\n"),
      expected: (o) => same(isActive(o, "end") ? privateChannels.filter((c) => metadataAccess(o, c, "end")).flatMap(channelMetadataMarkers) : []),
    },
    {
      name: "GET /streams/{id}/members",
      read: async (o) =>
        (await Promise.all(privateChannels.map((c) => succeeded(t.get(o.who, `/api/v1/streams/${channelIds[c]}/members`), CHANNELS[c].name!)))).join("\n"),
      expected: (o) => same(isActive(o, "end") ? privateChannels.filter((c) => metadataAccess(o, c, "end")).map((c) => CHANNELS[c].name!) : []),
    },
    {
      name: "GET /users/{id}/subscriptions/{stream_id}",
      read: async (o) =>
        (
          await Promise.all(
            privateChannels.map((c) => succeeded(t.get(o.who, `/api/v1/users/${obs("othello").id}/subscriptions/${channelIds[c]}`), CHANNELS[c].name!)),
          )
        ).join("\n"),
      expected: (o) => same(isActive(o, "end") ? privateChannels.filter((c) => metadataAccess(o, c, "end")).map((c) => CHANNELS[c].name!) : []),
    },
    {
      name: "GET /get_stream_id",
      read: async (o) =>
        (await Promise.all(privateChannels.map((c) => succeeded(t.get(o.who, "/api/v1/get_stream_id", { stream: channelNames[c] }), CHANNELS[c].name!)))).join(
          "\n",
        ),
      // Zulip's access_stream_by_name needs content access; administrators' metadata access may answer too.
      expected: (o) => ({
        must: new Set(isActive(o, "end") ? privateChannels.filter((c) => contentAccess(o, c, "end")).map((c) => CHANNELS[c].name!) : []),
        may: new Set(isActive(o, "end") ? privateChannels.filter((c) => metadataAccess(o, c, "end")).map((c) => CHANNELS[c].name!) : []),
      }),
    },
    {
      name: "GET /users/me/{stream_id}/topics",
      read: async (o) => (await Promise.all(Object.values(channelIds).map((id) => text(t.get(o.who, `/api/v1/users/me/${id}/topics`))))).join("\n"),
      // Visitors list a web-public channel's topics too (Zulip's access_web_public_stream).
      expected: (o) => same(messages.filter((m) => readable(o, m)).flatMap(topicMarker)),
    },
    {
      name: "GET /user_uploads/… (file, download, temporary URL)",
      read: async (o) => {
        const parts: string[] = [];
        for (const f of files) {
          parts.push(await fileText(o, f.url!));
          parts.push(await fileText(o, f.url!.replace("/user_uploads/", "/user_uploads/download/")));
          const temporary = await t.get(o.who, "/api/v1" + f.url!);
          if (temporary.status === 200) parts.push(await fileText(o, temporary.body.url));
        }
        return parts.join("\n");
      },
      expected: (o) => same(files.filter((f) => fileVisible(o, f)).map((f) => f.data)),
    },
    {
      name: "GET /archive/… (index, every channel, every topic; server-rendered pages)",
      read: async (o) => {
        // The pages ignore credentials: every observer must see exactly what a visitor sees.
        const topics = new Set<string>();
        for (const m of messages) {
          if (!("channel" in m.place)) continue;
          const topic = m.place.topic ? tokenOf.get(m.place.topic)! : "plain topic";
          topics.add(`/archive/channel/${channelIds[m.place.channel]}/topic/${encodeHashComponent(topic)}/`);
        }
        const paths = ["/archive/", ...Object.values(channelIds).map((id) => `/archive/channel/${id}/`), ...topics];
        return (await Promise.all(paths.map((path) => fileText(o, path)))).join("\n");
      },
      expected: () => {
        const visitor = OBSERVERS.find(isVisitor)!;
        return same(union(messages.filter((m) => readable(visitor, m)).flatMap(payloadMarkers), channelMetadataMarkers("web")));
      },
    },
    {
      name: "GET /attachments",
      read: (o) => text(t.get(o.who, "/api/v1/attachments")),
      expected: (o) => same(o.who === "othello" ? files.map((f) => f.name) : []),
    },
    {
      name: "GET /drafts",
      read: (o) => text(t.get(o.who, "/api/v1/drafts")),
      expected: (o) => same(o.who === "othello" ? ["DRAFT"] : []),
    },
    {
      name: "GET /scheduled_messages",
      read: (o) => text(t.get(o.who, "/api/v1/scheduled_messages")),
      expected: (o) => same(o.who === "othello" ? ["SCHEDULED"] : []),
    },
  ];
  return s;
}

/** Events: what the observer could read at the time may appear; what was sent to it must. */
function eventExpectation(o: Observer): Expectation {
  if (o.incomingWebhook) return same([]);
  if (isVisitor(o)) {
    // A visitor's queue: the web-public channel's messages (and notices of moves into it, which
    // name where they came from), its name and description; nothing else.
    const may = union(
      messages
        .filter((m) => readableWhileListening(o, m))
        .flatMap((m) => [...payloadMarkers(m), ...m.old, ...(m.movedFrom ? [channelName(m.movedFrom)].filter((x): x is string => !!x) : [])]),
      channelMetadataMarkers("web"),
    );
    const sentToWeb = messages.filter((m) => {
      const at = m.movedFrom ?? m.place;
      return !m.sentAtEnd && "channel" in at && at.channel === "web";
    });
    const must = union(sentToWeb.flatMap((m) => (m.old.length > 0 ? m.old : m.content)));
    return { may, must };
  }
  const may = union(
    messages
      .filter((m) => readableWhileListening(o, m))
      .flatMap((m) => [...payloadMarkers(m), ...m.old, ...(m.movedFrom ? [channelName(m.movedFrom)].filter((x): x is string => !!x) : [])]),
    privateChannels.filter((c) => metadataAccess(o, c, "during") || metadataAccess(o, c, "end") || FORMER[c].has(o)).flatMap(channelMetadataMarkers),
    o.who === "othello" ? ["DRAFT", "SCHEDULED", ...files.map((f) => f.name)] : [],
  );
  const received = messages.filter((m) => (m.sentAtEnd ? isActive(o, "end") : true) && m.receivedAtSend.has(o));
  const must = union(
    // The message event: its content as sent (an edited-out marker included), topic and channel name.
    received.flatMap((m) => [
      ...(m.old.length > 0 ? m.old : m.content),
      ...("channel" in (m.movedFrom ?? m.place) ? topicMarker({ ...m, place: m.movedFrom ?? m.place }) : []),
      ...[channelName(m.movedFrom ?? m.place)].filter((x): x is string => !!x),
    ]),
    // The subscription events of the membership changes.
    o.who === "hamlet" ? channelMetadataMarkers("shared") : [],
    o.who === "shiva" ? channelMetadataMarkers("prot") : [],
    o.who === "othello" ? ["DRAFT", "SCHEDULED"] : [],
  );
  return { may, must };
}

function compare(where: string, seen: Set<string>, expected: Expectation, problems: string[]): void {
  for (const name of seen) if (!expected.may.has(name)) problems.push(`LEAK ${where}: ${name}`);
  for (const name of expected.must) if (!seen.has(name)) problems.push(`MISSING ${where}: ${name}`);
}

/** The read routes the oracle calls (the surfaces above, and GET /events for the queues). */
const READ_ROUTES = [
  "/events",
  "/messages",
  "/messages/:message_id",
  "/messages/:message_id/history",
  "/messages/matches_narrow",
  "/messages/:message_id/read_receipts",
  "/users/me/subscriptions",
  "/streams",
  "/streams/:stream_id",
  "/streams/:stream_id/members",
  "/users/:user_id_or_email/subscriptions/:stream_id",
  "/get_stream_id",
  "/users/me/:stream_id/topics",
  "/user_uploads/:realm_id_str/*",
  "/attachments",
  "/drafts",
  "/scheduled_messages",
  "/user_uploads/:realm_id/*",
  "/user_uploads/download/:realm_id/*",
  "/user_uploads/temporary/:token/:filename",
  "/archive/",
  "/archive/channel/*",
];
/** Read routes left out, and why: none returns channel content, message content, files or private channel metadata. */
const OMITTED_READ_ROUTES: Record<string, string> = {
  "/server_settings": "public server facts, no user data",
  "/realm/presence": "presence of users (user access: test/api/userAccess.test.ts)",
  "/users/:user_id_or_email/presence": "presence of one user (user access: userAccess.test.ts)",
  "/users/me": "the caller's own account",
  "/users": "users (user access: userAccess.test.ts; email visibility: emailVisibility.test.ts)",
  "/users/:user_id_or_email": "one user (userAccess.test.ts, emailVisibility.test.ts)",
  "/users/:user_id_or_email/status": "a user's status text (userStatus.test.ts)",
  "/realm/profile_fields": "the organization's profile field definitions",
  "/bots": "the caller's own bots",
  "/calls/bigbluebutton/create": "creates a call URL; reads nothing",
  "/users/me/alert_words": "the caller's own alert words",
  "/saved_snippets": "the caller's own snippets",
  "/bot_storage": "the calling bot's own storage",
  "/realm/emoji": "organization-wide custom emoji",
  "/realm/linkifiers": "organization-wide linkifiers",
  "/user_groups": "user groups (permissionMatrix.test.ts)",
  "/user_groups/:user_group_id/members": "group membership (userGroups.test.ts)",
  "/user_groups/:user_group_id/members/:user_id": "group membership (userGroups.test.ts)",
  "/user_groups/:user_group_id/subgroups": "group membership (userGroups.test.ts)",
  "/user_uploads/thumbnail/:realm_id/*": "thumbnails of images only (same authorisation as the file: uploads.test.ts); the oracle's files are text",
  "/user_avatars/:realm_id/emoji/images/:file": "custom emoji images, organization-wide",
  "/user_avatars/:realm_id/:file": "uploaded avatars, for users who may access their owner (no content; zulipLayoutImport.test.ts)",
  "/user_avatars/:realm_id/realm/icon.png": "the organization's icon, public as in Zulip (avatarUpload.test.ts)",
  "/external_content/:digest/:hex": "the media proxy: signed external URLs, no stored content",
  "/": "the web app's page",
  "/login/": "the sign-in page",
  "/accounts/login/": "a redirect",
  "/complete/github/": "GitHub's return from sign-in: a redirect or a page about the sign-in, no stored content",
  "/complete/gitlab/": "GitLab's return from sign-in: a redirect or a page about the sign-in, no stored content",
  "/complete/google/": "Google's return from sign-in: a redirect or a page about the sign-in, no stored content",
  "/static/images/authentication_backends/github-icon.png": "a sign-in button's image, the same for everyone",
  "/static/images/authentication_backends/gitlab-icon.png": "a sign-in button's image, the same for everyone",
  "/static/images/authentication_backends/googl_e-icon.png": "a sign-in button's image, the same for everyone",
  "/devlogin/": "development sign-in page",
  "/static/webapp/:file": "built assets",
  "/static/pages.css": "a style sheet",
  "/static/login.js": "the sign-in page's script, the same for everyone",
  "/calls/bigbluebutton/join": "a redirect to a call",
  "/static/generated/emoji/emoji_api.json": "emoji data",
  "/static/generated/emoji/images/emoji/unicode/zulip.png": "the :zulip: emoji's image, the same for everyone",
  "/static/generated/emoji/images-:set/:file": "Unicode emoji images from a package, the same for everyone",
  "/static/generated/emoji/:file": "emoji sprite sheets from a package, the same for everyone",
  "/health": "health check",
  "/metrics": "Prometheus figures (token)",
  "/accounts/confirm_new_email/:key": "a confirmation link (secret key)",
  "/join/:key/": "an invitation's sign-up page (secret key)",
  "/new/": "the organization sign-up form: a public page on the root domain, off by default",
  "/new/confirm/:key/": "an organization sign-up's creation form (secret key from the confirmation email)",
  "/accounts/password/reset/": "the password reset form (no user data)",
  "/accounts/password/reset/done/": "a fixed page after a reset request",
  "/accounts/password/reset/:uid/:token/": "a password reset link (secret token): shows only its own account's address",
  "/accounts/password/done/": "a fixed page after a password reset",
  "/saml/metadata.xml": "this server's SAML service provider metadata (public by design: no user data)",
  "/users/me/sessions": "the caller's own web sessions (test/auth/sessions.test.ts)",
  "/complete/oidc/": "an identity provider's redirect back (test/api/oidcLogin.test.ts)",
  "/accounts/login/subdomain/:token": "the desktop app's one-time login token (test/api/oidcLogin.test.ts)",
  "/accounts/login/social/:key": "a redirect to an identity provider (no user data; test/auth/)",
  "/accounts/login/social/:key/:idp": "a redirect to an identity provider (no user data; test/auth/)",
  "/accounts/register/social/:key": "a redirect to an identity provider (no user data; test/auth/)",
  "/accounts/register/social/:key/:idp": "a redirect to an identity provider (no user data; test/auth/)",
  "/account/two_factor/": "the signed-in user's own two-factor state (test/auth/twoFactor.test.ts)",
  "/account/two_factor/setup/": "the signed-in user's own authenticator setup (test/auth/twoFactor.test.ts)",
  "/account/two_factor/backup/tokens/": "the signed-in user's own backup codes (test/auth/twoFactor.test.ts)",
  "/account/two_factor/disable/": "the signed-in user's own two-factor form (test/auth/twoFactor.test.ts)",
  "/invites": "invitations: addresses, roles and channel ids, no content (who sees which: invitations.test.ts)",
  "/streams/:stream_id/email_address": "a channel's mail address, after the same channel access check as GET /streams/{id} (emailGateway.test.ts)",
  "/export/realm": "the list of data exports, administrators only (realmExport.test.ts)",
  "/export/realm/consents": "users' export consent flags, administrators only (realmExport.test.ts)",
  "/user_avatars/exports/:realm_id/:token/:file": "export tarballs, the organization's administrators only (realmExport.test.ts checks their contents)",
  "/integrations/": "the integrations catalog: the server's integrations, no user data (integrationPages.test.ts)",
  "/integrations/category/:category": "one category of the integrations catalog, no user data (integrationPages.test.ts)",
  "/integrations/doc/:name": "an integration's setup page, no user data (integrationPages.test.ts)",
  "/static/integrations.css": "a style sheet",
  "/static/archive.css": "a style sheet",
  "/robots.txt": "crawler rules: whether the archive is open, no user data (webPublicPages.test.ts)",
};

describe("the access oracle", () => {
  it("calls every read route or says why not", () => {
    const gets = [...ROUTES.filter((r) => r.method === "GET").map((r) => r.path), ...HTTP_ROUTES.filter((r) => r.methods.includes("GET")).map((r) => r.path)];
    const unaccounted = gets.filter((path) => !READ_ROUTES.includes(path) && !(path in OMITTED_READ_ROUTES));
    expect(unaccounted).toEqual([]);
    expect([...READ_ROUTES, ...Object.keys(OMITTED_READ_ROUTES)].filter((path) => !gets.includes(path))).toEqual([]);
  });

  it("shows every secret marker exactly where SECURITY.md allows, for every observer, endpoint and event", async () => {
    const started = Date.now();
    await buildFixture();
    await registerQueues();
    await makeMarkers();
    await changeMemberships();
    for (const o of OBSERVERS) if (queues.has(o) && !o.deactivatedAtEnd) await drainQueue(o);

    requestCount = 0;
    const problems: string[] = [];
    const all = surfaces();
    let checks = 0;
    for (const o of OBSERVERS) {
      for (const surface of all) {
        const seen = markersIn(await surface.read(o));
        compare(`${surface.name} as ${o.key}`, seen, surface.expected(o), problems);
        checks += 1;
      }
      compare(`events as ${o.key}`, markersIn(queues.get(o)?.events ?? ""), eventExpectation(o), problems);
    }
    // The test can fail both ways: the author must see every marker, others must see some.
    const authorSeen = union(...all.map((s) => s.expected(obs("othello")).must));
    expect(authorSeen.size).toBeGreaterThan(20);
    expect(problems).toEqual([]);
    const requests = requestCount;
    console.log(
      `access oracle: ${markers.size} markers, ${OBSERVERS.length} observers × ${all.length} endpoints (+ events) = ${checks} checks, ` +
        `${requests} requests, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 300_000);
});
