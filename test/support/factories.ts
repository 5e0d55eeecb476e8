import { expect } from "vitest";
import { at } from "./at.js";
import { seedUsers, type TestUserName } from "./seed.js";
import { expectSuccess, type Params, type TestServer } from "./testApp.js";

/**
 * Factories for the objects tests need, made through the HTTP API as a client would make them (so
 * the events, caches and checks of the real path run): users, channels, messages, realm emoji, and
 * event queues. Each returns the new object's id. `who` is a seeded user's short name or an email.
 */
type Who = TestUserName | string;

/** A 1×1 PNG: the server checks an image's signature, not its pixels. */
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

/** Zulip's role codes, as POST /users/{id} takes them. */
export const ROLE = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;

let serial = 0;
const unique = (prefix: string) => `${prefix}${process.pid % 1000}x${++serial}`;

/** The id of a seeded user by short name, or a user's id as is. */
function idOf(user: TestUserName | number): number {
  return typeof user === "number" ? user : seedUsers[user].id;
}

export interface MadeUser {
  id: number;
  email: string;
  full_name: string;
}

/**
 * A new user of the zulip realm (POST /users as iago, who may create users), with `role` set by the
 * owner desdemona when it is not member. The returned email works as `who` in requests.
 */
export async function makeUser(t: TestServer, options: { role?: keyof typeof ROLE; full_name?: string; email?: string } = {}): Promise<MadeUser> {
  const email = options.email ?? `${unique("user")}@zulip.com`;
  const full_name = options.full_name ?? at(email.split("@"), 0);
  const { user_id: id } = expectSuccess(await t.post("iago", "/api/v1/users", { email, password: "parley-test-pass", full_name }));
  if (options.role && options.role !== "member") expectSuccess(await t.patch("desdemona", `/api/v1/users/${id}`, { role: ROLE[options.role] }));
  return { id, email, full_name };
}

/**
 * A new channel created by `by` (default iago) with POST /users/me/subscriptions: `subscribers`
 * (seeded names or user ids) become its subscribers, else only `by`; `extra` takes the endpoint's
 * other parameters (invite_only, history_public_to_subscribers, announce, …).
 */
export async function makeChannel(
  t: TestServer,
  options: { name?: string; by?: Who; invite_only?: boolean; description?: string; subscribers?: Array<TestUserName | number>; extra?: Params } = {},
): Promise<number> {
  const name = options.name ?? unique("channel ");
  const by = options.by ?? "iago";
  expectSuccess(
    await t.post(by, "/api/v1/users/me/subscriptions", {
      subscriptions: [options.description === undefined ? { name } : { name, description: options.description }],
      invite_only: options.invite_only,
      principals: options.subscribers?.map(idOf),
      ...options.extra,
    }),
  );
  // iago, an administrator, sees every channel (a private one whose subscribers leave out `by` too).
  const { streams } = expectSuccess(await t.get("iago", "/api/v1/streams", { include_all: true }));
  const made = (streams as Array<{ name: string; stream_id: number }>).find((s) => s.name === name);
  expect(made, `channel ${name}`).toBeDefined();
  return made!.stream_id;
}

/** Archives a channel (DELETE /streams/{id} as iago). */
export async function archiveChannel(t: TestServer, id: number): Promise<void> {
  expectSuccess(await t.delete("iago", `/api/v1/streams/${id}`));
}

/** Deactivates a user (DELETE /users/{id} as iago). */
export async function deactivateUser(t: TestServer, id: number): Promise<void> {
  expectSuccess(await t.delete("iago", `/api/v1/users/${id}`));
}

/** Sets `who`'s visibility policy of a topic (0 none, 1 muted, 2 unmuted, 3 followed) with POST /user_topics. */
export async function setTopicVisibility(t: TestServer, who: Who, channelId: number, topic: string, visibility_policy: number): Promise<void> {
  expectSuccess(await t.post(who, "/api/v1/user_topics", { stream_id: channelId, topic, visibility_policy }));
}

/** The id of a channel by name, as `who` (default iago) may see it (GET /get_stream_id). */
export async function channelId(t: TestServer, name: string, who: Who = "iago"): Promise<number> {
  return expectSuccess(await t.get(who, "/api/v1/get_stream_id", { stream: name })).stream_id;
}

/** Subscribes `who` (or, with `principals`, those users) to channels by name. */
export async function subscribe(t: TestServer, who: Who, channels: string[], principals?: Array<TestUserName | number>): Promise<void> {
  expectSuccess(await t.post(who, "/api/v1/users/me/subscriptions", { subscriptions: channels.map((name) => ({ name })), principals: principals?.map(idOf) }));
}

/** Sends a channel message (channel by name or id) as `who`; returns its id. */
export async function sendChannelMessage(
  t: TestServer,
  who: Who,
  channel: string | number,
  topic: string,
  content: string,
  extra: Params = {},
): Promise<number> {
  return expectSuccess(await t.post(who, "/api/v1/messages", { type: "stream", to: channel, topic, content, ...extra })).id;
}

/** Sends a direct message to seeded names or user ids as `who`; returns its id. */
export async function sendDirectMessage(t: TestServer, who: Who, to: Array<TestUserName | number>, content: string, extra: Params = {}): Promise<number> {
  return expectSuccess(await t.post(who, "/api/v1/messages", { type: "direct", to: to.map(idOf), content, ...extra })).id;
}

/** Adds a realm emoji `name` (a 1×1 PNG unless `image`) as `who` (default iago); returns its id. */
export async function addRealmEmoji(t: TestServer, name: string, options: { who?: Who; image?: Buffer } = {}): Promise<number> {
  expectSuccess(
    await t.upload(options.who ?? "iago", `/api/v1/realm/emoji/${encodeURIComponent(name)}`, [
      { data: options.image ?? PNG, type: "image/png", filename: `${name}.png` },
    ]),
  );
  const { emoji } = expectSuccess(await t.get("iago", "/api/v1/realm/emoji"));
  const made = Object.values(emoji as Record<string, { id: string; name: string; deactivated: boolean }>).find((e) => e.name === name && !e.deactivated);
  expect(made, `realm emoji ${name}`).toBeDefined();
  return Number(made!.id);
}

/** Uploads a file as `who` (POST /user_uploads); returns its URL (`/user_uploads/…`). */
export async function uploadFile(t: TestServer, who: Who, filename: string, data: Buffer | string, type = "text/plain"): Promise<string> {
  return expectSuccess(await t.upload(who, "/api/v1/user_uploads", [{ field: "filename", data, type, filename }])).url;
}

/** POST /register as `who`: the state and its queue. */
export async function registerQueue(t: TestServer, who: Who, params: Params = {}): Promise<any> {
  return expectSuccess(await t.post(who, "/api/v1/register", params));
}

/** The events of `who`'s queue after `lastEventId` (default: all), without waiting (dont_block). */
export async function queuedEvents(t: TestServer, who: Who, queueId: string, lastEventId = -1): Promise<any[]> {
  return expectSuccess(await t.get(who, "/api/v1/events", { queue_id: queueId, last_event_id: lastEventId, dont_block: true })).events;
}
