import type { Selectable } from "kysely";
import type { Database, Realm, User } from "../../db/schema.js";
import { REALM_GROUP_PERMISSION_NAMES, REALM_GROUP_PERMISSIONS, realmSettings, storedRealmGroupPermission } from "../../models/realmSettings.js";
import { realmUserSettingsDefaults, userSettings } from "../../models/userSettings.js";

/**
 * Parley's rows in the form of Zulip's export (zerver/lib/export.py): one object per row of
 * Zulip's table, named as its Django model's fields — a foreign key by its field name without
 * `_id` ("realm", "sender", "user_profile"), booleans as booleans, times as UNIX seconds. Settings
 * that Parley keeps as JSON (a realm's, a user's) are spread into columns as Zulip has them.
 */
export type Row = Record<string, unknown>;
type Sel<T extends keyof Database> = Selectable<Database[T]>;

const bool = (flag: number | null) => (flag === null ? null : flag === 1);

/** Zulip's EXCLUDED_USER_PROFILE_FIELDS: never exported. */
export function userProfileRow(user: User): Row {
  return {
    id: user.id,
    realm: user.realm_id,
    email: user.email,
    delivery_email: user.delivery_email,
    full_name: user.full_name,
    role: user.role,
    is_active: bool(user.is_active),
    is_bot: bool(user.is_bot),
    bot_type: user.bot_type,
    bot_owner: user.bot_owner_id,
    is_mirror_dummy: bool(user.is_mirror_dummy),
    date_joined: user.date_joined,
    timezone: user.timezone,
    avatar_source: user.avatar_source,
    avatar_version: user.avatar_version,
    can_create_users: bool(user.can_create_users),
    can_change_user_emails: bool(user.can_change_user_emails),
    can_forge_sender: bool(user.can_forge_sender),
    long_term_idle: bool(user.long_term_idle),
    last_active_message_id: user.last_active_message_id,
    recipient: user.recipient_id,
    default_sending_stream: user.default_sending_stream_id,
    default_events_register_stream: user.default_events_register_stream_id,
    default_all_public_streams: bool(user.default_all_public_streams),
    ...userSettings(user),
  };
}

/** The realm row; group permissions by the id of their group (the default system group's when unset). */
export function realmRow(realm: Realm, systemGroupIds: ReadonlyMap<string, number>): Row {
  const permissions = Object.fromEntries(
    REALM_GROUP_PERMISSION_NAMES.map((name) => [
      name,
      storedRealmGroupPermission(realm, name) ?? systemGroupIds.get(REALM_GROUP_PERMISSIONS[name].default_group_name) ?? null,
    ]),
  );
  return {
    id: realm.id,
    string_id: realm.string_id,
    name: realm.name,
    description: realm.description,
    date_created: realm.date_created,
    deactivated: bool(realm.deactivated),
    icon_source: realm.icon_source,
    icon_version: realm.icon_version,
    message_retention_days: realm.message_retention_days,
    ...realmSettings(realm),
    ...permissions,
  };
}

export const realmUserDefaultRow = (realm: Realm): Row => ({ id: realm.id, realm: realm.id, ...realmUserSettingsDefaults(realm) });

export const streamRow = (s: Sel<"streams">): Row => ({
  id: s.id,
  realm: s.realm_id,
  name: s.name,
  description: s.description,
  rendered_description: s.rendered_description,
  invite_only: bool(s.invite_only),
  is_web_public: bool(s.is_web_public),
  history_public_to_subscribers: bool(s.history_public_to_subscribers),
  deactivated: bool(s.is_archived),
  date_created: s.date_created,
  creator: s.creator_id,
  message_retention_days: s.message_retention_days,
  recipient: s.recipient_id,
  first_message_id: s.first_message_id,
  can_add_subscribers_group: s.can_add_subscribers_group_id,
  can_remove_subscribers_group: s.can_remove_subscribers_group_id,
  can_administer_channel_group: s.can_administer_channel_group_id,
  can_send_message_group: s.can_send_message_group_id,
  can_subscribe_group: s.can_subscribe_group_id,
});

export const recipientRow = (r: Sel<"recipients">): Row => ({ id: r.id, type: r.type, type_id: r.type_id });

