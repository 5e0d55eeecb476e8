import { hashPassword } from "../lib/passwords.js";
import { transaction, type AppContext } from "../appContext.js";
import { doCreateRealm } from "../actions/realms.js";
import { ensureSystemBots } from "../actions/onboarding.js";
import { doCreateUser } from "../actions/createUser.js";
import type { Realm } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { isRenderedFieldType, ProfileFieldType, renderProfileFieldValue } from "../lib/profileData.js";
import { RecipientType, Role } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { customProfileFieldStore } from "../store/customProfileFields.js";
import { messageStore } from "../store/messages.js";
import { userMessageStore } from "../store/userMessages.js";
import { MessageFlag } from "../models/messageFlags.js";
import { streamStore, subscriptionStore } from "../store/streams.js";
import { realmStore } from "../store/realms.js";
import { withRealmSettings } from "../models/realmSettings.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { nowSeconds } from "../util/time.js";
import { recipientStore } from "../store/recipients.js";
import { messageSearchStore } from "../store/messageSearch.js";
import { STREAM_ASSIGNMENT_COLORS } from "../contract/streamColors.js";

/**
 * Zulip's development organization, with the same ids and emails as Zulip's own development and
 * test environment, so that clients' example scripts and test suites run against Parley as they
 * do against `./tools/run-dev`: the internal realm's system bots take ids 1-5, then realm `zulip`
 * has aaron (6) ... shiva (15). The next created user gets id 16.
 */
export const DEV_PASSWORD = "parleydev";

export { SYSTEM_BOTS } from "../models/systemBots.js";

export const DEV_USERS = [
  { id: 6, email: "aaron@zulip.com", full_name: "aaron", role: Role.MEMBER },
  { id: 7, email: "ZOE@zulip.com", full_name: "ZOE", role: Role.MEMBER },
  { id: 8, email: "cordelia@zulip.com", full_name: "Cordelia, Lear's daughter", role: Role.MEMBER },
  { id: 9, email: "desdemona@zulip.com", full_name: "Desdemona", role: Role.OWNER },
  { id: 10, email: "hamlet@zulip.com", full_name: "King Hamlet", role: Role.MEMBER },
  { id: 11, email: "iago@zulip.com", full_name: "Iago", role: Role.ADMINISTRATOR },
  { id: 12, email: "othello@zulip.com", full_name: "Othello, the Moor of Venice", role: Role.MEMBER },
  { id: 13, email: "polonius@zulip.com", full_name: "Polonius", role: Role.GUEST },
  { id: 14, email: "prospero@zulip.com", full_name: "Prospero from The Tempest", role: Role.MEMBER },
  { id: 15, email: "shiva@zulip.com", full_name: "Shiva", role: Role.MODERATOR },
] as const;

export async function seedDevelopmentRealm(ctx: AppContext): Promise<Realm> {
  // One hash for every development user: they share the well-known development password.
  const passwordHash = await hashPassword(DEV_PASSWORD, ctx.config.fastPasswordHashing);
  return transaction(ctx, async (tx) => {
    await ensureSystemBots(tx);
    const realm = await doCreateRealm(tx, {
      string_id: "zulip",
      name: "Zulip Dev",
      description: "The Zulip development environment default organization. It's great for testing!",
      // As Zulip's populate_db: read receipts on.
      enable_read_receipts: true,
    });
    for (const user of DEV_USERS) {
      await doCreateUser(tx, realm, {
        ...user,
        password_hash: passwordHash,
        timezone: "UTC",
        // Zulip's API test setup lets iago create users and change emails.
        can_create_users: user.email === "iago@zulip.com",
        can_change_user_emails: user.email === "iago@zulip.com" || user.email === "desdemona@zulip.com",
      });
    }
    await tx.dialect.bumpIdSequence(tx.q, "users", Math.max(...DEV_USERS.map((u) => u.id)));
    await seedDevelopmentContent(tx, realm);
    return realm;
  });
}

/** Zulip's development channels, with their ids (populate_db's test-suite data). */
export const DEV_CHANNELS = [
  { id: 1, name: "Verona", description: "A city in Italy" },
  { id: 2, name: "Denmark", description: "A Scandinavian country" },
  { id: 3, name: "Scotland", description: "Located in the United Kingdom" },
  { id: 4, name: "Venice", description: "A northeastern Italian city" },
  { id: 5, name: "Rome", description: "Yet another Italian city", is_web_public: true },
  { id: 6, name: "core team", description: "A private channel for core team members.", invite_only: true },
] as const;

