import type { Realm, Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { realmSettings } from "../models/realmSettings.js";
import { streamStore } from "../store/streams.js";
import {
  type NoticeOptions,
  sendNotificationBotChannelMessage,
  sendNotificationBotChannelMessages,
  sendNotificationBotDirectMessages,
} from "./notificationBot.js";

/**
 * The Notification Bot's notices about channels, with Zulip 10's texts: the "channel events" topic
 * of a channel, the "new channels" announcement and "X subscribed you" direct messages.
 */

/** Zulip's STREAM_EVENTS_NOTIFICATION_TOPIC_NAME. */
const CHANNEL_EVENTS_TOPIC = "channel events";
/** The topic of the new-channel announcements in the realm's new_stream_announcements_stream. */
const NEW_CHANNELS_TOPIC = "new channels";

export const silentMention = (user: Pick<User, "full_name" | "id">): string => `@_**${user.full_name}|${user.id}**`;

const quoted = (text: string): string => `\n\`\`\`\` quote\n${text === "" ? "*No description.*" : text}\n\`\`\`\``;

/** Posts `content` to the channel's "channel events" topic, rendered as the acting user sees it. */
export async function sendChannelEventsNotice(
  tx: Tx,
  realm: Realm,
  stream: Stream,
  actor: User | null,
  content: string,
  options: NoticeOptions = {},
): Promise<void> {
  await sendNotificationBotChannelMessage(tx, realm, stream, CHANNEL_EVENTS_TOPIC, content, { renderAs: actor ?? undefined, ...options });
}

export function renameNotice(actor: User, oldName: string, newName: string): string {
  return `${silentMention(actor)} renamed channel **${oldName}** to **${newName}**.`;
}

export function descriptionChangeNotice(actor: User, oldDescription: string, newDescription: string): string {
  return (
    `${silentMention(actor)} changed the description for this channel.\n\n* **Old description:**${quoted(oldDescription)}\n` +
    `* **New description:**${quoted(newDescription)}`
  );
}

/** Zulip's get_stream_permission_policy_key, as the creation notice words it; none for public with protected history. */
function creationPolicyLabel(stream: Stream): string | null {
  if (stream.is_web_public) return "**Web-public**";
  if (!stream.invite_only) return stream.history_public_to_subscribers ? "**Public**" : null;
  return stream.history_public_to_subscribers ? "**Private, shared history**" : "**Private, protected history**";
}

/**
 * Zulip's send_messages_for_new_subscribers: a direct message to each human other than the actor
 * who was subscribed to existing channels, the "new channels" announcement when `announce` is set,
 * and a creation notice in each new channel. The actor's copies start read.
 */
export async function sendNewSubscriptionNotices(
  tx: Tx,
  realm: Realm,
  actor: User,
  subscribed: ReadonlyArray<{ user: User; stream: Stream }>,
  created: readonly Stream[],
  announce: boolean,
): Promise<void> {
  const createdIds = new Set(created.map((s) => s.id));
  const namesByUser = new Map<number, { user: User; names: string[] }>();
  for (const { user, stream } of subscribed) {
    if (user.id === actor.id || user.is_bot || createdIds.has(stream.id)) continue;
    const entry = namesByUser.get(user.id) ?? { user, names: [] };
    entry.names.push(stream.name);
    namesByUser.set(user.id, entry);
  }
  const notices = [...namesByUser.values()].map(({ user, names }) => ({ user, content: youWereSubscribedMessage(actor, names) }));
  await sendNotificationBotDirectMessages(tx, realm, notices, { renderAs: actor });

  const readByActor = new Set([actor.id]);
  if (announce && created.length > 0) {
    const channelId = realmSettings(realm).new_stream_announcements_stream_id;
    const target = channelId > 0 ? await streamStore.getById(tx.q, realm.id, channelId) : undefined;
    if (target && !target.is_archived) {
      const links = created.map((s) => `#**${s.name}**`).join(", ");
      const content =
        created.length > 1 ? `${silentMention(actor)} created the following channels: ${links}.` : `${silentMention(actor)} created a new channel ${links}.`;
      await sendNotificationBotChannelMessage(tx, realm, target, NEW_CHANNELS_TOPIC, content, { renderAs: actor, alsoReadBy: readByActor });
    }
  }
  const creationNotices = created.flatMap((stream) => {
    const label = creationPolicyLabel(stream);
    if (label === null) return [];
    const content = `${label} channel created by ${silentMention(actor)}. **Description:**${quoted(stream.description)}`;
    return [{ stream, topic: CHANNEL_EVENTS_TOPIC, content }];
  });
  await sendNotificationBotChannelMessages(tx, realm, creationNotices, { renderAs: actor, alsoReadBy: readByActor });
}

/** Zulip's you_were_just_subscribed_message. */
function youWereSubscribedMessage(actor: User, channelNames: readonly string[]): string {
  const names = [...channelNames].sort();
  if (names.length === 1) return `${silentMention(actor)} subscribed you to #**${names[0]}**.`;
  return `${silentMention(actor)} subscribed you to the following channels:\n\n${names.map((n) => `* #**${n}**\n`).join("")}`;
}

export const archiveNotice = (stream: Stream): string => `Channel ${stream.name} has been archived.`;
export const unarchiveNotice = (name: string): string => `Channel ${name} un-archived.`;
