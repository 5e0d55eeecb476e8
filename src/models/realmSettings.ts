import type { Realm } from "../db/schema.js";
import { cachedJsonColumn, overridesSchema } from "../util/jsonColumn.js";
import type { SystemGroupName } from "./systemGroups.js";

/**
 * An organization's settings (Zulip's Realm.property_types and friends) with Zulip 10.2's
 * defaults for a new organization. `realms.settings` stores only the values that differ from
 * these, as JSON; name, description, message_retention_days and the icon have their own columns.
 */
export const REALM_SETTING_DEFAULTS = {
  allow_message_editing: true as boolean,
  avatar_changes_disabled: false as boolean,
  default_code_block_language: "" as string,
  default_language: "en" as string,
  digest_emails_enabled: false as boolean,
  digest_weekday: 1 as number,
  disallow_disposable_email_addresses: true as boolean,
  email_changes_disabled: false as boolean,
  emails_restricted_to_domains: false as boolean,
  enable_guest_user_dm_warning: true as boolean,
  enable_guest_user_indicator: true as boolean,
  enable_read_receipts: false as boolean,
  enable_spectator_access: false as boolean,
  giphy_rating: 2 as number,
  inline_image_preview: true as boolean,
  inline_url_embed_preview: false as boolean,
  invite_required: true as boolean,
  jitsi_server_url: null as string | null,
  mandatory_topics: false as boolean,
  message_content_allowed_in_email_notifications: true as boolean,
  /** Seconds; null means no limit. */
  message_content_delete_limit_seconds: 600 as number | null,
  message_content_edit_limit_seconds: 600 as number | null,
  message_edit_history_visibility_policy: "all" as "all" | "moves" | "none",
  move_messages_between_streams_limit_seconds: (7 * 24 * 3600) as number | null,
  move_messages_within_stream_limit_seconds: (7 * 24 * 3600) as number | null,
  /** A channel id, or -1 for none (as the API sends it). */
  moderation_request_channel_id: -1 as number,
  name_changes_disabled: false as boolean,
  name_in_email_notifications_policy: 1 as number,
  new_stream_announcements_stream_id: -1 as number,
  org_type: 0 as number,
  presence_disabled: false as boolean,
  push_notifications_enabled: false as boolean,
  require_unique_names: false as boolean,
  send_welcome_emails: true as boolean,
  signup_announcements_stream_id: -1 as number,
  video_chat_provider: 1 as number,
  waiting_period_threshold: 0 as number,
  want_advertise_in_communities_directory: false as boolean,
  zulip_update_announcements_stream_id: -1 as number,
};
export type RealmSettings = typeof REALM_SETTING_DEFAULTS;
export type RealmSettingName = keyof RealmSettings;

/** Zulip's GroupPermissionSetting: which groups a realm permission may be set to, and its default. */
export interface RealmGroupPermission {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: SystemGroupName;
  allowed_system_groups: SystemGroupName[];
}

function permission(defaultGroup: SystemGroupName, allowEveryone: boolean, extra: Partial<RealmGroupPermission> = {}): RealmGroupPermission {
  return {
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: true,
    allow_everyone_group: allowEveryone,
    default_group_name: defaultGroup,
    allowed_system_groups: [],
    ...extra,
  };
}

/** Zulip 10.2's Realm.REALM_PERMISSION_GROUP_SETTINGS. Stored in realms.settings as a user group id. */
export const REALM_GROUP_PERMISSIONS = {
  can_access_all_users_group: permission("role:everyone", true, {
    require_system_group: true,
    allow_nobody_group: false,
    allowed_system_groups: ["role:everyone", "role:members"],
  }),
  can_add_custom_emoji_group: permission("role:members", false),
  can_add_subscribers_group: permission("role:members", false),
  can_create_bots_group: permission("role:members", false),
  can_create_groups: permission("role:members", false),
  can_create_private_channel_group: permission("role:members", false),
  can_create_public_channel_group: permission("role:members", false),
  can_create_web_public_channel_group: permission("role:owners", false, {
    require_system_group: true,
    allowed_system_groups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"],
  }),
  can_create_write_only_bots_group: permission("role:members", false),
  can_delete_any_message_group: permission("role:administrators", false),
  can_delete_own_message_group: permission("role:everyone", true),
  can_invite_users_group: permission("role:members", false),
  can_manage_all_groups: permission("role:owners", false, { allow_nobody_group: false }),
  can_manage_billing_group: permission("role:administrators", false),
  can_mention_many_users_group: permission("role:administrators", true),
  can_move_messages_between_channels_group: permission("role:members", false),
  can_move_messages_between_topics_group: permission("role:everyone", true),
  can_resolve_topics_group: permission("role:everyone", true),
  can_summarize_topics_group: permission("role:everyone", true),
  create_multiuse_invite_group: permission("role:administrators", false),
  direct_message_initiator_group: permission("role:everyone", true),
  direct_message_permission_group: permission("role:everyone", true),
} satisfies Record<string, RealmGroupPermission>;
export type RealmGroupPermissionName = keyof typeof REALM_GROUP_PERMISSIONS;
export const REALM_GROUP_PERMISSION_NAMES = Object.keys(REALM_GROUP_PERMISSIONS) as RealmGroupPermissionName[];

/** The stored non-default values of a realm (settings and group-permission ids). */
function storedSettings(realm: Pick<Realm, "settings">): Record<string, unknown> {
  return storedRealmSettings(realm.settings || "{}");
}

const storedRealmSettings = cachedJsonColumn(overridesSchema(REALM_SETTING_DEFAULTS), "realms.settings", 100);

/** Every setting of the realm: its stored value where it has one, Zulip's default otherwise. */
export function realmSettings(realm: Pick<Realm, "settings">): RealmSettings {
  const stored = storedSettings(realm);
  const result = { ...REALM_SETTING_DEFAULTS } as Record<string, unknown>;
  for (const name of Object.keys(REALM_SETTING_DEFAULTS)) {
    if (name in stored) result[name] = stored[name];
  }
  return result as RealmSettings;
}

/** The user group id stored for a realm permission, or undefined when it is the default system group. */
export function storedRealmGroupPermission(realm: Pick<Realm, "settings">, name: RealmGroupPermissionName): number | undefined {
  const value = storedSettings(realm)[name];
  return typeof value === "number" ? value : undefined;
}

/** realms.settings with `changes` applied; values equal to the default are dropped. */
export function withRealmSettings(realm: Pick<Realm, "settings">, changes: Record<string, unknown>): string {
  const stored = { ...storedSettings(realm), ...changes };
  for (const [name, value] of Object.entries(stored)) {
    if (name in REALM_SETTING_DEFAULTS && REALM_SETTING_DEFAULTS[name as RealmSettingName] === value) delete stored[name];
  }
  return JSON.stringify(stored);
}

/**
 * The sign-in methods an owner turned off or on (PATCH /realm authentication_methods), by
 * Zulip's method name, kept in realms.settings under `authentication_methods`; a method it does
 * not name is on (lib/authMethods.ts).
 */
export function storedRealmAuthMethods(realm: Pick<Realm, "settings">): Record<string, boolean> {
  const value = storedSettings(realm)[REALM_AUTH_METHODS_KEY];
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, boolean] => typeof entry[1] === "boolean"));
}

/** The key of realms.settings that holds storedRealmAuthMethods. */
export const REALM_AUTH_METHODS_KEY = "authentication_methods";