/** The realm's default channels: Verona, made default when the realm was created (populate_db). */
const DEFAULT_CHANNELS = ["Verona"];

/** populate_db's fixed subscriptions for the test suite, users in the order of their emails. */
const SUBSCRIPTIONS: Record<string, string[]> = {
  aaron: ["Verona"],
  cordelia: ["Verona"],
  desdemona: ["Verona", "Denmark", "Venice", "core team"],
  hamlet: ["Verona", "Denmark", "core team"],
  iago: ["Verona", "Denmark", "Scotland", "core team"],
  othello: ["Verona", "Denmark", "Scotland"],
  polonius: ["Verona"],
  prospero: ["Verona", "Denmark", "Scotland", "Venice"],
  shiva: ["Verona", "Denmark", "Scotland"],
  ZOE: ["Verona", "Denmark", "Scotland", "Venice", "Rome"],
};

/** A few conversations, oldest first: channel messages (channel › topic) and direct messages. */
type SeedMessage = { from: string; channel: string; topic: string; text: string } | { from: string; to: string; text: string };
const MESSAGES: SeedMessage[] = [
  { from: "iago", channel: "Verona", topic: "test", text: "Welcome to Verona! This is the test topic." },
  { from: "hamlet", channel: "Verona", topic: "test", text: "Testing, one two three." },
  { from: "othello", channel: "Verona", topic: "test", text: "Test received, loud and clear." },
  { from: "cordelia", channel: "Verona", topic: "greetings", text: "Good morning, everyone." },
  { from: "hamlet", channel: "Denmark", topic: "Castle", text: "Something is rotten in the state of Denmark." },
  { from: "othello", channel: "Denmark", topic: "Castle", text: "Who keeps watch on the platform tonight?" },
  { from: "iago", channel: "Denmark", topic: "Castle", text: "Horatio and Marcellus, I believe." },
  { from: "prospero", channel: "Scotland", topic: "weather", text: "Fair is foul, and foul is fair: rain again." },
  { from: "shiva", channel: "Scotland", topic: "weather", text: "Bring an umbrella & a good coat." },
  { from: "desdemona", channel: "Venice", topic: "canals", text: "The canals are lovely this time of year." },
  { from: "prospero", channel: "Venice", topic: "canals", text: "Take a gondola to the Rialto." },
  { from: "ZOE", channel: "Rome", topic: "roads", text: "All roads lead here." },
  { from: "iago", channel: "core team", topic: "private channels", text: "Only the core team can read this channel." },
  { from: "desdemona", channel: "core team", topic: "private channels", text: "Agreed: plans for the release go here." },
  { from: "hamlet", to: "othello", text: "Othello, do you have a moment?" },
  { from: "othello", to: "hamlet", text: "Of course, what is it?" },
  { from: "hamlet", to: "othello", text: "To be, or not to be: that is the question." },
];

const userId = (name: string): number => {
  const user = DEV_USERS.find((u) => u.email.toLowerCase() === `${name.toLowerCase()}@zulip.com`);
  if (!user) throw new Error(`no development user ${name}`);
  return user.id;
};

/** Channels, subscriptions, groups, profile fields and a few messages of the dev realm. */
async function seedDevelopmentContent(tx: Tx, realm: Realm): Promise<void> {
  const groups = new Map((await userGroupStore.listSystemGroups(tx.q, realm.id)).map((g) => [g.name, g.id]));
  const group = (name: string) => groups.get(name)!;
  const channels = await seedChannels(tx, realm, group);
  // populate_db announces new channels in Verona.
  const announcements = { new_stream_announcements_stream_id: channels.get("Verona")!.id };
  await realmStore.update(tx.q, realm.id, { settings: withRealmSettings(realm, announcements) });
  await seedMessages(tx, realm, channels);
  await seedUserGroup(tx, realm, group);
  await seedProfileFields(tx, realm);
}

interface SeededChannel {
  id: number;
  recipientId: number;
  subscriberIds: number[];
}

