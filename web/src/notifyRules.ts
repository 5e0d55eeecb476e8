/**
 * Whether a new message pops up a desktop notification and plays a sound: Zulip's rules
 * (web/src/message_notifications.ts), as pure functions of the message and what the user set.
 * No DOM here: notifications.ts gathers the context and acts on the answer.
 */
export interface NotifyMessage {
  type: "stream" | "private";
  sender_id: number;
  flags: readonly string[];
}

/** A channel subscription's own notification settings: null (or absent) follows the user's settings. */
export interface NotifySubscription {
  is_muted: boolean;
  desktop_notifications?: boolean | null;
  audible_notifications?: boolean | null;
  wildcard_mentions_notify?: boolean | null;
}

export interface NotifyContext {
  myId: number;
  /** The user's settings (enable_desktop_notifications, enable_sounds, notification_sound, …). */
  settings: Readonly<Record<string, unknown>>;
  /** The message's channel subscription (channel messages). */
  subscription?: NotifySubscription;
  /** The topic's visibility policy: 0 inherit, 1 muted, 2 unmuted, 3 followed. */
  topicPolicy: number;
  /** The sender is one of the user's muted users. */
  senderMuted: boolean;
  /** The message is already in view in the focused window: the user sees it, no need to tell. */
  visible: boolean;
}

const TOPIC_MUTED = VisibilityPolicy.MUTED;
const TOPIC_UNMUTED = VisibilityPolicy.UNMUTED;
const TOPIC_FOLLOWED = VisibilityPolicy.FOLLOWED;

const WILDCARD_FLAGS = ["wildcard_mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"];

/** Mentioned by name (or through a group), not by @all / @topic. */
function mentionedDirectly(m: NotifyMessage): boolean {
  return m.flags.includes("mentioned");
}

/** Any mention, wildcards included (Zulip's message.mentioned). */
function mentionedAtAll(m: NotifyMessage): boolean {
  return mentionedDirectly(m) || m.flags.some((f) => WILDCARD_FLAGS.includes(f));
}

/** A message with one of the user's alert words, from someone else: notifies as a mention does. */
export function alerted(m: NotifyMessage, myId: number): boolean {
  return m.sender_id !== myId && m.flags.includes("has_alert_word");
}

/** A channel-level setting: the subscription's own value, else the user's default (enable_stream_<name>, or the setting itself). */
function channelReceives(ctx: NotifyContext, name: "desktop_notifications" | "audible_notifications" | "wildcard_mentions_notify"): boolean {
  const own = ctx.subscription?.[name];
  if (own !== null && own !== undefined) return own;
  return !!ctx.settings[name === "wildcard_mentions_notify" ? name : `enable_stream_${name}`];
}

/**
 * Properties of the message that rule out any notification whatever the settings: own messages,
 * already read or in view, muted senders, muted topics and channels (unless a direct mention,
 * a followed topic, an unmuted topic, or a wildcard mention the channel asks to hear).
 */
function notifiable(m: NotifyMessage, ctx: NotifyContext): boolean {
  if (m.sender_id === ctx.myId || ctx.senderMuted || ctx.visible || m.flags.includes("read")) return false;
  if (mentionedDirectly(m)) return true;
  if (m.type !== "stream") return true;
  if (ctx.topicPolicy === TOPIC_FOLLOWED) return true;
  if (ctx.topicPolicy === TOPIC_MUTED) return false;
  if (ctx.subscription?.is_muted && ctx.topicPolicy !== TOPIC_UNMUTED) {
    return mentionedAtAll(m) && ctx.subscription.wildcard_mentions_notify === true;
  }
  return true;
}

function wanted(m: NotifyMessage, ctx: NotifyContext, kind: "desktop" | "audible"): boolean {
  const stream = m.type === "stream";
  const channelSetting = kind === "desktop" ? "desktop_notifications" : "audible_notifications";
  if (stream && channelReceives(ctx, channelSetting)) return true;
  const followed = stream && ctx.topicPolicy === TOPIC_FOLLOWED;
  if (followed && ctx.settings[`enable_followed_topic_${channelSetting}`]) return true;
  // The "DMs, mentions, and alerts" setting.
  if (!ctx.settings[kind === "desktop" ? "enable_desktop_notifications" : "enable_sounds"]) return false;
  if (!stream || mentionedDirectly(m) || alerted(m, ctx.myId)) return true;
  if (mentionedAtAll(m) && channelReceives(ctx, "wildcard_mentions_notify")) return true;
  return mentionedAtAll(m) && followed && !!ctx.settings.enable_followed_topic_wildcard_mentions_notify;
}

/** What a new message should do: pop up a desktop notification, play the sound. */
export function notificationFor(m: NotifyMessage, ctx: NotifyContext): { desktop: boolean; sound: boolean } {
  if (!notifiable(m, ctx)) return { desktop: false, sound: false };
  return { desktop: wanted(m, ctx, "desktop"), sound: ctx.settings.notification_sound !== "none" && wanted(m, ctx, "audible") };
}
import { VisibilityPolicy } from "../../src/contract/constants.js";