export const subscriptionRow = (s: Sel<"subscriptions">): Row => ({
  id: s.id,
  user_profile: s.user_id,
  recipient: s.recipient_id,
  active: bool(s.active),
  is_user_active: bool(s.is_user_active),
  color: s.color,
  pin_to_top: bool(s.pin_to_top),
  is_muted: bool(s.is_muted),
  desktop_notifications: bool(s.desktop_notifications),
  audible_notifications: bool(s.audible_notifications),
  push_notifications: bool(s.push_notifications),
  email_notifications: bool(s.email_notifications),
  wildcard_mentions_notify: bool(s.wildcard_mentions_notify),
});

/** A subscription Zulip has and Parley does not keep (to one's own direct messages, to a group's). */
export function impliedSubscriptionRow(id: number, userId: number, recipientId: number, isUserActive: boolean): Row {
  return {
    id,
    user_profile: userId,
    recipient: recipientId,
    active: true,
    is_user_active: isUserActive,
    color: "#c2c2c2",
    pin_to_top: false,
    is_muted: false,
    desktop_notifications: null,
    audible_notifications: null,
    push_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
  };
}

export const huddleRow = (g: Sel<"direct_message_groups">): Row => ({
  id: g.id,
  huddle_hash: g.member_key,
  group_size: g.group_size,
  recipient: g.recipient_id,
});

export const userGroupRow = (g: Sel<"user_groups">): Row => ({ id: g.id, realm: g.realm_id });

export const namedUserGroupRow = (g: Sel<"user_groups">): Row => ({
  usergroup_ptr: g.id,
  id: g.id,
  realm_for_sharding: g.realm_id,
  name: g.name,
  description: g.description,
  is_system_group: bool(g.is_system_group),
  deactivated: bool(g.deactivated),
  date_created: g.date_created,
  creator: g.creator_id,
  can_add_members_group: g.can_add_members_group_id,
  can_join_group: g.can_join_group_id,
  can_leave_group: g.can_leave_group_id,
  can_manage_group: g.can_manage_group_id,
  can_mention_group: g.can_mention_group_id,
  can_remove_members_group: g.can_remove_members_group_id,
});

export const customProfileFieldRow = (f: Sel<"custom_profile_fields">): Row => ({
  id: f.id,
  realm: f.realm_id,
  name: f.name,
  hint: f.hint,
  field_type: f.field_type,
  field_data: f.field_data,
  order: f.order,
  display_in_profile_summary: bool(f.display_in_profile_summary),
  required: bool(f.required),
  editable_by_user: bool(f.editable_by_user),
});

export const customProfileFieldValueRow = (v: Sel<"custom_profile_field_values">): Row => ({
  id: v.id,
  user_profile: v.user_id,
  field: v.field_id,
  value: v.value,
  rendered_value: v.rendered_value,
});

export const realmEmojiRow = (e: Sel<"realm_emoji">): Row => ({
  id: e.id,
  realm: e.realm_id,
  name: e.name,
  author: e.author_id,
  file_name: e.file_name,
  is_animated: bool(e.is_animated),
  deactivated: bool(e.deactivated),
});

export const realmFilterRow = (f: Sel<"realm_linkifiers">): Row => ({
  id: f.id,
  realm: f.realm_id,
  pattern: f.pattern,
  url_template: f.url_template,
  order: f.order,
});
export const realmPlaygroundRow = (p: Sel<"realm_playgrounds">): Row => ({
  id: p.id,
  realm: p.realm_id,
  name: p.name,
  pygments_language: p.pygments_language,
  url_template: p.url_template,
});

export const userTopicRow = (t: Sel<"user_topics">): Row => ({
  id: t.id,
  user_profile: t.user_id,
  stream: t.stream_id,
  recipient: t.recipient_id,
  topic_name: t.topic_name,
  last_updated: t.last_updated,
  visibility_policy: t.visibility_policy,
});

export const userStatusRow = (s: Sel<"user_statuses">): Row => ({
  id: s.user_id,
  user_profile: s.user_id,
  timestamp: s.timestamp,
  status_text: s.status_text,
  emoji_name: s.emoji_name,
  emoji_code: s.emoji_code,
  reaction_type: s.reaction_type,
});

export const userPresenceRow = (p: Sel<"user_presences">): Row => ({
  id: p.user_id,
  user_profile: p.user_id,
  realm: p.realm_id,
  last_connected_time: p.last_connected_time,
  last_active_time: p.last_active_time,
  last_update_id: p.last_update_id,
});

