import { generateApiKey } from "../../lib/apiKeys.js";
import { isEmojiFileName } from "../../lib/emojiFiles.js";
import type { Row } from "../../lib/import/zulipArchive.js";
import { REALM_GROUP_PERMISSION_NAMES, REALM_SETTING_DEFAULTS } from "../../models/realmSettings.js";
import { USER_SETTING_DEFAULTS, serializeUserSettings } from "../../models/userSettings.js";
import type { ImportRow } from "../../store/imports.js";
import type { IdMap } from "./idMap.js";

/**
 * Zulip's export rows (lib/export/tableRows.ts is the other direction) as Parley's rows, every id
 * remapped through the IdMap. Columns that point forward (a user's bot owner, a group's
 * permission groups) are left null here and set once every row of their table exists.
 */
const flag = (value: unknown): 0 | 1 => (value === true || value === 1 ? 1 : 0);
const flagOrNull = (value: unknown): 0 | 1 | null => (value === null || value === undefined ? null : flag(value));
const str = (value: unknown, fallback = ""): string => (typeof value === "string" ? value : fallback);
const num = (value: unknown, fallback = 0): number => (typeof value === "number" ? value : fallback);
/** A time: Zulip writes its DateTimeFields as float seconds (export.py floatify_datetime_fields). */
const time = (value: unknown, fallback = 0): number => (typeof value === "number" ? Math.floor(value) : fallback);
const timeOrNull = (value: unknown): number | null => (typeof value === "number" ? Math.floor(value) : null);

/** Settings kept as JSON (a realm's, a user's): the row's values of the known settings. */
function pickSettings(row: Row, defaults: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(defaults)) if (name in row && row[name] !== undefined) out[name] = row[name];
  return out;
}

const STREAM_SETTINGS = ["new_stream_announcements_stream_id", "signup_announcements_stream_id", "zulip_update_announcements_stream_id"];

export function realmRow(m: IdMap, realm: Row, userDefaults: Row | undefined, stringId: string): ImportRow {
  const settings = pickSettings(realm, REALM_SETTING_DEFAULTS);
  for (const name of STREAM_SETTINGS) {
    // Zulip's export names the foreign key without "_id" (model_to_dict), Parley's with it.
    const fk = realm[name.slice(0, -3)];
    if (!(name in realm) && (typeof fk === "number" || fk === null)) settings[name] = fk ?? -1;
    const value = settings[name];
    if (typeof value === "number" && value > 0) settings[name] = m.stream(value);
  }
  for (const [name, value] of Object.entries(settings)) if ((REALM_SETTING_DEFAULTS as Record<string, unknown>)[name] === value) delete settings[name];
  for (const name of REALM_GROUP_PERMISSION_NAMES) if (typeof realm[name] === "number") settings[name] = m.group(realm[name]);
  return {
    string_id: stringId,
    name: str(realm.name, stringId),
    description: str(realm.description),
    date_created: time(realm.date_created, Math.floor(Date.now() / 1000)),
    deactivated: 1,
    // Zulip's -1 is "unlimited", which is null here.
    message_retention_days: typeof realm.message_retention_days === "number" && realm.message_retention_days > 0 ? realm.message_retention_days : null,
    settings: JSON.stringify(settings),
    user_settings_defaults: userDefaults ? serializeUserSettings(pickSettings(userDefaults, USER_SETTING_DEFAULTS)) : "{}",
  };
}

export function userRow(m: IdMap, u: Row): ImportRow {
  return {
    id: m.user(u.id),
    realm_id: m.realmId,
    email: str(u.email),
    delivery_email: str(u.delivery_email, str(u.email)),
    full_name: str(u.full_name),
    role: num(u.role, 400),
    is_active: flag(u.is_active),
    is_bot: flag(u.is_bot),
    bot_type: typeof u.bot_type === "number" ? u.bot_type : null,
    bot_owner_id: null,
    is_mirror_dummy: flag(u.is_mirror_dummy),
    date_joined: time(u.date_joined),
    timezone: str(u.timezone),
    // Avatars are not in Parley's exports, and Zulip's are not carried over: Gravatar until changed.
    avatar_source: "G",
    avatar_version: num(u.avatar_version, 1),
    // Zulip's export holds neither passwords nor API keys: new keys, passwords to be reset.
    api_key: generateApiKey(),
    password_hash: null,
    can_create_users: flag(u.can_create_users),
    can_change_user_emails: flag(u.can_change_user_emails),
    can_forge_sender: flag(u.can_forge_sender),
    long_term_idle: flag(u.long_term_idle),
    last_active_message_id: m.messageOrNull(u.last_active_message_id),
    settings: serializeUserSettings(pickSettings(u, USER_SETTING_DEFAULTS) as never),
    recipient_id: u.recipient === null || u.recipient === undefined ? null : m.recipient(u.recipient),
    default_sending_stream_id: null,
    default_events_register_stream_id: null,
    default_all_public_streams: flag(u.default_all_public_streams),
  };
}