async function seedChannels(tx: Tx, realm: Realm, group: (name: string) => number): Promise<Map<string, SeededChannel>> {
  const now = nowSeconds();
  const channels = new Map<string, SeededChannel>();
  for (const channel of DEV_CHANNELS) {
    const invite_only = "invite_only" in channel && channel.invite_only;
    const stream = await streamStore.insert(tx.q, {
      id: channel.id,
      realm_id: realm.id,
      name: channel.name,
      description: channel.description,
      rendered_description: `<p>${escapeHtml(channel.description)}</p>`,
      invite_only: invite_only ? 1 : 0,
      is_web_public: "is_web_public" in channel && channel.is_web_public ? 1 : 0,
      // Zulip's default: private channels keep history from new subscribers.
      history_public_to_subscribers: invite_only ? 0 : 1,
      date_created: now,
      creator_id: null,
      message_retention_days: null,
      // Zulip 10's defaults for a channel without a creator.
      can_add_subscribers_group_id: group("role:nobody"),
      can_administer_channel_group_id: group("role:nobody"),
      can_remove_subscribers_group_id: group("role:administrators"),
      can_send_message_group_id: group("role:everyone"),
      can_subscribe_group_id: group("role:nobody"),
    });
    const recipientId = await recipientStore.insert(tx.q, RecipientType.STREAM, stream.id);
    await streamStore.update(tx.q, stream.id, { recipient_id: recipientId });
    await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "stream_created", modified_stream_id: stream.id });
    channels.set(channel.name, { id: stream.id, recipientId, subscriberIds: [] });
  }
  await tx.dialect.bumpIdSequence(tx.q, "streams", Math.max(...DEV_CHANNELS.map((c) => c.id)));
  await streamStore.addDefaultStreams(
    tx.q,
    realm.id,
    DEFAULT_CHANNELS.map((name) => channels.get(name)!.id),
  );

  const rows = [];
  for (const [name, channelNames] of Object.entries(SUBSCRIPTIONS)) {
    for (const channelName of channelNames) {
      const channel = channels.get(channelName)!;
      channel.subscriberIds.push(userId(name));
      rows.push({
        user_id: userId(name),
        recipient_id: channel.recipientId,
        color: STREAM_ASSIGNMENT_COLORS[(rows.length + 1) % STREAM_ASSIGNMENT_COLORS.length],
      });
      await auditLogStore.insert(tx.q, {
        realm_id: realm.id,
        event_type: "subscription_created",
        modified_user_id: userId(name),
        modified_stream_id: channel.id,
      });
    }
  }
  await subscriptionStore.insertMany(tx.q, rows);
  return channels;
}

async function seedMessages(tx: Tx, realm: Realm, channels: Map<string, SeededChannel>): Promise<void> {
  const personalRecipient = new Map((await userStore.listInRealm(tx.q, realm.id)).map((u) => [u.id, u.recipient_id]));
  const channelsWithMessages = new Set<number>();
  // The channels' daily counts (stream_weekly_traffic, is_recently_active), in one statement at the end.
  const counted: Array<{ recipientId: number; id: number; dateSent: number }> = [];
  const start = nowSeconds() - MESSAGES.length * 60;
  for (const [index, seed] of MESSAGES.entries()) {
    const senderId = userId(seed.from);
    const channel = "channel" in seed ? channels.get(seed.channel)! : null;
    const target =
      "channel" in seed
        ? { recipientId: channel!.recipientId, topic: seed.topic, receivers: channel!.subscriberIds, flags: 0 }
        : // A direct message's recipient is the receiver's personal recipient, as in Zulip.
          { recipientId: personalRecipient.get(userId(seed.to))!, topic: "", receivers: [senderId, userId(seed.to)], flags: MessageFlag.IS_PRIVATE };
    const message = await messageStore.insert(tx.q, {
      realm_id: realm.id,
      sender_id: senderId,
      recipient_id: target.recipientId,
      subject: target.topic,
      content: seed.text,
      rendered_content: `<p>${escapeHtml(seed.text)}</p>`,
      rendered_content_version: 1,
      date_sent: start + index * 60,
      sending_client: "populate_db",
      is_channel_message: channel ? 1 : 0,
    });
    await messageSearchStore.index(tx.q, [message]);
    if (channel) counted.push({ recipientId: channel.recipientId, id: message.id, dateSent: message.date_sent });
    if (channel && !channelsWithMessages.has(channel.id)) {
      channelsWithMessages.add(channel.id);
      await streamStore.update(tx.q, channel.id, { first_message_id: message.id });
    }
    const receivers = [...new Set(target.receivers)].sort((a, b) => a - b);
    await userMessageStore.insertMany(
      tx.q,
      receivers.map((id) => ({ user_id: id, message_id: message.id, flags: target.flags | (id === senderId ? MessageFlag.READ : 0) })),
    );
  }
  await streamStore.countChannelMessages(tx.q, counted);
}

