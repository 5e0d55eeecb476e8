/** The answers of the endpoints the web app reads beyond /register and /events (the success envelope's fields). */
import type { MessagePayload, UserPayload } from "./payloads.js";

/** GET /messages. */
export interface MessagesResponse {
  messages: Array<MessagePayload & { flags: string[] }>;
  found_oldest: boolean;
  found_newest: boolean;
  found_anchor?: boolean;
  history_limited?: boolean;
  anchor?: number;
}

/** GET /messages/{id} (raw_content without apply_markdown, before Zulip 5.0 and still sent). */
export interface MessageResponse {
  message: MessagePayload;
  raw_content?: string;
}

/** GET /users/me/{stream_id}/topics. */
export interface TopicsResponse {
  topics: Array<{ name: string; max_id: number }>;
}

/** GET /users/{id}. */
export interface UserResponse {
  user: UserPayload;
}

/** POST /users/me/presence with slim_presence. */
export interface PresenceResponse {
  server_timestamp?: number;
  presences?: Record<string, { active_timestamp: number; idle_timestamp: number }>;
}

/** POST /fetch_api_key, POST /users/me/api_key/regenerate. */
export interface ApiKeyResponse {
  api_key: string;
}

/** POST /user_groups/create. */
export interface CreateGroupResponse {
  group_id: number;
}

/** POST /invites/multiuse. */
export interface MultiuseInviteResponse {
  invite_link: string;
}

/** One web session in GET /users/me/sessions (Parley's extension; times in UNIX seconds). */
export interface WebSession {
  /** The session's public id (never its cookie). */
  id: string;
  created_at: number;
  last_active_at: number;
  expires_at: number;
  ip_address: string | null;
  /** "Firefox 128", "Zulip desktop 5"; null when the User-Agent does not say. */
  browser: string | null;
  /** "Linux", "macOS", "Windows 10"; null when the User-Agent does not say. */
  os: string | null;
  /** The session that asked. */
  is_current: boolean;
}

/** GET /users/me/sessions. */
export interface SessionsResponse {
  sessions: WebSession[];
}
