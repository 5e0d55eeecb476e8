/**
 * Every event Parley publishes (tx.sendEventOnCommit), one member per Zulip event type and op: the
 * committed form, before the event queue rewrites it for each client (src/events/clientEvents.ts),
 * and what the web app's reducer (web/src/events.ts) takes. The names and shapes are those of
 * Zulip's GET /events; the test suite checks every committed event against the reference schema
 * (test/support/eventSchemas.ts). The message, user, subscription and bot dictionaries are those
 * of ./payloads.ts; other nested payloads are plain records here.
 */
import type { BotPayload, BotUpdatePayload, MessagePayload, SubscriptionPayload, UserPayload } from "./payloads.js";

type Payload = object;
type Op<T extends string, O extends string, Fields> = { type: T; op: O } & Fields;

/**
 * What visitors' event queues (src/events/visitorQueues.ts) need to know of an event: its
 * organization; for a channel's metadata event, each channel's recipient and whether visitors may
 * read it now; for a reaction, the message's recipient. Internal: never sent to clients.
 */
export interface SpectatorAudience {
  realm_id: number;
  streams?: Array<{ stream_id: number; recipient_id: number; readable: boolean }>;
  recipient_id?: number;
}

/** An event as an action commits it: with, when visitors may get it, its SpectatorAudience. */
export type CommittedEvent = ServerEvent & { spectators?: SpectatorAudience };

/** Keys only the event queue reads (delivery decisions, per-client forms); never sent to clients. */
interface Internal {
  /** Sent only to clients without this capability (an older form of another event). */
  unless_capability?: "archived_channels" | "user_list_incomplete";
}

export type NewMessageEvent = {
  type: "message";
  message: MessagePayload;
  flags: string[];
  raw_content?: string;
  sender_uses_gravatar?: boolean;
  sender_queue_id?: string;
  local_message_id?: string;
  all_public_streams?: { realm_id: number; except_user_ids: number[] };
};

/** A message's edit or move (Zulip's update_message): the fields of what changed are present. */
export type UpdateMessageEvent = {
  type: "update_message";
  flags: string[];
  user_id?: number | null;
  edit_timestamp?: number;
  message_id?: number;
  message_ids?: number[];
  rendering_only?: boolean;
  rendered_content?: string;
  content?: string;
  stream_id?: number;
  new_stream_id?: number;
  orig_subject?: string;
  subject?: string;
  topic?: string;
  propagate_mode?: string;
  [field: string]: unknown;
};

export type DeleteMessageEvent = {
  type: "delete_message";
  message_ids: number[];
} & ({ message_type: "stream"; stream_id: number; topic: string } | { message_type: "private" });

export type UpdateMessageFlagsEvent = Op<
  "update_message_flags",
  "add" | "remove",
  { operation: "add" | "remove"; flag: string; messages: number[]; all: boolean; message_details?: Record<string, Payload> }
>;

export type ReactionEvent = Op<
  "reaction",
  "add" | "remove",
  { user_id: number; user: Payload; message_id: number; emoji_name: string; emoji_code: string; reaction_type: string }
>;

export type TypingEvent = Op<
  "typing",
  "start" | "stop",
  { sender: { user_id: number; email: string } } & (
    { message_type: "direct"; recipients: Array<{ user_id: number; email: string }> } | { message_type: "stream"; stream_id: number; topic: string }
  )
>;

export type StreamEvent =
  | (Op<"stream", "create", { streams: Payload[] }> & Internal)
  | Op<"stream", "delete", { streams: Array<{ stream_id: number }>; stream_ids: number[] }>
  | Op<"stream", "update", { stream_id: number; name: string; property: string; value: unknown; [field: string]: unknown }>;

export type SubscriptionEvent =
  | Op<"subscription", "add", { subscriptions: SubscriptionPayload[] }>
  | Op<"subscription", "remove", { subscriptions: Array<{ stream_id: number; name: string }> }>
  | Op<"subscription", "update", { stream_id: number; property: string; value: unknown }>
  | Op<"subscription", "peer_add" | "peer_remove", { stream_ids: number[]; user_ids: number[] }>;

export type DefaultStreamsEvent = { type: "default_streams"; default_streams: number[] };

export type RealmUserEvent =
  | (Op<"realm_user", "add", { person: UserPayload }> & Internal)
  | Op<"realm_user", "update", { person: Partial<UserPayload> & { user_id: number; [field: string]: unknown } }>
  | Op<"realm_user", "remove", { person: { user_id: number; full_name: string } }>;

export type RealmBotEvent =
  | Op<"realm_bot", "add", { bot: BotPayload }>
  | Op<"realm_bot", "update", { bot: BotUpdatePayload }>
  | Op<"realm_bot", "delete" | "remove", { bot: { user_id: number; [field: string]: unknown } }>;

export type UserGroupEvent =
  | Op<"user_group", "add", { group: Payload }>
  | Op<"user_group", "update", { group_id: number; data: Payload }>
  | Op<"user_group", "remove", { group_id: number }>
  | Op<"user_group", "add_members" | "remove_members", { group_id: number; user_ids: number[] }>
  | Op<"user_group", "add_subgroups" | "remove_subgroups", { group_id: number; direct_subgroup_ids: number[] }>;

export type RealmEvent =
  | Op<"realm", "update", { property: string; value: unknown; extra_data?: Payload }>
  | Op<"realm", "update_dict", { property: "default" | "icon"; data: Payload }>
  | Op<"realm", "deactivated", { realm_id: number }>;

export type UserSettingsEvent = Op<"user_settings", "update", { property: string; value: unknown; language_name?: string }>;
export type UpdateDisplaySettingsEvent = { type: "update_display_settings"; user: string; setting_name: string; setting: unknown; language_name?: string };
export type UpdateGlobalNotificationsEvent = { type: "update_global_notifications"; user: string; notification_name: string; setting: unknown };

