// A generated organization export in the layout and with the field names that Zulip's
// `manage.py export` writes (zerver/lib/export.py): realm.json (tables zerver_*; reactions and
// scheduled messages included; DateTimeFields as float seconds; foreign keys named without "_id",
// as Django's model_to_dict gives them; NamedUserGroup rows keyed by usergroup_ptr; huddle_hash a
// SHA-1), messages-000001.json … (zerver_message + zerver_usermessage with flags_mask bitmasks,
// MESSAGE_BATCH_CHUNK_SIZE messages a file), attachment.json (zerver_attachment with its
// many-to-many `messages` / `scheduled_messages` lists), uploads/, avatars/ (<hash>.original,
// <hash>.png, <hash>-medium.png), emoji/ and realm_icons/ with their records.json,
// analytics.json, migration_status.json and stats.txt. Used by test/api/zulipLayoutImport.test.ts
// (small) and scripts/bench-import.mjs (1,000,000 messages). Not real data: generated.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export const REALM_ID = 2;
export const STRING_ID = "zulipfixture";
const T0 = 1700000000.123456;

// Zulip's UserMessage flags (zerver/models/messages.py AbstractUserMessage.ALL_FLAGS order).
export const FLAGS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  has_alert_word: 512,
  historical: 1024,
  is_private: 2048,
};

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const sha1 = (text) => crypto.createHash("sha1").update(text).digest("hex");

function writeJson(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}

/**
 * Writes the export into `dir` (created). Options: users (≥ 4), streams (≥ 2), subscribers per
 * stream, messages, perFile, reactionEvery (a reaction on every n-th message). Returns the ids
 * the tests look for.
 */
