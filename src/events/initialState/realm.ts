import { pushConfigured } from "../../lib/pushDelivery.js";
import { passwordAuthEnabled, realmAuthenticationMethodsForApi, realmMethodsEnabled } from "../../lib/authMethods.js";
import { draftPayload, savedSnippetPayload } from "../../lib/draftPayloads.js";
import { isGuest } from "../../models/roles.js";
import { userSettings } from "../../models/userSettings.js";
import { alertWordStore } from "../../store/alertWords.js";
import { draftStore } from "../../store/drafts.js";
import { mutedUserStore } from "../../store/mutedUsers.js";
import { savedSnippetStore } from "../../store/savedSnippets.js";
import { realmLinkifiers } from "../../lib/messageRendering.js";
import type { Executor } from "../../db/tx.js";
import { groupSettingApiValues } from "../../lib/groupSettings.js";
import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../contract/constants.js";
import { ProfileFieldType } from "../../lib/profileData.js";
import { realmIconUrl, realmUrl } from "../../lib/realms.js";
import { EMBEDDED_BOTS } from "../../lib/embeddedBots.js";
import { SERVER_GENERATION } from "../../models/version.js";
import { passwordRules } from "../../lib/passwords.js";
import { THUMBNAIL_SIZE } from "../../lib/uploadFiles.js";
import { userGroupsForRealm } from "../../lib/userGroupPayload.js";
import { realmGroupPermissionIdAmong } from "../../lib/realmPermissions.js";
import { REALM_GROUP_PERMISSION_NAMES, realmSettings } from "../../models/realmSettings.js";
import { customProfileFieldStore } from "../../store/customProfileFields.js";
import { initialStateStore } from "../../store/initialState.js";
import { EMOJISET_CHOICES, NOTIFICATION_SOUNDS, realmUserSettingsDefaults } from "../../models/userSettings.js";
import { escapeHtml } from "../../util/html.js";
import { type SectionRequest, wants } from "./request.js";
import { MAX_AVATAR_FILE_SIZE_MIB, MAX_ICON_FILE_SIZE_MIB, MAX_MESSAGE_LENGTH, MAX_STREAM_DESCRIPTION_LENGTH, MAX_TOPIC_LENGTH } from "../../models/limits.js";
import { customProfileFieldDict } from "../../lib/customProfileFieldPayload.js";
import { getRealmEmojiDict } from "../../lib/realmEmojiPayload.js";
import { realmPlaygrounds } from "../../lib/realmPlaygroundPayload.js";
import { listScheduledMessages } from "../../lib/scheduledMessagePayload.js";
import { defined } from "../../util/defined.js";
import { incomingWebhookBots } from "../../integrations/catalog.js";

