import { VisibilityPolicy } from "../../src/contract/constants.js";
import type { MessagePayload, Reaction as ReactionPayload, SubscriptionPayload, UserPayload } from "../../src/contract/payloads.js";
import type { UserGroupPayload } from "../../src/contract/register.js";
import type { Submessage } from "./widgets.js";
import { signal } from "@preact/signals";
import { myUserId } from "./api.js";
import type { Lookup, Route } from "./hash.js";
import { type Conversation, dmPeople, UnreadIndex } from "./unread.js";

/**
 * The client's model of the server, fed by /register and then by events (events.ts). The objects
 * are the API contract's (src/contract/payloads.ts), as the server sends them.
 */
export type User = UserPayload;
export type Subscription = SubscriptionPayload;
export type Reaction = ReactionPayload;

export interface Message extends MessagePayload {
  reactions: Reaction[];
  /** Widgets (polls, to-do lists) and their changes (Zulip's submessages). */
  submessages?: Submessage[];
  flags: string[];
  /** Local echo: not yet acknowledged by the server. */
  local?: { localId: string; state: "sending" | "failed"; error?: string };
}

export const users = signal(new Map<number, User>());
export const subscriptions = signal(new Map<number, Subscription>());
/** The user's settings (user_settings of /register, all of them; the three the app needs are typed). */
export const settings = signal<{ color_scheme: number; enter_sends: boolean; web_home_view: string } & Record<string, unknown>>({
  color_scheme: 1,
  enter_sends: true,
  web_home_view: "inbox",
});
export const realmName = signal("");
/** The unread messages (reactive: unreadCounts.ts derives the views' counts from it). */
export const unread = new UnreadIndex();
export const route = signal<Route>({ kind: "home" });
export const connection = signal<"connecting" | "connected" | "reconnecting">("connecting");
/** Recent DM conversations (people other than me, as a key "1,2") newest first, from events and messages. */
export const recentDms = signal<string[]>([]);
/** Topics per channel, newest first (GET /users/me/{id}/topics, kept current by message events). */
export const channelTopics = signal(new Map<number, Array<{ name: string; max_id: number }>>());
/** Who is typing where: conversation key → user ids. */
export const typing = signal(new Map<string, number[]>());

export const lookup: Lookup = {
  myId: myUserId,
  channelById: (id) => subscriptions.value.get(id),
  channelIdByName: (name) => {
    for (const sub of subscriptions.value.values()) if (sub.name.toLowerCase() === name.toLowerCase()) return sub.stream_id;
    return undefined;
  },
  userById: (id) => users.value.get(id),
  userIdByEmail: (email) => {
    for (const user of users.value.values()) if (user.email.toLowerCase() === email.toLowerCase()) return user.user_id;
    return undefined;
  },
};

export function userName(id: number): string {
  return users.value.get(id)?.full_name ?? "Unknown user";
}

/** The conversation a message belongs to. */
export function conversationOf(message: Pick<Message, "type" | "stream_id" | "subject" | "display_recipient" | "sender_id">): Conversation {
  if (message.type === "stream") return { kind: "channel", channelId: message.stream_id!, topic: message.subject };
  const ids = Array.isArray(message.display_recipient) ? message.display_recipient.map((r) => r.id) : [message.sender_id];
  return { kind: "dm", userIds: dmPeople(ids, myUserId) };
}

export function noteDm(userIds: readonly number[]): void {
  const key = userIds.join(",");
  recentDms.value = [key, ...recentDms.value.filter((k) => k !== key)].slice(0, 30);
}

/** A new message's topic goes to the top of its channel's list (when that list was fetched). */
export function noteTopic(channelId: number, topic: string, messageId: number): void {
  if (!channelTopics.value.has(channelId)) return;
  const map = new Map(channelTopics.value);
  const list = map.get(channelId)!.filter((t) => t.name.toLowerCase() !== topic.toLowerCase());
  list.unshift({ name: topic, max_id: messageId });
  map.set(channelId, list);
  channelTopics.value = map;
}

/** The user's topic visibility policies (user_topics): "channelId:topic lowercased" → policy (0 inherit, 1 muted, 2 unmuted, 3 followed). */
export const userTopics = signal(new Map<string, number>());

export function topicKey(channelId: number, topic: string): string {
  return `${channelId}:${topic.toLowerCase()}`;
}

export function setUserTopic(channelId: number, topic: string, policy: number): void {
  const map = new Map(userTopics.value);
  if (policy === VisibilityPolicy.INHERIT) map.delete(topicKey(channelId, topic));
  else map.set(topicKey(channelId, topic), policy);
  userTopics.value = map;
}

/** The organization's custom emoji (realm_emoji): id → its name and image. */
export interface RealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
}
export const realmEmoji = signal(new Map<string, RealmEmoji>());

/**
 * What the organization lets people do (realm_* settings of /register, kept by realm events):
 * the raw values; permissions.ts reads them.
 */
export const realm = signal<Record<string, unknown>>({});
/**
 * User groups (realm_user_groups): their members and subgroups, for group-based permissions, and
 * the rest of what the server says of them (name, description, settings) for the groups overlay.
 */
export type UserGroup = UserGroupPayload;
export const userGroups = signal(new Map<number, UserGroup>());

/** Topics renamed or moved: a channel's topic list is fetched again (it may have lost or gained topics). */
export function forgetTopics(channelId: number): void {
  if (!channelTopics.value.has(channelId)) return;
  const map = new Map(channelTopics.value);
  map.delete(channelId);
  channelTopics.value = map;
}