export function writeZulipExport(dir, opts = {}) {
  const o = { users: 6, streams: 3, subscribers: 4, messages: 10, perFile: 1000, reactionEvery: 3, ...opts };
  fs.mkdirSync(dir, { recursive: true });
  const userIds = Array.from({ length: o.users }, (_, i) => 10 + i);
  const email = (id) => `user${id}@example.org`;
  const crossRealm = [
    { email: "notification-bot@zulip.com", id: 1, recipient_id: 1 },
    { email: "emailgateway@zulip.com", id: 2, recipient_id: 2 },
    { email: "welcome-bot@zulip.com", id: 5, recipient_id: 5 },
  ];

  // Recipients: 1000 + user id (personal), 2000 + stream id, 3000 + huddle id.
  const streamIds = Array.from({ length: o.streams }, (_, i) => 20 + i);
  const huddleId = 7;
  const huddleMembers = userIds.slice(0, 3);
  const recipients = [
    ...userIds.map((id) => ({ id: 1000 + id, type_id: id, type: 1 })),
    ...streamIds.map((id) => ({ id: 2000 + id, type_id: id, type: 2 })),
    { id: 3000 + huddleId, type_id: huddleId, type: 3 },
  ];

  // User groups: the system groups, then one named and one anonymous group.
  const systemNames = [
    "role:nobody",
    "role:owners",
    "role:administrators",
    "role:moderators",
    "role:fullmembers",
    "role:members",
    "role:everyone",
    "role:internet",
  ];
  const groupId = (name) => 40 + systemNames.indexOf(name);
  const namedGroups = systemNames.map((name) => ({
    usergroup_ptr: groupId(name),
    name,
    realm_for_sharding: REALM_ID,
    description: `System group ${name}`,
    is_system_group: true,
    date_created: T0,
    creator: null,
    deactivated: false,
    can_add_members_group: groupId("role:nobody"),
    can_join_group: groupId("role:nobody"),
    can_leave_group: groupId("role:nobody"),
    can_manage_group: groupId("role:nobody"),
    can_mention_group: groupId("role:everyone"),
    can_remove_members_group: groupId("role:nobody"),
  }));
  namedGroups.push({
    ...namedGroups[0],
    usergroup_ptr: 60,
    name: "backend",
    description: "The **backend** team",
    is_system_group: false,
    creator: userIds[0],
    can_manage_group: 61,
  });
  const usergroups = [...namedGroups.map((g) => ({ id: g.usergroup_ptr, realm: REALM_ID })), { id: 61, realm: REALM_ID }];
  const memberships = [
    ...userIds.map((u, i) => ({ id: 500 + i, user_group: groupId(i === 0 ? "role:owners" : "role:members"), user_profile: u })),
    { id: 490, user_group: 60, user_profile: userIds[1] },
    { id: 491, user_group: 60, user_profile: userIds[2] },
    { id: 492, user_group: 61, user_profile: userIds[0] },
  ];
  const groupGroup = [
    { id: 1, supergroup: groupId("role:administrators"), subgroup: groupId("role:owners") },
    { id: 2, supergroup: groupId("role:moderators"), subgroup: groupId("role:administrators") },
    { id: 3, supergroup: groupId("role:fullmembers"), subgroup: groupId("role:moderators") },
    { id: 4, supergroup: groupId("role:members"), subgroup: groupId("role:fullmembers") },
    { id: 5, supergroup: groupId("role:everyone"), subgroup: groupId("role:members") },
    { id: 6, supergroup: groupId("role:internet"), subgroup: groupId("role:everyone") },
  ];

  const avatarHash = (id) => sha1(`salt${id}`);
  const users = userIds.map((id, i) => ({
    id,
    last_login: T0 + 50,
    is_superuser: false,
    groups: [],
    user_permissions: [],
    delivery_email: email(id),
    email: email(id),
    full_name: `User ${id}`,
    date_joined: T0 + i,
    tos_version: null,
    is_staff: false,
    is_active: i !== o.users - 1,
    is_billing_admin: false,
    is_bot: false,
    bot_type: null,
    bot_owner: null,
    role: i === 0 ? 100 : 400,
    long_term_idle: false,
    last_active_message_id: null,
    is_mirror_dummy: false,
    can_forge_sender: false,
    can_create_users: false,
    last_reminder: null,
    rate_limits: "",
    default_all_public_streams: false,
    default_sending_stream: null,
    default_events_register_stream: null,
    recipient: 1000 + id,
    realm: REALM_ID,
    timezone: i === 1 ? "Europe/Paris" : "",
    avatar_source: i === 1 ? "U" : "G",
    avatar_version: i === 1 ? 3 : 1,
    avatar_hash: null,
    twenty_four_hour_time: i === 1,
    enter_sends: true,
    default_language: "en",
    color_scheme: 1,
    emojiset: "google",
  }));
  // One bot, owned by the first user.
  const botId = 10 + o.users;
  const botEmail = `bot${botId}-bot@example.org`;
  users.push({
    ...users[0],
    id: botId,
    email: botEmail,
    delivery_email: botEmail,
    full_name: "Fixture Bot",
    is_bot: true,
    bot_type: 1,
    bot_owner: userIds[0],
    role: 400,
    recipient: 1000 + botId,
    avatar_source: "G",
  });
  recipients.push({ id: 1000 + botId, type_id: botId, type: 1 });

  const streams = streamIds.map((id, i) => ({
    id,
    realm: REALM_ID,
    name: i === 0 ? "general" : `channel ${i}`,
    description: i === 0 ? "Everyone **here**" : "",
    rendered_description: i === 0 ? "<p>Everyone <strong>here</strong></p>" : "",
    invite_only: i === o.streams - 1,
    history_public_to_subscribers: true,
    is_web_public: false,
    is_in_zephyr_realm: false,
    deactivated: false,
    date_created: T0 + 10 + i,
    creator: userIds[0],
    recipient: 2000 + id,
    message_retention_days: null,
    first_message_id: null,
    can_remove_subscribers_group: groupId("role:administrators"),
    can_administer_channel_group: groupId("role:administrators"),
    can_send_message_group: groupId("role:everyone"),
    can_add_subscribers_group: groupId("role:members"),
    can_subscribe_group: groupId("role:nobody"),
    subscriber_count: Math.min(o.subscribers, o.users),
    is_recently_active: true,
  }));

  // Subscriptions: personal, the streams' (the first `subscribers` users from the stream's index
  // on), and the huddle's.
  const subs = [];
  const sub = (user, recipient, extra = {}) =>
    subs.push({
      id: subs.length + 1,
      user_profile: user,
      recipient,
      active: true,
      is_user_active: true,
      is_muted: false,
      color: "#c2c2c2",
      pin_to_top: false,
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
      ...extra,
    });
  for (const u of users) sub(u.id, u.recipient);
  const streamMembers = streamIds.map((_, s) => Array.from({ length: Math.min(o.subscribers, o.users) }, (_, k) => userIds[(s + k) % o.users]));
  streamIds.forEach((id, s) => {
    for (const u of streamMembers[s]) sub(u, 2000 + id, u === userIds[1] && s === 0 ? { color: "#76ce90", is_muted: true, pin_to_top: true } : {});
  });
  for (const u of huddleMembers) sub(u, 3000 + huddleId);

  // Attachments: one file, linked from the first message. Zulip's path_id: realm id, 1 or 2 hex
  // digits (format(randint(0, 255), "x")), token_urlsafe(18), the sanitized name.
  const pathId = `${REALM_ID}/a/q3Xb9LmT2vR8sK1nZ4pW7yHc/notes.txt`;
  const fileText = "fixture upload contents";
  const uploadUrl = `/user_uploads/${pathId}`;

  // Messages: mostly to streams; every 10th a DM between the first two users, every 10th + 5 to
  // the huddle; the first carries the upload link and a mention of user 2; edits on the second.
  const messageIds = Array.from({ length: o.messages }, (_, i) => 1000 + i);
  const messageFiles = Math.ceil(o.messages / o.perFile);
  let userMessageId = 0;
  const reactions = [];
  for (let f = 0; f < messageFiles; f++) {
    const zerver_message = [];
    const zerver_usermessage = [];
    for (let i = f * o.perFile; i < Math.min(o.messages, (f + 1) * o.perFile); i++) {
      const id = messageIds[i];
      const sender = i === 3 ? 1 : userIds[i % o.users];
      let recipient;
      let receivers;
      let isChannel = true;
      if (i % 10 === 9) {
        recipient = 1000 + userIds[1];
        receivers = [userIds[0], userIds[1]];
        isChannel = false;
      } else if (i % 10 === 5) {
        recipient = 3000 + huddleId;
        receivers = huddleMembers;
        isChannel = false;
      } else {
        const s = i % o.streams;
        recipient = 2000 + streamIds[s];
        receivers = streamMembers[s];
      }
      let content = `message ${i} about things`;
      let rendered = `<p>message ${i} about things</p>`;
      if (i === 0) {
        content = `hello @**User ${userIds[2]}** see [notes.txt](${uploadUrl})`;
        rendered = `<p>hello <span class="user-mention" data-user-id="${userIds[2]}">@User ${userIds[2]}</span> see <a href="${uploadUrl}">notes.txt</a></p>`;
      }
      const edited = i === 1;
      zerver_message.push({
        id,
        sender,
        recipient,
        realm: REALM_ID,
        subject: isChannel ? `topic ${i % 7}` : "",
        content,
        rendered_content: rendered,
        rendered_content_version: 1,
        date_sent: T0 + 1000 + i + 0.25,
        sending_client: i % 2 === 0 ? 1 : 2,
        last_edit_time: edited ? T0 + 5000.5 : null,
        edit_history: edited
          ? JSON.stringify([
              {
                user_id: sender,
                timestamp: Math.floor(T0 + 5000),
                prev_content: "message 1 before",
                prev_rendered_content: "<p>message 1 before</p>",
                prev_rendered_content_version: 1,
              },
            ])
          : null,
        has_attachment: i === 0,
        has_image: false,
        has_link: i === 0,
        type: 1,
        is_channel_message: isChannel,
      });
      for (const u of receivers) {
        let flags = u === sender ? FLAGS.read : i % 2 === 0 ? FLAGS.read : 0;
        if (i === 0 && u === userIds[2]) flags |= FLAGS.mentioned;
        if (i === 2 && u === userIds[2]) flags |= FLAGS.starred;
        if (!isChannel) flags |= FLAGS.is_private;
        zerver_usermessage.push({ id: ++userMessageId, user_profile: u, message: id, flags_mask: flags });
      }
      if (i % o.reactionEvery === 0) {
        reactions.push({
          id: reactions.length + 1,
          user_profile: receivers[0],
          message: id,
          emoji_name: "octopus",
          emoji_code: "1f419",
          reaction_type: "unicode_emoji",
        });
        if (i === 0)
          reactions.push({
            id: reactions.length + 1,
            user_profile: receivers[1],
            message: id,
            emoji_name: "fixture_party",
            emoji_code: "3",
            reaction_type: "realm_emoji",
          });
      }
    }
    writeJson(path.join(dir, `messages-${String(f + 1).padStart(6, "0")}.json`), { zerver_message, zerver_usermessage });
  }

  const scheduled = [
    {
      id: 1,
      sender: userIds[0],
      recipient: 2000 + streamIds[0],
      subject: "later",
      content: "a scheduled message",
      rendered_content: "<p>a scheduled message</p>",
      sending_client: 1,
      stream: streamIds[0],
      realm: REALM_ID,
      scheduled_timestamp: T0 + 10_000_000.5,
      read_by_sender: null,
      delivered: false,
      delivered_message: null,
      has_attachment: false,
      failed: false,
      failure_message: null,
      delivery_type: 1,
      reminder_target_message: null,
      request_timestamp: T0 + 2000.5,
    },
    {
      id: 2,
      sender: userIds[0],
      recipient: 1000 + userIds[0],
      subject: "",
      content: "a reminder",
      rendered_content: "<p>a reminder</p>",
      sending_client: 1,
      stream: null,
      realm: REALM_ID,
      scheduled_timestamp: T0 + 10_000_000.5,
      read_by_sender: true,
      delivered: false,
      delivered_message: null,
      has_attachment: false,
      failed: false,
      failure_message: null,
      delivery_type: 2,
      reminder_target_message: messageIds[0],
      request_timestamp: T0 + 2000.5,
    },
  ];

  const realm = {
    id: REALM_ID,
    name: "Fixture Organization",
    description: "An organization in Zulip's export layout",
    string_id: STRING_ID,
    uuid: "8b6c2c63-2a3b-4c8d-9e0f-112233445566",
    date_created: T0 - 1000.75,
    deactivated: false,
    deactivated_redirect: null,
    emails_restricted_to_domains: false,
    invite_required: true,
    org_type: 0,
    plan_type: 1,
    message_retention_days: -1,
    waiting_period_threshold: 0,
    default_language: "en",
    allow_message_editing: true,
    message_content_edit_limit_seconds: 600,
    new_stream_announcements_stream: streamIds[0],
    signup_announcements_stream: streamIds[0],
    zulip_update_announcements_stream: null,
    can_create_public_channel_group: groupId("role:members"),
    can_create_private_channel_group: groupId("role:members"),
    direct_message_permission_group: groupId("role:everyone"),
    can_access_all_users_group: groupId("role:everyone"),
  };

  const realmJson = {
    zerver_realm: [realm],
    zerver_realmuserdefault: [{ id: 1, realm: REALM_ID, enter_sends: false, twenty_four_hour_time: false, default_language: "en" }],
    zerver_client: [
      { id: 1, name: "website" },
      { id: 2, name: "ZulipMobile" },
    ],
    zerver_userprofile: users,
    zerver_userprofile_mirrordummy: [],
    zerver_userprofile_crossrealm: crossRealm,
    zerver_recipient: recipients,
    zerver_stream: streams,
    zerver_subscription: subs,
    zerver_huddle: [{ id: huddleId, huddle_hash: sha1(huddleMembers.join(",")), group_size: huddleMembers.length, recipient: 3000 + huddleId }],
    zerver_usergroup: usergroups,
    zerver_namedusergroup: namedGroups,
    zerver_usergroupmembership: memberships,
    zerver_groupgroupmembership: groupGroup,
    zerver_defaultstream: [{ id: 1, realm: REALM_ID, stream: streamIds[0] }],
    zerver_realmemoji: [{ id: 3, author: userIds[0], realm: REALM_ID, name: "fixture_party", file_name: "3.png", is_animated: false, deactivated: false }],
    zerver_realmdomain: [{ id: 1, realm: REALM_ID, domain: "example.org", allow_subdomains: false }],
    zerver_realmfilter: [{ id: 1, realm: REALM_ID, pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example.org/{id}", order: 0 }],
    zerver_realmplayground: [],
    zerver_realmauthenticationmethod: [{ id: 1, realm: REALM_ID, name: "Email" }],
    zerver_realmauditlog: userIds.map((u, i) => ({
      id: i + 1,
      realm: REALM_ID,
      acting_user: null,
      modified_user: u,
      event_type: 101,
      event_time: T0 + i,
      backfilled: false,
      extra_data: {},
    })),
    zerver_customprofilefield: [
      {
        id: 1,
        realm: REALM_ID,
        name: "Team",
        hint: "Your team",
        order: 1,
        field_type: 1,
        field_data: "",
        display_in_profile_summary: false,
        required: false,
        editable_by_user: true,
      },
    ],
    zerver_customprofilefieldvalue: [{ id: 1, user_profile: userIds[1], field: 1, value: "infra", rendered_value: null }],
    zerver_usertopic: [
      {
        id: 1,
        user_profile: userIds[1],
        stream: streamIds[0],
        recipient: 2000 + streamIds[0],
        topic_name: "topic 0",
        last_updated: T0 + 3000.9,
        visibility_policy: 2,
      },
    ],
    zerver_muteduser: [{ id: 1, user_profile: userIds[0], muted_user: userIds[3], date_muted: T0 + 3000.9 }],
    zerver_alertword: [{ id: 1, realm: REALM_ID, user_profile: userIds[1], word: "things" }],
    zerver_userpresence: userIds.map((u, i) => ({
      id: i + 1,
      realm: REALM_ID,
      user_profile: u,
      last_active_time: T0,
      last_connected_time: T0,
      last_update_id: 0,
    })),
    zerver_presencesequence: [{ id: 1, realm: REALM_ID, last_update_id: 0 }],
    zerver_userstatus: [],
    zerver_useractivity: [],
    zerver_useractivityinterval: [],
    zerver_onboardingstep: [],
    zerver_botstoragedata: [],
    zerver_botconfigdata: [],
    zerver_service: [],
    zerver_scheduledmessage: scheduled,
    zerver_reaction: reactions,
  };
  writeJson(path.join(dir, "realm.json"), realmJson);

  writeJson(path.join(dir, "attachment.json"), {
    zerver_attachment: [
      {
        id: 1,
        file_name: "notes.txt",
        path_id: pathId,
        is_realm_public: true,
        is_web_public: false,
        realm: REALM_ID,
        owner: userIds[0],
        create_time: T0 + 999.5,
        size: fileText.length,
        content_type: "text/plain",
        messages: [messageIds[0]],
        scheduled_messages: [],
      },
    ],
  });
  fs.mkdirSync(path.join(dir, "uploads", path.dirname(pathId)), { recursive: true });
  fs.writeFileSync(path.join(dir, "uploads", pathId), fileText);
  writeJson(path.join(dir, "uploads", "records.json"), [
    {
      realm_id: REALM_ID,
      user_profile_id: userIds[0],
      user_profile_email: email(userIds[0]),
      s3_path: pathId,
      path: pathId,
      size: fileText.length,
      last_modified: T0,
      content_type: null,
    },
  ]);

  const avatarRecords = [];
  const avatarUser = userIds[1];
  for (const suffix of [".original", ".png", "-medium.png"]) {
    const rel = `${REALM_ID}/${avatarHash(avatarUser)}${suffix}`;
    fs.mkdirSync(path.join(dir, "avatars", path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, "avatars", rel), PNG);
    avatarRecords.push({
      realm_id: REALM_ID,
      user_profile_id: avatarUser,
      user_profile_email: email(avatarUser),
      s3_path: rel,
      path: rel,
      size: PNG.length,
      last_modified: T0,
      content_type: null,
    });
  }
  writeJson(path.join(dir, "avatars", "records.json"), avatarRecords);

  const emojiPath = `${REALM_ID}/emoji/images/3.png`;
  fs.mkdirSync(path.join(dir, "emoji", path.dirname(emojiPath)), { recursive: true });
  fs.writeFileSync(path.join(dir, "emoji", emojiPath), PNG);
  writeJson(path.join(dir, "emoji", "records.json"), [
    { realm_id: REALM_ID, author: userIds[0], path: emojiPath, s3_path: emojiPath, file_name: "3.png", name: "fixture_party", deactivated: false },
  ]);
  writeJson(path.join(dir, "realm_icons", "records.json"), []);
  writeJson(path.join(dir, "analytics.json"), { analytics_realmcount: [], analytics_streamcount: [], analytics_usercount: [] });
  writeJson(path.join(dir, "migration_status.json"), { zulip_version: "10.0", migrations_by_app: {} });
  fs.writeFileSync(path.join(dir, "stats.txt"), `realm.json\n${o.messages} messages\n`);

  return {
    botEmail,
    userIds,
    streamIds,
    messageIds,
    huddleMembers,
    avatarUser,
    uploadUrl,
    fileText,
    reactions: reactions.length,
    userMessages: userMessageId,
    messageFiles,
  };
}
