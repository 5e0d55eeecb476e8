import type { Realm, User } from "../../db/schema.js";
import { Role } from "../../models/roles.js";
import { serializeUserSettings } from "../../models/userSettings.js";
import { realmSettings } from "../../models/realmSettings.js";

/** Zulip's placeholder address of the anonymous settings user. */
const ANONYMOUS_EMAIL = "username@example.com";

/**
 * The user whose settings a visitor's POST /register reports (Zulip's unsaved
 * `UserProfile(full_name="Anonymous User", id=0, role=ROLE_GUEST, ...)`): the server's default
 * settings (not the organization's defaults for new users), the home view "recent_topics", and the
 * language the visitor asked for, else the organization's. Id 0 names no row; it is a guest so
 * that every guest restriction applies. Never stored, never used for access decisions.
 */
export function anonymousSettingsUser(realm: Realm, language?: string): User {
  return {
    id: 0,
    realm_id: realm.id,
    email: ANONYMOUS_EMAIL,
    delivery_email: ANONYMOUS_EMAIL,
    full_name: "Anonymous User",
    role: Role.GUEST,
    is_active: 1,
    is_bot: 0,
    bot_type: null,
    bot_owner_id: null,
    is_mirror_dummy: 0,
    date_joined: 0,
    timezone: "",
    avatar_source: "G",
    avatar_version: 1,
    api_key: "",
    password_hash: null,
    can_create_users: 0,
    can_change_user_emails: 0,
    can_forge_sender: 0,
    long_term_idle: 0,
    last_active_message_id: null,
    settings: serializeUserSettings({ default_language: language ?? realmSettings(realm).default_language, web_home_view: "recent_topics" }),
    recipient_id: 0,
    default_sending_stream_id: null,
    default_events_register_stream_id: null,
    default_all_public_streams: 0,
  };
}