async function seedUserGroup(tx: Tx, realm: Realm, group: (name: string) => number): Promise<void> {
  // Zulip 10's defaults for a user-created group (no creator: "group_creator" settings are nobody).
  const hamletCharacters = await userGroupStore.insert(tx.q, {
    realm_id: realm.id,
    name: "hamletcharacters",
    description: "Characters of Hamlet",
    named: 1,
    is_system_group: 0,
    date_created: nowSeconds(),
    creator_id: null,
    can_add_members_group_id: group("role:nobody"),
    can_join_group_id: group("role:nobody"),
    can_leave_group_id: group("role:everyone"),
    can_manage_group_id: group("role:nobody"),
    can_mention_group_id: group("role:everyone"),
    can_remove_members_group_id: group("role:nobody"),
  });
  await userGroupStore.addMembers(tx.q, hamletCharacters.id, [userId("cordelia"), userId("hamlet")]);
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "user_group_created", modified_group_id: hamletCharacters.id });
}

/** The dev realm's custom profile fields (populate_db), with Iago's and Hamlet's values. */
async function seedProfileFields(tx: Tx, realm: Realm): Promise<void> {
  const T = ProfileFieldType;
  const fields = [
    { name: "Phone number", field_type: T.SHORT_TEXT, hint: "", iago: "+1-234-567-8901", hamlet: "+0-11-23-456-7890" },
    {
      name: "Biography",
      field_type: T.LONG_TEXT,
      hint: "What are you known for?",
      iago: "Betrayer of Othello.",
      hamlet: "I am:\n* The prince of Denmark\n* Nephew to the usurping Claudius",
    },
    { name: "Favorite food", field_type: T.SHORT_TEXT, hint: "Or drink, if you'd prefer", iago: "Apples", hamlet: "Dark chocolate" },
    {
      name: "Favorite editor",
      field_type: T.SELECT,
      hint: "",
      field_data: { "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } },
      display_in_profile_summary: 1 as const,
      iago: "1",
      hamlet: "0",
    },
    { name: "Birthday", field_type: T.DATE, hint: "", iago: "2000-01-01", hamlet: "1900-01-01" },
    {
      name: "Favorite website",
      field_type: T.URL,
      hint: "Or your personal blog's URL",
      display_in_profile_summary: 1 as const,
      iago: "https://zulip.readthedocs.io/en/latest/",
      hamlet: "https://blog.zulig.org",
    },
    { name: "Mentor", field_type: T.USER, hint: "", iago: JSON.stringify([userId("hamlet")]), hamlet: JSON.stringify([userId("iago")]) },
    { name: "GitHub username", field_type: T.EXTERNAL_ACCOUNT, hint: "", field_data: { subtype: "github" }, iago: "zulip", hamlet: "zulipbot" },
    { name: "Pronouns", field_type: T.PRONOUNS, hint: "What pronouns should people use to refer to you?", iago: "he/him", hamlet: "he/him" },
  ];
  for (const spec of fields) {
    const field = await customProfileFieldStore.insert(tx.q, {
      realm_id: realm.id,
      name: spec.name,
      hint: spec.hint,
      field_type: spec.field_type,
      field_data: "field_data" in spec ? JSON.stringify(spec.field_data) : "",
      display_in_profile_summary: "display_in_profile_summary" in spec ? spec.display_in_profile_summary : 0,
    });
    for (const [name, value] of [
      ["iago", spec.iago],
      ["hamlet", spec.hamlet],
    ] as const) {
      const rendered = isRenderedFieldType(spec.field_type) ? await renderProfileFieldValue(tx.q, realm.id, value) : null;
      await customProfileFieldStore.upsertValue(tx.q, userId(name), field.id, value, rendered);
    }
  }
}
