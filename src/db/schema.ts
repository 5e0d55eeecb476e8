import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

/**
 * Row types of every table (snake_case, as the columns). Booleans are stored as 0/1 on both
 * engines (`Flag`); times are UNIX seconds; JSON columns are text.
 */
export type Flag = 0 | 1;
type Id = Generated<number>;

/**
 * The own recipient of a user, a channel or a direct-message group. The column is nullable because
 * the row is inserted before its recipient (which refers to the row's id) and linked to it in the same
 * transaction, so every committed row has one: rows read back are typed non-null; an insert leaves it
 * out (the stores' `insert` functions return it as null, see `Unlinked`).
 */
type OwnRecipientId = ColumnType<number, number | null | undefined, number>;

/** A row just inserted, before its recipient is linked (see OwnRecipientId). */
export type Unlinked<Row extends { recipient_id: number }> = Omit<Row, "recipient_id"> & { recipient_id: null };

export interface RealmsTable {
  id: Id;
  string_id: string;
  name: string;
  description: Generated<string>;
  date_created: number;
  deactivated: Generated<Flag>;
  icon_source: Generated<string>;
  icon_version: Generated<number>;
  message_retention_days: number | null;
  settings: Generated<string>;
  /** RealmUserDefault: JSON of the settings new users start with that differ from USER_SETTING_DEFAULTS. */
  user_settings_defaults: Generated<string>;
  /** Most active human users (null: unlimited). */
  max_users: Generated<number | null>;
  /** Most MiB of uploaded files in total (null: unlimited). */
  upload_quota_mib: Generated<number | null>;
}

export interface UsersTable {
  id: Id;
  realm_id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  role: Generated<number>;
  is_active: Generated<Flag>;
  is_bot: Generated<Flag>;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_mirror_dummy: Generated<Flag>;
  date_joined: number;
  timezone: Generated<string>;
  avatar_source: Generated<string>;
  avatar_version: Generated<number>;
  api_key: string;
  password_hash: string | null;
  can_create_users: Generated<Flag>;
  can_change_user_emails: Generated<Flag>;
  can_forge_sender: Generated<Flag>;
  long_term_idle: Generated<Flag>;
  last_active_message_id: number | null;
  settings: Generated<string>;
  recipient_id: OwnRecipientId;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: Generated<Flag>;
}

export interface UserGroupsTable {
  id: Id;
  realm_id: number;
  name: string | null;
  description: Generated<string>;
  named: Generated<Flag>;
  is_system_group: Generated<Flag>;
  deactivated: Generated<Flag>;
  date_created: number | null;
  creator_id: number | null;
  can_add_members_group_id: number | null;
  can_join_group_id: number | null;
  can_leave_group_id: number | null;
  can_manage_group_id: number | null;
  can_mention_group_id: number | null;
  can_remove_members_group_id: number | null;
}

export interface UserGroupMembersTable {
  group_id: number;
  user_id: number;
}

export interface UserGroupSubgroupsTable {
  supergroup_id: number;
  subgroup_id: number;
}

export interface RecipientsTable {
  id: Id;
  type: number;
  type_id: number;
}

export interface DirectMessageGroupsTable {
  id: Id;
  realm_id: number;
  member_key: string;
  group_size: number;
  recipient_id: OwnRecipientId;
}

export interface StreamsTable {
  id: Id;
  realm_id: number;
  name: string;
  description: Generated<string>;
  rendered_description: Generated<string>;
  invite_only: Generated<Flag>;
  is_web_public: Generated<Flag>;
  history_public_to_subscribers: Generated<Flag>;
  is_archived: Generated<Flag>;
  date_created: number;
  creator_id: number | null;
  message_retention_days: number | null;
  recipient_id: OwnRecipientId;
  first_message_id: number | null;
  can_add_subscribers_group_id: number | null;
  can_remove_subscribers_group_id: number | null;
  can_administer_channel_group_id: number | null;
  can_send_message_group_id: number | null;
  can_subscribe_group_id: number | null;
}

export interface DefaultStreamsTable {
  realm_id: number;
  stream_id: number;
}