export type UserStatusEvent = {
  type: "user_status";
  user_id: number;
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
};

export type UserTopicEvent = { type: "user_topic"; stream_id: number; topic_name: string; last_updated: number; visibility_policy: number };
export type MutedTopicsEvent = { type: "muted_topics"; muted_topics: Array<[string, string, number]> };

export type PresenceEvent = {
  type: "presence";
  user_id: number;
  email: string;
  server_timestamp: number;
  presence: Record<string, Payload>;
  /** The simplified_presence_events form, keyed by user id. */
  modern_presences: Record<string, Payload>;
};

export type ScheduledMessagesEvent =
  | Op<"scheduled_messages", "add", { scheduled_messages: Payload[] }>
  | Op<"scheduled_messages", "update", { scheduled_message: Payload }>
  | Op<"scheduled_messages", "remove", { scheduled_message_id: number }>;

export type AttachmentEvent =
  | Op<"attachment", "add" | "update", { attachment: Payload; upload_space_used: number }>
  | Op<"attachment", "remove", { attachment: { id: number }; upload_space_used: number }>;

export type RealmEmojiEvent = Op<"realm_emoji", "update", { realm_emoji: Record<string, Payload> }>;
export type CustomProfileFieldsEvent = { type: "custom_profile_fields"; fields: Payload[] };

export type SubmessageEvent = { type: "submessage"; msg_type: string; message_id: number; submessage_id: number; sender_id: number; content: string };

export type TypingEditMessageEvent = Op<
  "typing_edit_message",
  "start" | "stop",
  { sender_id: number; message_id: number; recipient: { type: "channel"; channel_id: number; topic: string } | { type: "direct"; user_ids: number[] } }
>;

export type DraftsEvent =
  Op<"drafts", "add", { drafts: Payload[] }> | Op<"drafts", "update", { draft: Payload }> | Op<"drafts", "remove", { draft_id: number }>;

export type SavedSnippetsEvent =
  Op<"saved_snippets", "add" | "update", { saved_snippet: Payload }> | Op<"saved_snippets", "remove", { saved_snippet_id: number }>;

export type MutedUsersEvent = { type: "muted_users"; muted_users: Array<{ id: number; timestamp: number }> };
export type AlertWordsEvent = { type: "alert_words"; alert_words: string[] };
export type RealmExportEvent = { type: "realm_export"; exports: Payload[] };
export type RealmExportConsentEvent = { type: "realm_export_consent"; user_id: number; consented: boolean };
export type RealmLinkifiersEvent = { type: "realm_linkifiers"; realm_linkifiers: Payload[] };
export type RealmPlaygroundsEvent = { type: "realm_playgrounds"; realm_playgrounds: Payload[] };
/** Invitations changed: clients that show them fetch GET /invites again. */
export type InvitesChangedEvent = { type: "invites_changed" };
export type RealmUserSettingsDefaultsEvent = Op<"realm_user_settings_defaults", "update", { property: string; value: unknown }>;

/** Everything tx.sendEventOnCommit accepts, and (with an `id`) what GET /events answers. */
export type ServerEvent =
  | NewMessageEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | UpdateMessageFlagsEvent
  | ReactionEvent
  | TypingEvent
  | StreamEvent
  | SubscriptionEvent
  | DefaultStreamsEvent
  | RealmUserEvent
  | RealmBotEvent
  | UserGroupEvent
  | RealmEvent
  | UserSettingsEvent
  | UpdateDisplaySettingsEvent
  | UpdateGlobalNotificationsEvent
  | UserStatusEvent
  | UserTopicEvent
  | MutedTopicsEvent
  | PresenceEvent
  | ScheduledMessagesEvent
  | AttachmentEvent
  | RealmEmojiEvent
  | CustomProfileFieldsEvent
  | SubmessageEvent
  | TypingEditMessageEvent
  | DraftsEvent
  | SavedSnippetsEvent
  | MutedUsersEvent
  | AlertWordsEvent
  | RealmExportEvent
  | RealmExportConsentEvent
  | RealmLinkifiersEvent
  | RealmPlaygroundsEvent
  | RealmUserSettingsDefaultsEvent
  | InvitesChangedEvent;

export type ServerEventType = ServerEvent["type"];

/**
 * The forms a client receives where they differ from the committed one (src/events/clientEvents.ts
 * rewrites them per client): a message's flags travel beside it and its sender's queue learns the
 * local id; presence in the simplified_presence_events form; deletions one by one without
 * bulk_message_deletion.
 */
export type ClientMessageEvent = { type: "message"; message: MessagePayload; flags: string[]; local_message_id?: string };
export type ClientPresenceEvent = PresenceEvent | { type: "presence"; presences: Record<string, Payload> };
export type ClientDeleteMessageEvent =
  | DeleteMessageEvent
  | ({ type: "delete_message"; message_id: number } & ({ message_type: "stream"; stream_id: number; topic: string } | { message_type: "private" }));
export type HeartbeatEvent = { type: "heartbeat" };

/** Every event a client's queue may give it (GET /events): what the web app's reducer takes. */
export type ClientEvent =
  | Exclude<ServerEvent, NewMessageEvent | PresenceEvent | DeleteMessageEvent>
  | ClientMessageEvent
  | ClientPresenceEvent
  | ClientDeleteMessageEvent
  | HeartbeatEvent;

/** GET /events's answer: the events, each with its queue's event id. */
export interface EventsResponse {
  events: Array<ClientEvent & { id: number }>;
  queue_id?: string;
}