/** What userRow leaves null: set once the users and channels exist. */
export function userLinks(m: IdMap, u: Row): ImportRow {
  const out: ImportRow = {};
  if (u.bot_owner != null) out.bot_owner_id = m.user(u.bot_owner);
  if (u.default_sending_stream != null) out.default_sending_stream_id = m.stream(u.default_sending_stream);
  if (u.default_events_register_stream != null) out.default_events_register_stream_id = m.stream(u.default_events_register_stream);
  return out;
}

const RECIPIENT_TYPES: Record<number, (m: IdMap, id: unknown) => number> = {
  1: (m, id) => m.user(id),
  2: (m, id) => m.stream(id),
  3: (m, id) => m.id("direct_message_groups", id),
};

export function recipientRow(m: IdMap, r: Row): ImportRow {
  const mapType = RECIPIENT_TYPES[r.type as number];
  if (!mapType) throw new Error(`zerver_recipient ${r.id} has an unknown type ${String(r.type)}`);
  return { id: m.recipient(r.id), type: r.type, type_id: mapType(m, r.type_id) };
}

const GROUP_PERMISSIONS = ["can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group", "can_remove_members_group"];

export function userGroupRow(m: IdMap, g: Row, named: Row | undefined): ImportRow {
  return {
    id: m.group(g.id),
    realm_id: m.realmId,
    name: named ? str(named.name) : null,
    description: named ? str(named.description) : "",
    named: named ? 1 : 0,
    is_system_group: flag(named?.is_system_group),
    deactivated: flag(named?.deactivated),
    date_created: named ? timeOrNull(named.date_created) : null,
  };
}

export function userGroupLinks(m: IdMap, named: Row): ImportRow {
  const out: ImportRow = {};
  if (named.creator != null) out.creator_id = m.user(named.creator);
  for (const name of GROUP_PERMISSIONS) if (named[name] != null) out[`${name}_id`] = m.group(named[name]);
  return out;
}

export function streamRow(m: IdMap, s: Row): ImportRow {
  return {
    id: m.stream(s.id),
    realm_id: m.realmId,
    name: str(s.name),
    description: str(s.description),
    rendered_description: m.content(str(s.rendered_description)),
    invite_only: flag(s.invite_only),
    is_web_public: flag(s.is_web_public),
    history_public_to_subscribers: flag(s.history_public_to_subscribers ?? true),
    is_archived: flag(s.deactivated),
    date_created: time(s.date_created),
    creator_id: m.userOrNull(s.creator),
    message_retention_days: typeof s.message_retention_days === "number" ? s.message_retention_days : null,
    recipient_id: s.recipient == null ? null : m.recipient(s.recipient),
    first_message_id: m.messageOrNull(s.first_message_id),
    can_add_subscribers_group_id: m.groupOrNull(s.can_add_subscribers_group),
    can_remove_subscribers_group_id: m.groupOrNull(s.can_remove_subscribers_group),
    can_administer_channel_group_id: m.groupOrNull(s.can_administer_channel_group),
    can_send_message_group_id: m.groupOrNull(s.can_send_message_group),
    can_subscribe_group_id: m.groupOrNull(s.can_subscribe_group),
  };
}

/**
 * A group direct message conversation. Its members are its recipient's subscribers (Zulip's
 * huddle_hash is a SHA-1 of the member ids, not the ids).
 */
export function directMessageGroupRow(m: IdMap, h: Row, memberIds: readonly number[]): ImportRow {
  const members = memberIds.map((id) => m.user(id)).sort((a, b) => a - b);
  return {
    id: m.id("direct_message_groups", h.id),
    realm_id: m.realmId,
    member_key: members.join(","),
    group_size: members.length,
    recipient_id: h.recipient == null ? null : m.recipient(h.recipient),
  };
}

export function subscriptionRow(m: IdMap, s: Row): ImportRow {
  return {
    id: m.id("subscriptions", s.id),
    user_id: m.user(s.user_profile),
    recipient_id: m.recipient(s.recipient),
    active: flag(s.active),
    is_user_active: flag(s.is_user_active ?? true),
    color: str(s.color, "#c2c2c2"),
    pin_to_top: flag(s.pin_to_top),
    is_muted: flag(s.is_muted),
    desktop_notifications: flagOrNull(s.desktop_notifications),
    audible_notifications: flagOrNull(s.audible_notifications),
    push_notifications: flagOrNull(s.push_notifications),
    email_notifications: flagOrNull(s.email_notifications),
    wildcard_mentions_notify: flagOrNull(s.wildcard_mentions_notify),
  };
}

