import { describe, expect, it } from "vitest";
import { type NotifyContext, type NotifyMessage, notificationFor } from "../../web/src/notifyRules.js";

// Zulip's desktop and audible notification rules (web/src/message_notifications.ts), with its
// default settings unless a test changes them.
const ME = 10;
const OTHELLO = 12;
const DEFAULTS = {
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_stream_desktop_notifications: false,
  enable_stream_audible_notifications: false,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  wildcard_mentions_notify: true,
  notification_sound: "zulip",
};

function context(change: Partial<NotifyContext> & { settings?: Record<string, unknown> } = {}): NotifyContext {
  return {
    myId: ME,
    topicPolicy: 0,
    senderMuted: false,
    visible: false,
    subscription: { is_muted: false, desktop_notifications: null, audible_notifications: null, wildcard_mentions_notify: null },
    ...change,
    settings: { ...DEFAULTS, ...change.settings },
  };
}

const dm: NotifyMessage = { type: "private", sender_id: OTHELLO, flags: [] };
const channel: NotifyMessage = { type: "stream", sender_id: OTHELLO, flags: [] };
const mention: NotifyMessage = { ...channel, flags: ["mentioned"] };
const wildcard: NotifyMessage = { ...channel, flags: ["stream_wildcard_mentioned", "wildcard_mentioned"] };
const alert: NotifyMessage = { ...channel, flags: ["has_alert_word"] };
const BOTH = { desktop: true, sound: true };
const NONE = { desktop: false, sound: false };

describe("desktop and audible notifications", () => {
  it("notify for direct messages, mentions, wildcard mentions and alert words, not for other channel messages", () => {
    expect(notificationFor(dm, context())).toEqual(BOTH);
    expect(notificationFor(mention, context())).toEqual(BOTH);
    expect(notificationFor(wildcard, context())).toEqual(BOTH);
    expect(notificationFor(alert, context())).toEqual(BOTH);
    expect(notificationFor(channel, context())).toEqual(NONE);
  });

  it("never for one's own messages, read ones, muted senders, or messages already in view", () => {
    expect(notificationFor({ ...dm, sender_id: ME }, context())).toEqual(NONE);
    expect(notificationFor({ ...dm, flags: ["read"] }, context())).toEqual(NONE);
    expect(notificationFor(dm, context({ senderMuted: true }))).toEqual(NONE);
    expect(notificationFor(mention, context({ visible: true }))).toEqual(NONE);
  });

  it("enable_desktop_notifications and enable_sounds turn off DMs, mentions and alerts separately", () => {
    expect(notificationFor(dm, context({ settings: { enable_desktop_notifications: false } }))).toEqual({ desktop: false, sound: true });
    expect(notificationFor(alert, context({ settings: { enable_sounds: false } }))).toEqual({ desktop: true, sound: false });
    expect(notificationFor(mention, context({ settings: { notification_sound: "none" } }))).toEqual({ desktop: true, sound: false });
  });

  it("wildcard mentions follow wildcard_mentions_notify, which a channel may override", () => {
    expect(notificationFor(wildcard, context({ settings: { wildcard_mentions_notify: false } }))).toEqual(NONE);
    const channelSays = { is_muted: false, wildcard_mentions_notify: true };
    expect(notificationFor(wildcard, context({ settings: { wildcard_mentions_notify: false }, subscription: channelSays }))).toEqual(BOTH);
  });

  it("every message of a channel whose desktop_notifications is on (or the user's channel default when null)", () => {
    expect(notificationFor(channel, context({ subscription: { is_muted: false, desktop_notifications: true } }))).toEqual({ desktop: true, sound: false });
    expect(notificationFor(channel, context({ settings: { enable_stream_audible_notifications: true } }))).toEqual({ desktop: false, sound: true });
    const off = { is_muted: false, desktop_notifications: false };
    expect(notificationFor(channel, context({ subscription: off, settings: { enable_stream_desktop_notifications: true } }))).toEqual(NONE);
  });

  it("followed topics notify (enable_followed_topic_*), even in a muted channel", () => {
    expect(notificationFor(channel, context({ topicPolicy: 3 }))).toEqual(BOTH);
    expect(notificationFor(channel, context({ topicPolicy: 3, subscription: { is_muted: true } }))).toEqual(BOTH);
    expect(notificationFor(channel, context({ topicPolicy: 3, settings: { enable_followed_topic_desktop_notifications: false } }))).toEqual({
      desktop: false,
      sound: true,
    });
  });

  it("muted channels and topics stay silent except for direct mentions and unmuted topics", () => {
    const muted = { is_muted: true, desktop_notifications: true };
    expect(notificationFor(channel, context({ subscription: muted }))).toEqual(NONE);
    expect(notificationFor(wildcard, context({ subscription: muted }))).toEqual(NONE);
    expect(notificationFor(alert, context({ subscription: muted }))).toEqual(NONE);
    expect(notificationFor(mention, context({ subscription: muted }))).toEqual(BOTH);
    expect(notificationFor(channel, context({ subscription: muted, topicPolicy: 2 }))).toEqual({ desktop: true, sound: false });
    expect(notificationFor(wildcard, context({ subscription: { is_muted: true, wildcard_mentions_notify: true } }))).toEqual(BOTH);
    expect(notificationFor(wildcard, context({ topicPolicy: 1 }))).toEqual(NONE);
    expect(notificationFor(mention, context({ topicPolicy: 1 }))).toEqual(BOTH);
  });
});