export const mutedUserRow = (m: Sel<"muted_users">, id: number): Row => ({
  id,
  user_profile: m.user_id,
  muted_user: m.muted_user_id,
  date_muted: m.date_muted,
});
export const alertWordRow = (a: Sel<"alert_words">, realmId: number): Row => ({ id: a.id, user_profile: a.user_id, realm: realmId, word: a.word });
export const savedSnippetRow = (s: Sel<"saved_snippets">): Row => ({
  id: s.id,
  realm: s.realm_id,
  user_profile: s.user_id,
  title: s.title,
  content: s.content,
  date_created: s.date_created,
});
export const serviceRow = (s: Sel<"bot_services">): Row => ({
  id: s.id,
  user_profile: s.bot_id,
  name: s.name,
  base_url: s.base_url,
  token: s.token,
  interface: s.interface,
});
export const botStorageRow = (s: Sel<"bot_storage">): Row => ({ id: s.id, bot_profile: s.bot_id, key: s.key, value: s.value });

export const auditLogRow = (a: Sel<"audit_log">): Row => ({
  id: a.id,
  realm: a.realm_id,
  acting_user: a.acting_user_id,
  modified_user: a.modified_user_id,
  modified_stream: a.modified_stream_id,
  modified_user_group: a.modified_group_id,
  event_type: a.event_type,
  event_time: a.event_time,
  extra_data: a.extra_data,
});

export const scheduledMessageRow = (m: Sel<"scheduled_messages">, clientIds: ReadonlyMap<string, number>): Row => ({
  id: m.id,
  realm: m.realm_id,
  sender: m.sender_id,
  recipient: m.recipient_id,
  subject: m.subject,
  content: m.content,
  rendered_content: m.rendered_content,
  scheduled_timestamp: m.scheduled_timestamp,
  read_by_sender: bool(m.read_by_sender),
  sending_client: clientIds.get(m.sending_client) ?? null,
  delivered: bool(m.delivered),
  delivered_message: m.delivered_message_id,
  failed: bool(m.failed),
  failure_message: m.failure_message,
});

export const realmExportRow = (e: Sel<"realm_exports">): Row => ({
  id: e.id,
  realm: e.realm_id,
  acting_user: e.acting_user_id,
  type: e.type,
  status: e.status,
  date_requested: e.date_requested,
  date_started: e.date_started,
  date_succeeded: e.date_succeeded,
  date_failed: e.date_failed,
  date_deleted: e.date_deleted,
  export_path: e.export_path,
  sha256sum_hex: e.sha256sum_hex,
  tarball_size_bytes: e.tarball_size_bytes,
  stats: e.stats === null ? null : JSON.parse(e.stats),
});

/** Zulip's Message.type: a normal message. */
const MESSAGE_TYPE_NORMAL = 1;

export const messageRow = (m: Sel<"messages">, clientIds: ReadonlyMap<string, number>): Row => ({
  id: m.id,
  realm: m.realm_id,
  sender: m.sender_id,
  recipient: m.recipient_id,
  subject: m.subject,
  content: m.content,
  rendered_content: m.rendered_content,
  rendered_content_version: m.rendered_content_version,
  date_sent: m.date_sent,
  sending_client: clientIds.get(m.sending_client) ?? null,
  last_edit_time: m.last_edit_time,
  edit_history: m.edit_history,
  has_attachment: bool(m.has_attachment),
  has_image: bool(m.has_image),
  has_link: bool(m.has_link),
  is_channel_message: bool(m.is_channel_message),
  type: MESSAGE_TYPE_NORMAL,
});

export const userMessageRow = (u: Sel<"user_messages">, id: number): Row => ({ id, user_profile: u.user_id, message: u.message_id, flags_mask: u.flags });

export const reactionRow = (r: Sel<"reactions">): Row => ({
  id: r.id,
  user_profile: r.user_id,
  message: r.message_id,
  emoji_name: r.emoji_name,
  emoji_code: r.emoji_code,
  reaction_type: r.reaction_type,
});

export const attachmentRow = (a: Sel<"attachments">, messageIds: number[], scheduledMessageIds: number[]): Row => ({
  id: a.id,
  realm: a.realm_id,
  owner: a.owner_id,
  file_name: a.file_name,
  path_id: a.path_id,
  size: a.size,
  content_type: a.content_type,
  create_time: a.create_time,
  is_realm_public: bool(a.is_realm_public),
  is_web_public: bool(a.is_web_public),
  messages: messageIds,
  scheduled_messages: scheduledMessageIds,
});
