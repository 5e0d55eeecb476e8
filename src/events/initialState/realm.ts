import { z } from "zod";
import { MAX_STREAM_DESCRIPTION_LENGTH } from "../../actions/streams.js";
import { customProfileFieldDict } from "../../actions/customProfileFields.js";
import { getRealmEmojiDict } from "../../actions/realmEmoji.js";
import { listScheduledMessages } from "../../actions/scheduledMessages.js";
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from "../../actions/messageSend.js";
import type { Executor } from "../../db/tx.js";
import { groupSettingApiValues } from "../../lib/groupSettings.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../../lib/messagePayload.js";
import { ProfileFieldType } from "../../lib/profileData.js";
import { realmIconUrl } from "../../lib/realms.js";
import { userGroupsForRealm } from "../../lib/userGroupPayload.js";
import { realmGroupPermissionIdAmong } from "../../lib/realmPermissions.js";
import { REALM_GROUP_PERMISSION_NAMES, realmSettings } from "../../models/realmSettings.js";
import { isGuest } from "../../models/roles.js";
import { customProfileFieldStore } from "../../store/customProfileFields.js";
import { initialStateStore } from "../../store/initialState.js";
import { escapeHtml } from "../../util/html.js";
import { parseJsonColumn } from "../../util/jsonColumn.js";
import { type SectionRequest, wants } from "./index.js";

/** Zulip's server-wide constants as a self-hosted 10.2 server reports them. */
export const SERVER_CONSTANTS = {
  max_stream_name_length: 60,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_message_length: MAX_MESSAGE_LENGTH,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  max_avatar_file_size_mib: 5,
  server_presence_ping_interval_seconds: 60,
  server_presence_offline_threshold_seconds: 140,
  server_typing_started_expiry_period_milliseconds: 45_000,
  server_typing_stopped_wait_period_milliseconds: 5_000,
  server_typing_started_wait_period_milliseconds: 10_000,
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
  event_queue_longpoll_timeout_seconds: 90,
  server_inline_image_preview: true,
  server_inline_url_embed_preview: false,
  server_avatar_changes_disabled: false,
  server_name_changes_disabled: false,
  server_needs_upgrade: false,
  server_web_public_streams_enabled: true,
  server_jitsi_server_url: null,
  server_can_summarize_topics: false,
  giphy_api_key: "",
  giphy_rating_options: {
    disabled: { name: "GIPHY integration disabled", id: 0 },
    y: { name: "Allow GIPHY content rated Y (very young audience)", id: 1 },
    g: { name: "Allow GIPHY content rated G (general audience)", id: 2 },
    pg: { name: "Allow GIPHY content rated PG (parental guidance)", id: 3 },
    "pg-13": { name: "Allow GIPHY content rated PG-13 (parental guidance - under 13)", id: 4 },
  },
  zulip_plan_is_not_limited: true,
  upgrade_text_for_wide_organization_logo: "",
  realm_is_zephyr_mirror_realm: false,
  realm_push_notifications_enabled_end_timestamp: null,
  development_environment: false,
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  realm_password_auth_enabled: true,
  realm_email_auth_enabled: true,
  realm_authentication_methods: {
    Email: { enabled: true, available: true },
  },
} as const;

/** Zulip's DEFAULT_EXTERNAL_ACCOUNTS, offered for external-account profile fields. */
const DEFAULT_EXTERNAL_ACCOUNTS = {
  github: { text: "GitHub", url_pattern: "https://github.com/%(username)s", name: "GitHub", hint: "Enter your GitHub username" },
  twitter: { text: "Twitter", url_pattern: "https://twitter.com/%(username)s", name: "Twitter", hint: "Enter your Twitter username" },
};

/**
 * Sections about the organization (Zulip's want("realm"), realm_user_groups, realm_emoji,
 * custom_profile_fields, default_streams, alert_words, muted_users, drafts, scheduled_messages,
 * user_topic).
 */