export interface SubscriptionsTable {
  id: Id;
  user_id: number;
  recipient_id: number;
  active: Generated<Flag>;
  is_user_active: Generated<Flag>;
  color: Generated<string>;
  pin_to_top: Generated<Flag>;
  is_muted: Generated<Flag>;
  desktop_notifications: Flag | null;
  audible_notifications: Flag | null;
  push_notifications: Flag | null;
  email_notifications: Flag | null;
  wildcard_mentions_notify: Flag | null;
}

export interface MessagesTable {
  id: Id;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  subject: Generated<string>;
  content: string;
  rendered_content: string | null;
  rendered_content_version: number | null;
  date_sent: number;
  sending_client: Generated<string>;
  last_edit_time: number | null;
  last_moved_time: number | null;
  edit_history: string | null;
  has_attachment: Generated<Flag>;
  has_image: Generated<Flag>;
  has_link: Generated<Flag>;
  is_channel_message: Generated<Flag>;
}

export interface UserMessagesTable {
  user_id: number;
  message_id: number;
  flags: Generated<number>;
}

export interface ReactionsTable {
  id: Id;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: Generated<string>;
}

export interface SubmessagesTable {
  id: Id;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface AttachmentsTable {
  id: Id;
  realm_id: number;
  owner_id: number;
  file_name: string;
  path_id: string;
  size: number;
  content_type: string | null;
  create_time: number;
  is_realm_public: Generated<Flag>;
  is_web_public: Generated<Flag>;
}

export interface AttachmentMessagesTable {
  attachment_id: number;
  message_id: number;
}

export interface ScheduledMessagesTable {
  id: Id;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  subject: Generated<string>;
  content: string;
  rendered_content: string;
  scheduled_timestamp: number;
  read_by_sender: Flag | null;
  sending_client: Generated<string>;
  delivered: Generated<Flag>;
  delivered_message_id: number | null;
  failed: Generated<Flag>;
  failure_message: string | null;
}

export interface UserTopicsTable {
  id: Id;
  user_id: number;
  stream_id: number;
  recipient_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

export interface CustomProfileFieldsTable {
  id: Id;
  realm_id: number;
  name: string;
  hint: Generated<string>;
  field_type: number;
  field_data: Generated<string>;
  order: Generated<number>;
  display_in_profile_summary: Generated<Flag>;
  required: Generated<Flag>;
  editable_by_user: Generated<Flag>;
}

export interface CustomProfileFieldValuesTable {
  id: Id;
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

export interface UserStatusesTable {
  user_id: number;
  status_text: Generated<string>;
  emoji_name: Generated<string>;
  emoji_code: Generated<string>;
  reaction_type: Generated<string>;
  timestamp: number;
}

export interface UserPresencesTable {
  user_id: number;
  realm_id: number;
  last_connected_time: number | null;
  last_active_time: number | null;
  /** The organization's presence sequence number of the last change (Zulip's last_update_id). */
  last_update_id: Generated<number>;
}

/** Zulip's PresenceSequence: the last presence update id given out in each organization. */
export interface PresenceSequencesTable {
  realm_id: number;
  last_update_id: number;
}

export interface MutedUsersTable {
  user_id: number;
  muted_user_id: number;
  date_muted: number;
}

export interface AlertWordsTable {
  id: Id;
  user_id: number;
  word: string;
}

export interface DraftsTable {
  id: Id;
  user_id: number;
  type: string;
  to: string;
  topic: Generated<string>;
  content: string;
  last_edit_time: number;
}

export interface RealmEmojiTable {
  id: Id;
  realm_id: number;
  name: string;
  author_id: number | null;
  file_name: string | null;
  is_animated: Generated<Flag>;
  deactivated: Generated<Flag>;
}

export interface BotServicesTable {
  id: Id;
  bot_id: number;
  name: string;
  base_url: string;
  token: string;
  interface: Generated<number>;
}

export interface MissedMessageEmailsTable {
  id: Id;
  user_id: number;
  message_id: number;
  trigger: string;
  scheduled_at: number;
}

export interface SavedSnippetsTable {
  id: Id;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
}

export interface RealmLinkifiersTable {
  id: Id;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: number;
}

export interface RealmPlaygroundsTable {
  id: Id;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export interface ChannelEmailAddressesTable {
  id: Id;
  realm_id: number;
  channel_id: number;
  creator_id: number | null;
  sender_id: number;
  email_token: string;
  date_created: number;
  deactivated: Generated<Flag>;
}

export interface BotStorageTable {
  id: Id;
  bot_id: number;
  key: string;
  value: string;
}

export interface ChannelDailyMessageCountsTable {
  recipient_id: number;
  /** UNIX day (date_sent / 86400). */
  day: number;
  /** A channel's count of a day is split over rows (message id modulo 16) so that concurrent sends do not wait for each other's row lock. */
  shard: Generated<number>;
  count: number;
}

export interface PushDevicesTable {
  id: Id;
  user_id: number;
  kind: number;
  token: string;
  ios_app_id: string | null;
  date_created: number;
}

export interface JobsTable {
  id: Id;
  kind: string;
  payload: string;
  run_at: number;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  status: Generated<"pending" | "running" | "done" | "failed">;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

/** Email invitations and reusable invitation links (migration 2026-11-27T0100). */
export interface InvitationsTable {
  id: Id;
  realm_id: number;
  referred_by: number;
  is_multiuse: Flag;
  /** The invited address; null for a reusable link. */
  email: string | null;
  confirmation_key: string;
  invited_as: number;
  include_realm_default_subscriptions: Flag;
  notify_referrer_on_join: Flag;
  /** JSON list of channel ids. */
  stream_ids: Generated<string>;
  /** JSON list of user group ids. */
  group_ids: Generated<string>;
  invited_at: number;
  expires_at: number | null;
  /** 0 open, 1 used, 2 revoked. */
  status: Generated<number>;
  created_user_id: number | null;
}

export interface ConfirmationsTable {
  id: Id;
  realm_id: number;
  user_id: number | null;
  kind: string;
  confirmation_key: string;
  data: Generated<string>;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SessionsTable {
  session_key: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
  /** The last request of the session, written at most every SESSION_ACTIVITY_STEP seconds. */
  last_active_at: number;
  /** The browser's address and User-Agent at that request (null: not known). */
  ip_address: string | null;
  user_agent: string | null;
}

export interface AuthFlowsTable {
  id: string;
  backend: string;
  /** JSON of the flow (src/auth/flows.ts). */
  data: string;
  expires_at: number;
}

export interface UserTwoFactorTable {
  user_id: number;
  /** The TOTP key, encrypted (src/auth/twoFactorSecrets.ts). */
  secret: string;
  /** Null while the user is still setting the app up. */
  confirmed_at: number | null;
  /** The time step of the last accepted code. */
  last_step: Generated<number>;
  /** JSON list of the keyed hashes of the unused backup codes. */
  backup_codes: Generated<string>;
}

export interface TwoFactorLoginsTable {
  /** Hash of the token in the browser's cookie. */
  id: string;
  user_id: number;
  /** Where to go once signed in. */
  next: string;
  expires_at: number;
}

/** SAML assertions already accepted (src/auth/saml.ts), until they expire. */
export interface SamlAssertionsTable {
  /** SHA-256 (hex) of the issuer and the assertion's ID. */
  id: string;
  expires_at: number;
}

/** Which directory entry each account signed in as through LDAP (src/auth/ldap/accounts.ts). */
export interface LdapAccountsTable {
  user_id: number;
  realm_id: number;
  /** The directory entry's DN, lower-cased. */
  dn: string;
}

export interface AuditLogTable {
  id: Id;
  realm_id: number;
  acting_user_id: number | null;
  modified_user_id: number | null;
  modified_stream_id: number | null;
  modified_group_id: number | null;
  event_type: string;
  event_time: number;
  extra_data: Generated<string>;
}

/** A rate-limit window shared by several processes (http/rateLimit.ts). */
export interface RateLimitsTable {
  key: string;
  /** Milliseconds since the epoch (bigint: PostgreSQL returns it as text). */
  window_started_ms: ColumnType<string | number, number, number>;
  expires_ms: ColumnType<string | number, number, number>;
  count: number;
}

export interface EventQueuesTable {
  id: string;
  user_id: number;
  /** The queue as JSON (events/queues.ts SavedQueue). */
  data: string;
}

/** Zulip's RealmExport: an organization's data export and where it stands. */
export interface RealmExportsTable {
  id: Id;
  realm_id: number;
  /** Null for an export made with `parley export` (not listed by the API, as Zulip's). */
  acting_user_id: number | null;
  /** 1 public, 2 full with consent (models/realmExport.ts). */
  type: number;
  /** 0 requested, 1 started, 2 succeeded, 3 failed, 4 deleted. */
  status: number;
  date_requested: number;
  date_started: number | null;
  date_succeeded: number | null;
  date_failed: number | null;
  date_deleted: number | null;
  /** The tarball's blob key once it is stored. */
  export_path: string | null;
  sha256sum_hex: string | null;
  tarball_size_bytes: number | null;
  /** JSON: rows per table and file (Zulip's stats.json). */
  stats: string | null;
}

/** An organization import (`parley import`) and where it stands, so an interrupted one can continue. */
export interface ImportRunsTable {
  id: Id;
  realm_id: number;
  /** The export's identity: its kind and organization (e.g. "zulip:<string_id>:<date_created>"). */
  source: string;
  status: "running" | "done";
  /** JSON: the id offsets reserved for the export's rows and the steps committed (actions/import/). */
  state: string;
  started_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface Database {
  realms: RealmsTable;
  users: UsersTable;
  user_groups: UserGroupsTable;
  user_group_members: UserGroupMembersTable;
  user_group_subgroups: UserGroupSubgroupsTable;
  recipients: RecipientsTable;
  direct_message_groups: DirectMessageGroupsTable;
  streams: StreamsTable;
  default_streams: DefaultStreamsTable;
  subscriptions: SubscriptionsTable;
  messages: MessagesTable;
  user_messages: UserMessagesTable;
  reactions: ReactionsTable;
  submessages: SubmessagesTable;
  attachments: AttachmentsTable;
  attachment_messages: AttachmentMessagesTable;
  scheduled_messages: ScheduledMessagesTable;
  user_topics: UserTopicsTable;
  custom_profile_fields: CustomProfileFieldsTable;
  custom_profile_field_values: CustomProfileFieldValuesTable;
  user_statuses: UserStatusesTable;
  user_presences: UserPresencesTable;
  presence_sequences: PresenceSequencesTable;
  muted_users: MutedUsersTable;
  alert_words: AlertWordsTable;
  drafts: DraftsTable;
  realm_emoji: RealmEmojiTable;
  bot_services: BotServicesTable;
  push_devices: PushDevicesTable;
  missed_message_emails: MissedMessageEmailsTable;
  channel_daily_message_counts: ChannelDailyMessageCountsTable;
  saved_snippets: SavedSnippetsTable;
  bot_storage: BotStorageTable;
  realm_linkifiers: RealmLinkifiersTable;
  realm_playgrounds: RealmPlaygroundsTable;
  channel_email_addresses: ChannelEmailAddressesTable;
  realm_exports: RealmExportsTable;
  import_runs: ImportRunsTable;
  jobs: JobsTable;
  confirmations: ConfirmationsTable;
  invitations: InvitationsTable;
  sessions: SessionsTable;
  auth_flows: AuthFlowsTable;
  user_two_factor: UserTwoFactorTable;
  two_factor_logins: TwoFactorLoginsTable;
  saml_assertions: SamlAssertionsTable;
  ldap_accounts: LdapAccountsTable;
  audit_log: AuditLogTable;
  event_queues: EventQueuesTable;
  rate_limits: RateLimitsTable;
}

export type Realm = Selectable<RealmsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Stream = Selectable<StreamsTable>;
export type UserGroup = Selectable<UserGroupsTable>;
export type CustomProfileField = Selectable<CustomProfileFieldsTable>;
export type Job = Selectable<JobsTable>;
export type RealmExport = Selectable<RealmExportsTable>;