/** Zulip's server-wide constants as a self-hosted 10.2 server reports them. */
export const SERVER_CONSTANTS = {
  max_stream_name_length: 60,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_message_length: MAX_MESSAGE_LENGTH,
  max_icon_file_size_mib: MAX_ICON_FILE_SIZE_MIB,
  max_logo_file_size_mib: 5,
  max_avatar_file_size_mib: MAX_AVATAR_FILE_SIZE_MIB,
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
  // Zulip's default JITSI_SERVER_URL.
  server_jitsi_server_url: "https://meet.jit.si",
  server_can_summarize_topics: false,
  // The one thumbnail format Parley makes (lib/uploadFiles.ts; Zulip 10.2 also makes an animated one).
  server_thumbnail_formats: [{ name: `${THUMBNAIL_SIZE}.webp`, max_width: 840, max_height: 560, format: "webp", animated: false }],
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
  settings_send_digest_emails: false,
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
  const { realm, user, visitor } = req;
  const state: Record<string, unknown> = {};
  if (wants(req, "realm")) {
    const settings = realmSettings(realm);
    for (const [name, value] of Object.entries(settings)) state[`realm_${name}`] = value;
    const systemGroups = await req.reads.systemGroups();
    const ids = REALM_GROUP_PERMISSION_NAMES.map((name) => realmGroupPermissionIdAmong(realm, name, systemGroups));
    const values = await groupSettingApiValues(q, realm.id, ids);
    REALM_GROUP_PERMISSION_NAMES.forEach((name, i) => {
      const id = defined(ids[i], `the group of realm_${name}`);
      state[`realm_${name}`] = values.get(id) ?? id;
    });
    const passwords = passwordRules(req.config.dev);
    const authMethods = realmMethodsEnabled(req.config, realm);
    const url = realmUrl(req.config, realm);
    Object.assign(state, SERVER_CONSTANTS, {
      realm_authentication_methods: realmAuthenticationMethodsForApi(authMethods),
      realm_password_auth_enabled: passwordAuthEnabled(authMethods),
      realm_email_auth_enabled: authMethods.Email === true,
      realm_name: realm.name,
      realm_description: realm.description === "" ? "" : `<p>${escapeHtml(realm.description)}</p>`,
      realm_date_created: realm.date_created,
      realm_icon_url: realmIconUrl(realm),
      realm_icon_source: realm.icon_source,
      realm_logo_url: "",
      realm_logo_source: "D",
      realm_night_logo_url: "",
      realm_night_logo_source: "D",
      realm_url: url,
      realm_uri: url,
      realm_message_retention_days: realm.message_retention_days ?? -1,
      realm_wildcard_mention_policy: wildcardMentionPolicy(
        values.get(state.realm_can_mention_many_users_group as number) ?? state.realm_can_mention_many_users_group,
        systemGroups,
      ),
      realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
      realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
      realm_new_stream_announcements_stream_id: settings.new_stream_announcements_stream_id,
      realm_signup_announcements_stream_id: settings.signup_announcements_stream_id,
      realm_zulip_update_announcements_stream_id: settings.zulip_update_announcements_stream_id,
      realm_plan_type: 1,
      realm_allow_edit_history: settings.message_edit_history_visibility_policy !== "none",
      realm_create_public_stream_policy: legacyPolicy(state.realm_can_create_public_channel_group, systemGroups, COMMON_POLICIES, 1),
      realm_create_private_stream_policy: legacyPolicy(state.realm_can_create_private_channel_group, systemGroups, COMMON_POLICIES, 1),
      realm_create_web_public_stream_policy: legacyPolicy(state.realm_can_create_web_public_channel_group, systemGroups, WEB_PUBLIC_POLICIES, 4),
      realm_bot_domain: new URL(url).hostname,
      realm_upload_quota_mib: realm.upload_quota_mib,
      jitsi_server_url: settings.jitsi_server_url ?? SERVER_CONSTANTS.server_jitsi_server_url,
      server_generation: SERVER_GENERATION,
      development_environment: req.config.dev,
      // Zulip: true where pushes can go out (a registered bouncer); here, any way of sending them.
      realm_push_notifications_enabled: pushConfigured({ config: req.config }),
      password_min_length: passwords.minLength,
      password_max_length: passwords.maxLength,
      password_min_guesses: passwords.minGuesses,
      server_emoji_data_url: `${url}/static/generated/emoji/emoji_api.json`,
      server_supported_permission_settings: { realm: {}, stream: {}, group: {} },
      realm_available_video_chat_providers: { disabled: { name: "None", id: 0 }, jitsi_meet: { name: "Jitsi Meet", id: 1 } },
      max_file_upload_size_mib: req.config.uploads.maxFileSizeMib,
    });
    // Zulip, for visitors: editing shown as off (they cannot edit), and presence off (no user list sent).
    if (visitor) Object.assign(state, { realm_allow_message_editing: false, realm_presence_disabled: true });
  }
  if (wants(req, "realm_user_settings_defaults")) {
    state.realm_user_settings_defaults = {
      ...realmUserSettingsDefaults(realm),
      emojiset_choices: EMOJISET_CHOICES,
      available_notification_sounds: [...NOTIFICATION_SOUNDS],
    };
  }
  if (wants(req, "realm_billing")) state.realm_billing = { has_pending_sponsorship_request: false };
  if (wants(req, "realm_embedded_bots")) state.realm_embedded_bots = Object.keys(EMBEDDED_BOTS).map((name) => ({ name, config: {} }));
  if (wants(req, "realm_incoming_webhook_bots")) state.realm_incoming_webhook_bots = incomingWebhookBots();
  if (wants(req, "video_calls")) state.has_zoom_token = false;
  if (wants(req, "giphy")) state.giphy_api_key = "";
  // Parley's full-text search ignores no words (db/dialect.ts: FTS5 unicode61, tsvector 'simple').
  if (wants(req, "stop_words")) state.stop_words = [];
  if (wants(req, "realm_user_groups")) {
    state.realm_user_groups = await userGroupsForRealm(q, realm.id, {
      includeDeactivated: req.client.capabilities.include_deactivated_groups,
      systemGroups: await req.reads.systemGroups(),
    });
  }
  if (wants(req, "realm_emoji")) state.realm_emoji = await getRealmEmojiDict(q, realm.id);
  if (wants(req, "custom_profile_fields")) {
    // Visitors get no profile fields (Zulip: no full profiles for spectators).
    state.custom_profile_fields = visitor ? [] : (await customProfileFieldStore.listForRealm(q, realm.id)).map(customProfileFieldDict);
    state.custom_profile_field_types = Object.fromEntries(
      Object.entries(ProfileFieldType).map(([name, id]) => [name, { id, name: PROFILE_FIELD_TYPE_NAMES[id] }]),
    );
  }
  if (wants(req, "default_streams")) {
    // Guests cannot see every default channel: Zulip shows them none (and sends them no default_streams events).
    state.realm_default_streams = isGuest(user) ? [] : await initialStateStore.defaultStreamIds(q, realm.id);
  }
  // Default channel groups (Zulip's experimental DefaultStreamGroup) have no endpoints in the
  // 10.2 reference (only the register key and the default_stream_groups event): none can exist.
  if (wants(req, "default_stream_groups")) state.realm_default_stream_groups = [];
  // Zulip 10 sends linkifiers only to clients that take URL templates; the legacy list stays empty.
  if (wants(req, "realm_linkifiers")) state.realm_linkifiers = req.client.capabilities.linkifier_url_template ? await realmLinkifiers(q, realm) : [];
  if (wants(req, "realm_filters")) state.realm_filters = [];
  if (wants(req, "realm_playgrounds")) state.realm_playgrounds = await realmPlaygrounds(q, realm.id);
  if (wants(req, "realm_domains")) state.realm_domains = [];
  // A visitor has none of a user's own data (Zulip's `user_profile is None` branches).
  if (wants(req, "saved_snippets")) state.saved_snippets = visitor ? [] : (await savedSnippetStore.listForUser(q, user.id)).map(savedSnippetPayload);
  if (wants(req, "onboarding_steps")) {
    state.onboarding_steps = [];
    // No navigation tour video: the onboarding video experience is off.
    state.navigation_tour_video_url = null;
  }
  if (wants(req, "alert_words")) state.alert_words = visitor ? [] : await alertWordStore.list(q, user.id);
  if (wants(req, "muted_users")) state.muted_users = visitor ? [] : await mutedUserStore.list(q, user.id);
  if (wants(req, "drafts")) {
    // Zulip sends drafts only to users who synchronize them.
    state.drafts = !visitor && userSettings(user).enable_drafts_synchronization ? (await draftStore.listForUser(q, user.id)).map(draftPayload) : [];
  }
  if (wants(req, "scheduled_messages")) state.scheduled_messages = visitor ? [] : await listScheduledMessages(q, user);
  if (wants(req, "user_topic")) state.user_topics = visitor ? [] : await req.reads.userTopics();
  // The legacy list zulip-terminal asks for; clients that also ask for user_topic get that only.
  if (wants(req, "muted_topics") && (req.fetchEventTypes === null || !wants(req, "user_topic"))) {
    // From the reads the other sections share: [channel name, topic, time muted].
    const names = new Map((await req.reads.realmStreams()).map((s) => [s.id, s.name]));
    state.muted_topics = (visitor ? [] : await req.reads.userTopics())
      .filter((t) => t.visibility_policy === VisibilityPolicy.MUTED && names.has(t.stream_id))
      .map((t) => [names.get(t.stream_id)!, t.topic_name, Number(t.last_updated)]);
  }
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

/** Zulip's SYSTEM_GROUPS_ENUM_MAP, limited to the values each legacy policy setting had. */
const COMMON_POLICIES: Array<[string, number]> = [
  ["role:members", 1],
  ["role:administrators", 2],
  ["role:fullmembers", 3],
  ["role:moderators", 4],
];
const WEB_PUBLIC_POLICIES: Array<[string, number]> = [
  ["role:administrators", 2],
  ["role:moderators", 4],
  ["role:nobody", 6],
  ["role:owners", 7],
];

/**
 * Zulip's get_corresponding_policy_value_for_group_setting: the deprecated policy of a group
 * setting held by a system group, or `fallback` (the largest group the old policy allowed).
 */
function legacyPolicy(value: unknown, systemGroups: Map<string, number>, policies: Array<[string, number]>, fallback: number): number {
  for (const [name, policy] of policies) if (systemGroups.get(name) === value) return policy;
  return fallback;
}

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