export async function fetchRealmState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  const { realm, user } = req;
  const state: Record<string, unknown> = {};
  if (wants(req, "realm")) {
    const settings = realmSettings(realm);
    for (const [name, value] of Object.entries(settings)) state[`realm_${name}`] = value;
    const systemGroups = await req.reads.systemGroups();
    const ids = REALM_GROUP_PERMISSION_NAMES.map((name) => realmGroupPermissionIdAmong(realm, name, systemGroups));
    const values = await groupSettingApiValues(q, realm.id, ids);
    REALM_GROUP_PERMISSION_NAMES.forEach((name, i) => (state[`realm_${name}`] = values.get(ids[i]) ?? ids[i]));
    Object.assign(state, SERVER_CONSTANTS, {
      realm_name: realm.name,
      realm_description: realm.description === "" ? "" : `<p>${escapeHtml(realm.description)}</p>`,
      realm_date_created: realm.date_created,
      realm_icon_url: realmIconUrl(realm),
      realm_icon_source: realm.icon_source,
      realm_logo_url: "",
      realm_logo_source: "D",
      realm_night_logo_url: "",
      realm_night_logo_source: "D",
      realm_url: req.config.externalUrl,
      realm_uri: req.config.externalUrl,
      realm_message_retention_days: realm.message_retention_days ?? -1,
      realm_wildcard_mention_policy: wildcardMentionPolicy(values.get(state.realm_can_mention_many_users_group as number) ?? state.realm_can_mention_many_users_group, systemGroups),
      realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
      realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
      realm_new_stream_announcements_stream_id: settings.new_stream_announcements_stream_id,
      realm_signup_announcements_stream_id: settings.signup_announcements_stream_id,
      realm_zulip_update_announcements_stream_id: settings.zulip_update_announcements_stream_id,
      realm_plan_type: 1,
      realm_embedded_bots: [],
      realm_incoming_webhook_bots: [],
      server_emoji_data_url: `${req.config.externalUrl}/static/generated/emoji/emoji_api.json`,
      server_supported_permission_settings: { realm: {}, stream: {}, group: {} },
      realm_available_video_chat_providers: { disabled: { name: "None", id: 0 }, jitsi_meet: { name: "Jitsi Meet", id: 1 } },
      max_file_upload_size_mib: req.config.uploads.maxFileSizeMib,
    });
  }
  if (wants(req, "realm_user_groups")) {
    state.realm_user_groups = await userGroupsForRealm(q, realm.id, {
      includeDeactivated: req.client.capabilities.include_deactivated_groups,
      systemGroups: await req.reads.systemGroups(),
    });
  }
  if (wants(req, "realm_emoji")) state.realm_emoji = await getRealmEmojiDict(q, realm.id);
  if (wants(req, "custom_profile_fields")) {
    state.custom_profile_fields = (await customProfileFieldStore.listForRealm(q, realm.id)).map(customProfileFieldDict);
    state.custom_profile_field_types = Object.fromEntries(
      Object.entries(ProfileFieldType).map(([name, id]) => [name, { id, name: PROFILE_FIELD_TYPE_NAMES[id] }]),
    );
  }
  if (wants(req, "default_streams")) {
    // Guests cannot see every default channel: Zulip shows them none (and sends them no default_streams events).
    state.realm_default_streams = isGuest(user) ? [] : await initialStateStore.defaultStreamIds(q, realm.id);
  }
  if (wants(req, "default_stream_groups")) state.realm_default_stream_groups = [];
  if (wants(req, "realm_linkifiers")) state.realm_linkifiers = [];
  if (wants(req, "realm_filters")) state.realm_filters = [];
  if (wants(req, "realm_playgrounds")) state.realm_playgrounds = [];
  if (wants(req, "realm_domains")) state.realm_domains = [];
  if (wants(req, "saved_snippets")) state.saved_snippets = [];
  if (wants(req, "onboarding_steps")) state.onboarding_steps = [];
  if (wants(req, "alert_words")) state.alert_words = await initialStateStore.alertWords(q, user.id);
  if (wants(req, "muted_users")) state.muted_users = await initialStateStore.mutedUsers(q, user.id);
  if (wants(req, "drafts")) {
    state.drafts = (await initialStateStore.drafts(q, user.id)).map((d) => ({
      id: d.id,
      type: d.type,
      to: parseJsonColumn(z.array(z.number().int()), d.to, "drafts.to"),
      topic: d.topic,
      content: d.content,
      timestamp: d.last_edit_time,
    }));
  }
  if (wants(req, "scheduled_messages")) state.scheduled_messages = await listScheduledMessages(q, user);
  if (wants(req, "user_topic")) state.user_topics = await req.reads.userTopics();
  return state;
}

const PROFILE_FIELD_TYPE_NAMES: Record<number, string> = {
  1: "Text (short)",
  2: "Text (long)",
  3: "List of options",
  4: "Date",
  5: "Link",
  6: "Users",
  7: "External account",
  8: "Pronouns",
};

/** Zulip's deprecated wildcard_mention_policy, derived from can_mention_many_users_group. */
export function wildcardMentionPolicy(value: unknown, systemGroups: Map<string, number>): number {
  const byGroup: Array<[string, number]> = [
    ["role:everyone", 1],
    ["role:members", 2],
    ["role:fullmembers", 3],
    ["role:administrators", 5],
    ["role:nobody", 6],
    ["role:moderators", 7],
  ];
  for (const [name, policy] of byGroup) if (systemGroups.get(name) === value) return policy;
  return 5;
}
