import type { Realm, Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { getEmojiData } from "../lib/emoji.js";
import { withRealmSettings } from "../models/realmSettings.js";
import { BotType } from "../models/roles.js";
import { SYSTEM_BOTS, WELCOME_BOT_EMAIL } from "../models/systemBots.js";
import { messageStore } from "../store/messages.js";
import { realmStore } from "../store/realms.js";
import { streamStore } from "../store/streams.js";
import { systemBotStore } from "../store/systemBots.js";
import { doCreateUser } from "./createUser.js";
import { sendSystemBotChannelMessages } from "./notificationBot.js";
import { doAddReaction } from "./reactions.js";
import { doCreateRealm } from "./realms.js";
import { doCreateStreams } from "./streams.js";
import { bulkAddSubscriptions } from "./subscriptions.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";
import { defined } from "../util/defined.js";

/**
 * Zulip's create_internal_realm: the system realm and its cross-realm bots (Notification Bot,
 * Welcome Bot, …), created with the server's first organization. Does nothing if they exist.
 */
export async function ensureSystemBots(tx: Tx): Promise<void> {
  if (await realmStore.getByStringId(tx.q, SYSTEM_BOT_REALM)) return;
  const internal = await doCreateRealm(tx, { string_id: SYSTEM_BOT_REALM, name: "System use only" });
  for (const { email, full_name } of SYSTEM_BOTS) {
    await doCreateUser(tx, internal, { email, full_name, password_hash: null, is_bot: true, bot_type: BotType.GENERIC });
  }
}

/** Zulip 10.2's initial channels of a new organization (do_create_realm), in creation order. */
const ZULIP_CHANNEL = "Zulip";
const SANDBOX_CHANNEL = "sandbox";
const GENERAL_CHANNEL = "general";
const INITIAL_CHANNELS = [
  { name: ZULIP_CHANNEL, description: "Questions and discussion about using Zulip." },
  { name: SANDBOX_CHANNEL, description: "Experiment with Zulip here. :test_tube:" },
  { name: GENERAL_CHANNEL, description: "For team-wide conversations" },
];

/** The greetings message Welcome Bot reacts to with :wave:. */
const GREETINGS = "This **greetings** topic is a great place to say “hi” :wave: to your teammates.";

/**
 * Zulip 10.2's send_initial_realm_messages: Welcome Bot's messages, by channel and topic, in the
 * order sent (the main welcome last, so it shows first in newest-first views).
 */
const WELCOME_MESSAGES: ReadonlyArray<{ channel: string; topic: string; content: string }> = [
  {
    channel: ZULIP_CHANNEL,
    topic: "moving messages",
    content:
      "If anything is out of place, it’s easy to [move messages](/help/move-content-to-another-topic), [rename](/help/rename-a-topic) and " +
      "[split](/help/move-content-to-another-topic) topics, or even move a topic [to a different channel](/help/move-content-to-another-channel).",
  },
  { channel: ZULIP_CHANNEL, topic: "moving messages", content: ":point_right: Try moving this message to another topic and back." },
  {
    channel: SANDBOX_CHANNEL,
    topic: "experiments",
    content: ":point_right:  Use this topic to try out [Zulip's messaging features](/help/format-your-message-using-markdown).",
  },
  {
    channel: SANDBOX_CHANNEL,
    topic: "experiments",
    content:
      '```spoiler Want to see some examples?\n\n````python\n\nprint("code blocks")\n\n````\n\n- bulleted\n- lists\n\nLink to a conversation: #**Zulip>welcome to Zulip!**\n\n```',
  },
  {
    channel: SANDBOX_CHANNEL,
    topic: "start a conversation",
    content: "To kick off a new conversation, pick a channel in the left sidebar, and click the `+` button next to its name.",
  },
  {
    channel: SANDBOX_CHANNEL,
    topic: "start a conversation",
    content: "Label your conversation with a topic. Think about finishing the sentence: “Hey, can we chat about…?”",
  },
  { channel: SANDBOX_CHANNEL, topic: "start a conversation", content: ":point_right: Try starting a new conversation in this channel." },
  { channel: GENERAL_CHANNEL, topic: "greetings", content: GREETINGS },
  { channel: GENERAL_CHANNEL, topic: "greetings", content: ":point_right: Click on this message to start a new message in the same conversation." },
  {
    channel: ZULIP_CHANNEL,
    topic: "welcome to Zulip!",
    content:
      "Zulip is organized to help you communicate more efficiently. Conversations are labeled with topics, which summarize what the conversation is about.\n\n" +
      "For example, this message is in the “welcome to Zulip!” topic in the #**Zulip** channel, as you can see in the left sidebar and above.",
  },
  {
    channel: ZULIP_CHANNEL,
    topic: "welcome to Zulip!",
    content: "You can read Zulip one conversation at a time, seeing each message in context, no matter how many other conversations are going on.",
  },
  {
    channel: ZULIP_CHANNEL,
    topic: "welcome to Zulip!",
    content: ":point_right: When you're ready, check out your [Inbox](/#inbox) for other conversations with unread messages.",
  },
];

/**
 * What Zulip 10.2 gives a new organization (do_create_realm, send_initial_realm_messages): the
 * system bots, the channels "Zulip", "sandbox" and "general" as default channels, "general" for
 * new-channel and Zulip-update announcements, the owner subscribed to them, and Welcome Bot's
 * welcome messages. Returns the organization as updated.
 */
export async function doSetUpNewRealm(tx: Tx, realm: Realm, owner: User): Promise<Realm> {
  await ensureSystemBots(tx);
  const spec = { invite_only: false, is_web_public: false, history_public_to_subscribers: undefined, message_retention_days: null, groupSettings: {} };
  const channels = await doCreateStreams(
    tx,
    realm,
    null,
    INITIAL_CHANNELS.map((c) => ({ ...spec, ...c })),
  );
  const byName = new Map(channels.map((s) => [s.name, s]));
  await streamStore.addDefaultStreams(
    tx.q,
    realm.id,
    channels.map((s) => s.id),
  );
  const general = byName.get(GENERAL_CHANNEL)!;
  const announcements = { new_stream_announcements_stream_id: general.id, zulip_update_announcements_stream_id: general.id };
  const settings = withRealmSettings(realm, announcements);
  await realmStore.update(tx.q, realm.id, { settings });
  const updated = { ...realm, settings };
  await bulkAddSubscriptions(tx, updated, channels, [owner], new Map(), null);
  await sendWelcomeMessages(tx, updated, byName);
  return updated;
}

async function sendWelcomeMessages(tx: Tx, realm: Realm, channels: Map<string, Stream>): Promise<void> {
  const welcomeBot = await systemBotStore.getByEmail(tx.q, SYSTEM_BOT_REALM, WELCOME_BOT_EMAIL);
  if (!welcomeBot) return;
  const notices = WELCOME_MESSAGES.map(({ channel, topic, content }) => ({ stream: channels.get(channel)!, topic, content }));
  const ids = await sendSystemBotChannelMessages(tx, realm, welcomeBot, notices);
  const greetingsId = defined(ids[WELCOME_MESSAGES.findIndex((m) => m.content === GREETINGS)], "the greetings message's id");
  const [greetings] = await messageStore.listByIds(tx.q, realm.id, [greetingsId]);
  if (greetings === undefined) throw new Error("Internal error: the greetings message just sent is missing");
  const wave = await getEmojiData(tx.q, realm.id, "wave");
  await doAddReaction(tx, welcomeBot, greetings, { emoji_name: "wave", ...wave });
}