/** A reaction's or status's emoji code: a custom emoji's is its id. */
const emojiCode = (m: IdMap, type: unknown, code: unknown): string =>
  type === "realm_emoji" && /^\d+$/.test(String(code)) ? String(m.id("realm_emoji", Number(code))) : str(code);

export function messageRow(m: IdMap, msg: Row, clients: ReadonlyMap<number, string>): ImportRow {
  return {
    id: m.message(msg.id),
    realm_id: m.realmId,
    sender_id: m.user(msg.sender),
    recipient_id: m.recipient(msg.recipient),
    subject: str(msg.subject),
    content: m.content(str(msg.content)),
    rendered_content: m.content(typeof msg.rendered_content === "string" ? msg.rendered_content : null),
    rendered_content_version: typeof msg.rendered_content_version === "number" ? msg.rendered_content_version : null,
    date_sent: time(msg.date_sent),
    sending_client: clients.get(msg.sending_client as number) ?? "import",
    last_edit_time: timeOrNull(msg.last_edit_time),
    edit_history: m.editHistory(typeof msg.edit_history === "string" ? msg.edit_history : null),
    has_attachment: flag(msg.has_attachment),
    has_image: flag(msg.has_image),
    has_link: flag(msg.has_link),
    is_channel_message: flag(msg.is_channel_message),
  };
}

export const userMessageRow = (m: IdMap, um: Row): ImportRow => ({
  user_id: m.user(um.user_profile),
  message_id: m.message(um.message),
  flags: num(um.flags_mask),
});

export const reactionRow = (m: IdMap, r: Row): ImportRow => ({
  id: m.id("reactions", r.id),
  message_id: m.message(r.message),
  user_id: m.user(r.user_profile),
  emoji_name: str(r.emoji_name),
  emoji_code: emojiCode(m, r.reaction_type, r.emoji_code),
  reaction_type: str(r.reaction_type, "unicode_emoji"),
});

export const attachmentRow = (m: IdMap, a: Row): ImportRow => ({
  id: m.id("attachments", a.id),
  realm_id: m.realmId,
  owner_id: m.user(a.owner),
  file_name: str(a.file_name),
  path_id: m.uploadPath(str(a.path_id)),
  size: num(a.size),
  content_type: typeof a.content_type === "string" ? a.content_type : null,
  create_time: time(a.create_time),
  is_realm_public: flag(a.is_realm_public),
  is_web_public: flag(a.is_web_public),
});

/** Zulip's ScheduledMessage.delivery_type: SEND_LATER (1) is a scheduled message; REMIND (2) a reminder. */
export const isSendLater = (s: Row): boolean => s.delivery_type === undefined || s.delivery_type === null || s.delivery_type === 1;

export const scheduledMessageRow = (m: IdMap, s: Row, clients: ReadonlyMap<number, string>): ImportRow => ({
  id: m.id("scheduled_messages", s.id),
  realm_id: m.realmId,
  sender_id: m.user(s.sender),
  recipient_id: m.recipient(s.recipient),
  subject: str(s.subject),
  content: m.content(str(s.content)),
  rendered_content: m.content(str(s.rendered_content)),
  scheduled_timestamp: time(s.scheduled_timestamp),
  read_by_sender: flagOrNull(s.read_by_sender),
  sending_client: clients.get(s.sending_client as number) ?? "import",
  delivered: flag(s.delivered),
  delivered_message_id: m.messageOrNull(s.delivered_message),
  failed: flag(s.failed),
  failure_message: typeof s.failure_message === "string" ? s.failure_message : null,
});

/**
 * Each user's avatar image among avatars/records.json: Zulip stores <hash>.original (as uploaded),
 * <hash>.png (resized, what is shown) and <hash>-medium.png; the .png is taken. Keyed by the
 * export's user id, the path relative to avatars/.
 */
export function avatarFiles(records: readonly Row[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of records) {
    const file = str(r.path);
    if (typeof r.user_profile_id !== "number" && typeof r.user_profile_id !== "string") continue;
    if (!file.endsWith(".png") || file.endsWith("-medium.png")) continue;
    out.set(Number(r.user_profile_id), file);
  }
  return out;
}

/**
 * A custom emoji's file name here: the export's when it is one Parley makes (lib/emojiFiles.ts),
 * else one derived from the emoji's new id (Zulip names them e.g. "3.png").
 */
export function emojiFileName(m: IdMap, e: Row): string | null {
  if (typeof e.file_name !== "string") return null;
  if (isEmojiFileName(e.file_name)) return e.file_name;
  const ext = /\.(png|gif|jpg|webp)$/i.exec(e.file_name)?.[1]?.toLowerCase() ?? "png";
  return `imported_emoji_${String(m.id("realm_emoji", e.id)).padStart(8, "0")}.${ext}`;
}
