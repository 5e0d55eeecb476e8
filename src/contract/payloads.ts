/**
 * The objects the API sends that the web app reads (Zulip's MessageDict, the user, subscription
 * and bot dictionaries), as both sides see them. The fields every answer carries are required;
 * those some answers or some clients get are optional. The server's payload builders
 * (src/lib/*Payload.ts) make them; the test suite checks them against Zulip's OpenAPI schemas.
 */
export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

/** A widget's first submessage or one of its changes (Zulip's submessages). */
export interface SubmessagePayload {
  id: number;
  message_id?: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface DisplayRecipient {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy?: boolean;
}

/** A message of GET /messages and of message events. */
export interface MessagePayload {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email?: string;
  sender_realm_str?: string;
  avatar_url?: string | null;
  client?: string;
  type: "stream" | "private";
  stream_id?: number;
  recipient_id?: number;
  subject: string;
  topic_links?: Array<{ text: string; url: string }>;
  /** The channel's name, or the people of a direct message. */
  display_recipient: string | DisplayRecipient[];
  content: string;
  content_type?: string;
  is_me_message?: boolean;
  timestamp: number;
  reactions: Reaction[];
  submessages?: SubmessagePayload[];
  /** GET /messages only (events carry them beside the message). */
  flags?: string[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
}

/** An account of realm_users, GET /users and realm_user events. */
export interface UserPayload {
  user_id: number;
  full_name: string;
  email: string;
  is_bot: boolean;
  is_active?: boolean;
  /** A role code (Role of ./constants.ts). */
  role?: number;
  is_admin?: boolean;
  is_owner?: boolean;
  is_guest?: boolean;
  timezone?: string;
  date_joined?: string;
  delivery_email?: string | null;
  bot_type?: number | null;
  bot_owner_id?: number | null;
  /** null for a gravatar the client computes (client_gravatar); a /user_avatars/ URL when uploaded. */
  avatar_url?: string | null;
  avatar_version?: number;
  /** Custom profile field id → its value (and rendered HTML for Markdown fields). */
  profile_data?: Record<string, { value: string; rendered_value?: string }>;
  [field: string]: unknown;
}

/** A channel the user is subscribed to (subscriptions of /register, subscription events). */
export interface SubscriptionPayload {
  stream_id: number;
  name: string;
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  description: string;
  [field: string]: unknown;
}

/**
 * A bot as POST /register's realm_bots and realm_bot events show it (the OpenAPI Bot): its
 * defaults by channel name and, for outgoing-webhook bots, its one service.
 */
export interface BotPayload {
  user_id: number;
  email: string;
  full_name: string;
  bot_type: number | null;
  is_active: boolean;
  api_key: string;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  avatar_url: string;
  owner_id: number | null;
  services: Array<{ base_url: string; token: string; interface: number } | { service_name: string; config_data: Record<string, string> }>;
}

/** A change to a bot (realm_bot update): its id and what changed (a reset avatar's URL may be null). */
export type BotUpdatePayload = { user_id: number } & Partial<Omit<BotPayload, "user_id" | "avatar_url">> & {
    avatar_url?: string | null;
    [field: string]: unknown;
  };
