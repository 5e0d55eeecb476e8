import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../../src/contract/constants.js";
import { lookup, type Message, subscriptions, topicKey, userName, userTopics } from "../state.js";
import type { Conversation } from "../unread.js";
import { canMoveChannel, canRenameTopic, canResolve, isResolved } from "../permissions.js";
import { openTopicDialog, setFollowed, setTopicVisibility, toggleResolved } from "../topicEdit.js";
import { copyText, markAllRead, markChannelRead, markDmRead, markTopicRead, setChannelMuted } from "../actions.js";
import { narrowHash } from "../hash.js";
import { isMutedConversation } from "../conversationFilters.js";
import { conversationFacts } from "../viewFilters.js";
import { channelHash } from "./channelShared.js";
import { confirmDialog } from "./ModalDialog.js";
import { MenuButton, type MenuItem } from "./Menu.js";

/**
 * The menus of conversations, as Zulip's popovers offer them: a channel's (sidebar), a topic's
 * (sidebar, recipient bar, Inbox and Recent rows), a direct message conversation's, and the home
 * views' "Mark all messages as read".
 */

const VISIBILITY_MUTED = 1;
const VISIBILITY_UNMUTED = 2;

function channelMenuItems(channelId: number): MenuItem[] {
  const sub = subscriptions.value.get(channelId);
  if (!sub) return [];
  const link = `${location.origin}/${narrowHash([{ operator: "channel", operand: String(channelId), negated: false }], lookup)}`;
  return [
    { label: "Mark all messages as read", run: () => void markChannelRead(channelId) },
    { label: sub.is_muted ? "Unmute channel" : "Mute channel", run: () => setChannelMuted(channelId, !sub.is_muted) },
    { label: "Copy link to channel", run: () => void copyText(link) },
    { label: "Channel settings", href: channelHash(sub) },
  ];
}

/**
 * A topic's menu. `latest` is a message of the topic (the newest known): moving and resolving
 * send it with propagate_mode change_all, as Zulip does.
 */
function topicMenuItems(channelId: number, topic: string, latest: Pick<Message, "id" | "timestamp"> | null): MenuItem[] {
  const sub = subscriptions.value.get(channelId);
  const policy = userTopics.value.get(topicKey(channelId, topic)) ?? 0;
  const channelMuted = !!sub?.is_muted;
  const muted = isMutedConversation({ kind: "channel", channelId, topic }, conversationFacts());
  const followed = policy === VisibilityPolicy.FOLLOWED;
  const m = latest && ({ ...latest, type: "stream", stream_id: channelId, subject: topic } as Message);
  const link = `${location.origin}/${narrowHash(
    [
      { operator: "channel", operand: String(channelId), negated: false },
      { operator: "topic", operand: topic, negated: false },
    ],
    lookup,
  )}`;
  const items: MenuItem[] = [{ label: "Mark all messages as read", run: () => void markTopicRead(channelId, topic) }];
  items.push(
    muted
      ? { label: "Unmute topic", run: () => setTopicVisibility(channelId, topic, channelMuted ? VISIBILITY_UNMUTED : 0) }
      : { label: "Mute topic", run: () => setTopicVisibility(channelId, topic, VISIBILITY_MUTED) },
  );
  items.push({ label: followed ? "Unfollow topic" : "Follow topic", run: () => setFollowed(channelId, topic, !followed) });
  if (m && (canRenameTopic(m.timestamp) || canMoveChannel(m.timestamp))) items.push({ label: "Move topic…", run: () => openTopicDialog(m, "change_all") });
  if (m && canResolve()) items.push({ label: isResolved(topic) ? "Mark as unresolved" : "Mark as resolved", run: () => void toggleResolved(m) });
  items.push({ label: "Copy link to topic", run: () => void copyText(link) });
  return items;
}

function dmMenuItems(userIds: number[]): MenuItem[] {
  const link = `${location.origin}/${narrowHash([{ operator: "dm", operand: userIds.join(","), negated: false }], lookup)}`;
  return [
    { label: "Mark all messages as read", run: () => void markDmRead(userIds) },
    { label: "Copy link to conversation", run: () => void copyText(link) },
  ];
}

/** Zulip asks before marking everything read: it cannot be undone. */
async function confirmMarkAllRead(): Promise<void> {
  if (await confirmDialog("Mark all messages as read?", "All your messages will be marked as read. This cannot be undone.", "Mark all as read"))
    await markAllRead();
}

export function HomeMenu({ name }: { name: string }) {
  return (
    <MenuButton
      label={`Menu for ${name}`}
      className="row-menu dots"
      items={() => [{ label: "Mark all messages as read", run: () => void confirmMarkAllRead() }]}
    />
  );
}

export function ChannelMenu({ channelId, name }: { channelId: number; name: string }) {
  return <MenuButton label={`Menu for channel ${name}`} className="row-menu dots" items={() => channelMenuItems(channelId)} />;
}

export function TopicMenu({
  channelId,
  topic,
  latest,
  className = "row-menu",
}: {
  channelId: number;
  topic: string;
  latest: () => Pick<Message, "id" | "timestamp"> | null;
  className?: string;
}) {
  return (
    <MenuButton
      label={`Menu for topic ${topic === "" ? EMPTY_TOPIC_DISPLAY_NAME : topic}`}
      className={`${className} dots`}
      items={() => topicMenuItems(channelId, topic, latest())}
    />
  );
}

export function DmMenu({ userIds, name, className = "row-menu" }: { userIds: number[]; name: string; className?: string }) {
  return <MenuButton label={`Menu for conversation with ${name}`} className={`${className} dots`} items={() => dmMenuItems(userIds)} />;
}

function conversationName(c: Conversation): string {
  return c.kind === "dm" ? c.userIds.map(userName).join(", ") : c.topic === "" ? EMPTY_TOPIC_DISPLAY_NAME : c.topic;
}

/** "Mark as read" on a row of Inbox or Recent conversations (Zulip's, by the unread count). */
export function MarkReadButton({ conversation: c }: { conversation: Conversation }) {
  const name = conversationName(c);
  return (
    <button
      type="button"
      class="mark-read"
      aria-label={`Mark ${c.kind === "dm" ? "conversation with" : "topic"} ${name} as read`}
      title="Mark as read"
      onClick={(e) => {
        e.stopPropagation();
        void (c.kind === "dm" ? markDmRead(c.userIds) : markTopicRead(c.channelId, c.topic));
      }}
    />
  );
}

/** The row's menu: a topic's or a direct message conversation's. */
export function ConversationMenu({ conversation: c, latestId }: { conversation: Conversation; latestId: number }) {
  return c.kind === "dm" ? (
    <DmMenu userIds={c.userIds} name={conversationName(c)} className="view-row-menu" />
  ) : (
    <TopicMenu channelId={c.channelId} topic={c.topic} latest={() => ({ id: latestId, timestamp: Date.now() / 1000 })} className="view-row-menu" />
  );
}
