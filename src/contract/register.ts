import type { SubscriptionPayload, UserPayload } from "./payloads.js";

/**
 * The parameters of the web app's POST /json/register. The server embeds the answer to the same
 * request in the page (src/http/webAppState.ts); the app sends them itself when registering again
 * (web/src/events.ts).
 */
export const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: true,
  include_subscribers: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    user_settings_object: true,
    empty_topic_name: true,
    simplified_presence_events: true,
    // Channel typing notifications ("X is typing…" under a topic), as Zulip's web app asks for them.
    stream_typing_notifications: true,
  },
};

/**
 * The web app's POST /register as a visitor (no account, Zulip's spectator): the same, but
 * client_gravatar off, which the server refuses to a visitor (as Zulip does).
 */
export const VISITOR_REGISTER_PARAMS = { ...REGISTER_PARAMS, client_gravatar: false };

/** Unread messages by conversation (unread_msgs of /register). */
export interface UnreadMsgs {
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  pms: Array<{ other_user_id: number; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
}

/** A user group of realm_user_groups (and user_group add events). */
export interface UserGroupPayload {
  id: number;
  members: number[];
  direct_subgroup_ids: number[];
  name?: string;
  description?: string;
  is_system_group?: boolean;
  deactivated?: boolean;
  [setting: string]: unknown;
}

/** A custom emoji of realm_emoji. */
export interface RealmEmojiPayload {
  id?: string;
  name: string;
  source_url: string;
  deactivated: boolean;
  [field: string]: unknown;
}

/**
 * POST /register's answer to REGISTER_PARAMS as the web app reads it: the fields it reads typed,
 * the rest (the realm_* settings among them) as unknown values.
 */
export interface RegisterState {
  result?: string;
  /** null for a visitor (Zulip's spectator): no queue, no events. */
  queue_id: string | null;
  last_event_id: number;
  realm_name?: string;
  max_file_upload_size_mib?: number | null;
  realm_users: UserPayload[];
  subscriptions: SubscriptionPayload[];
  user_settings?: Record<string, unknown>;
  unread_msgs: UnreadMsgs;
  presences?: Record<string, { active_timestamp: number; idle_timestamp: number }>;
  server_timestamp?: number;
  recent_private_conversations?: Array<{ user_ids: number[]; max_message_id: number }>;
  realm_user_groups?: UserGroupPayload[];
  user_topics?: Array<{ stream_id: number; topic_name: string; visibility_policy: number; last_updated?: number }>;
  realm_emoji?: Record<string, RealmEmojiPayload>;
  starred_messages?: number[];
  [field: string]: unknown;
}
