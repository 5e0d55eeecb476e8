import { cachedJsonColumn, overridesSchema } from "../util/jsonColumn.js";

/**
 * Personal settings (Zulip's UserBaseSettings) with their defaults and allowed values. The
 * `users.settings` column stores only values that differ from the defaults; `userSettings(user)`
 * gives the full object. The time zone and full name are columns of their own.
 */
export const USER_SETTING_DEFAULTS = {
  // display
  enter_sends: false,
  twenty_four_hour_time: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  enable_drafts_synchronization: true,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: "en",
  web_home_view: "inbox",
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: "google",
  demote_inactive_streams: 1,
  user_list_style: 3,
  web_animate_image_previews: "on_hover",
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  web_navigate_to_sent_message: true,
  // notifications
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: "zulip",
  enable_desktop_notifications: true,
  enable_sounds: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  presence_enabled: true,
  // privacy
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  email_address_visibility: 1,
} as const;

export type UserSettingName = keyof typeof USER_SETTING_DEFAULTS;
type Widen<T> = T extends boolean ? boolean : T extends number ? number : string;
export type UserSettings = { -readonly [K in UserSettingName]: Widen<(typeof USER_SETTING_DEFAULTS)[K]> };
export type UserSettingValue = boolean | number | string;

/**
 * What PATCH /settings accepts for each setting (Zulip's json_change_settings): a JSON boolean,
 * one of fixed integers, one of fixed strings, or any value of the type whose range the action
 * checks (default_language, notification_sound, email_notifications_batching_period_seconds).
 */
export type SettingRule = { kind: "bool" } | { kind: "int"; values?: readonly number[] } | { kind: "string"; values?: readonly string[] };

const BOOL: SettingRule = { kind: "bool" };
const ints = (...values: number[]): SettingRule => ({ kind: "int", values });
const strings = (...values: string[]): SettingRule => ({ kind: "string", values });

export const EMOJISETS = ["google", "google-blob", "twitter", "text"] as const;

export const USER_SETTING_RULES: { [K in UserSettingName]: SettingRule } = {
  enter_sends: BOOL,
  twenty_four_hour_time: BOOL,
  web_mark_read_on_scroll_policy: ints(1, 2, 3),
  web_channel_default_view: ints(1, 2),
  starred_message_counts: BOOL,
  receives_typing_notifications: BOOL,
  web_suggest_update_timezone: BOOL,
  fluid_layout_width: BOOL,
  high_contrast_mode: BOOL,
  // Zulip checks only that these are integers; the web app keeps them in range.
  web_font_size_px: { kind: "int" },
  web_line_height_percent: { kind: "int" },
  color_scheme: ints(1, 2, 3),
  enable_drafts_synchronization: BOOL,
  translate_emoticons: BOOL,
  display_emoji_reaction_users: BOOL,
  default_language: { kind: "string" },
  web_home_view: strings("recent_topics", "inbox", "all_messages"),
  web_escape_navigates_to_home_view: BOOL,
  left_side_userlist: BOOL,
  emojiset: strings(...EMOJISETS),
  demote_inactive_streams: ints(1, 2, 3),
  user_list_style: ints(1, 2, 3),
  web_animate_image_previews: strings("always", "on_hover", "never"),
  web_stream_unreads_count_display_policy: ints(1, 2, 3),
  hide_ai_features: BOOL,
  web_navigate_to_sent_message: BOOL,
  enable_stream_desktop_notifications: BOOL,
  enable_stream_email_notifications: BOOL,
  enable_stream_push_notifications: BOOL,
  enable_stream_audible_notifications: BOOL,
  notification_sound: { kind: "string" },
  enable_desktop_notifications: BOOL,
  enable_sounds: BOOL,
  email_notifications_batching_period_seconds: { kind: "int" },
  enable_offline_email_notifications: BOOL,
  enable_offline_push_notifications: BOOL,
  enable_online_push_notifications: BOOL,
  enable_followed_topic_desktop_notifications: BOOL,
  enable_followed_topic_email_notifications: BOOL,
  enable_followed_topic_push_notifications: BOOL,
  enable_followed_topic_audible_notifications: BOOL,
  enable_followed_topic_wildcard_mentions_notify: BOOL,
  enable_digest_emails: BOOL,
  enable_login_emails: BOOL,
  enable_marketing_emails: BOOL,
  message_content_in_email_notifications: BOOL,
  pm_content_in_desktop_notifications: BOOL,
  wildcard_mentions_notify: BOOL,
  desktop_icon_count_display: ints(1, 2, 3, 4),
  realm_name_in_email_notifications_policy: ints(1, 2, 3),
  automatically_follow_topics_policy: ints(1, 2, 3, 4),
  automatically_unmute_topics_in_muted_streams_policy: ints(1, 2, 3, 4),
  automatically_follow_topics_where_mentioned: BOOL,
  presence_enabled: BOOL,
  send_private_typing_notifications: BOOL,
  send_stream_typing_notifications: BOOL,
  send_read_receipts: BOOL,
  allow_private_data_export: BOOL,
  email_address_visibility: ints(1, 2, 3, 4, 5),
};

export const USER_SETTING_NAMES = Object.keys(USER_SETTING_DEFAULTS) as UserSettingName[];

/**
 * Settings that predate feature level 89: changing one also sends Zulip's legacy
 * `update_display_settings` (with `timezone`) or `update_global_notifications` event.
 */
export const LEGACY_DISPLAY_SETTINGS: ReadonlySet<string> = new Set([
  "color_scheme",
  "default_language",
  "web_home_view",
  "demote_inactive_streams",
  "emojiset",
  "enable_drafts_synchronization",
  "enter_sends",
  "fluid_layout_width",
  "high_contrast_mode",
  "left_side_userlist",
  "starred_message_counts",
  "translate_emoticons",
  "twenty_four_hour_time",
]);

export const LEGACY_NOTIFICATION_SETTINGS: ReadonlySet<string> = new Set([
  "desktop_icon_count_display",
  "email_notifications_batching_period_seconds",
  "enable_desktop_notifications",
  "enable_digest_emails",
  "enable_login_emails",
  "enable_marketing_emails",
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_sounds",
  "enable_stream_audible_notifications",
  "enable_stream_desktop_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "message_content_in_email_notifications",
  "notification_sound",
  "pm_content_in_desktop_notifications",
  "presence_enabled",
  "realm_name_in_email_notifications_policy",
  "wildcard_mentions_notify",
]);

/** Zulip's notification sounds (static/audio/notification_sounds); "none" turns sounds off. */
export const NOTIFICATION_SOUNDS = [
  "ascend",
  "beep_boop",
  "bink",
  "bright",
  "brlip",
  "chime",
  "deep tom",
  "ding",
  "double tap",
  "down",
  "dry bongos",
  "dutdut",
  "fast ascend",
  "flute",
  "friendly",
  "kick roll",
  "loud tintong",
  "metallic snare",
  "pan",
  "practicechat",
  "shaker",
  "simple",
  "stairs",
  "subtle",
  "swish",
  "tintong",
  "up",
  "wood block",
  "zaping",
  "zing",
  "zulip",
] as const;

/** Zulip's emojiset_choices as /register lists them. */
export const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
];

/** Longest email batching period Zulip accepts: one week. */
export const MAX_EMAIL_BATCHING_PERIOD_SECONDS = 7 * 24 * 60 * 60;

/** The languages of Zulip's translations: code → English name (the `language_name` of events). */
export const LANGUAGES: Readonly<Record<string, string>> = {
  ar: "Arabic",
  be: "Belarusian",
  bg: "Bulgarian",
  bn: "Bengali",
  ca: "Catalan",
  cs: "Czech",
  cy: "Welsh",
  da: "Danish",
  de: "German",
  el: "Greek",
  en: "English",
  "en-gb": "British English",
  eo: "Esperanto",
  es: "Spanish",
  fa: "Persian",
  fi: "Finnish",
  fr: "French",
  gl: "Galician",
  gu: "Gujarati",
  hi: "Hindi",
  hu: "Hungarian",
  id: "Indonesian",
  it: "Italian",
  ja: "Japanese",
  ko: "Korean",
  lt: "Lithuanian",
  lv: "Latvian",
  ml: "Malayalam",
  mn: "Mongolian",
  nl: "Dutch",
  no: "Norwegian",
  pa: "Punjabi",
  pl: "Polish",
  pt: "Portuguese",
  "pt-br": "Brazilian Portuguese",
  "pt-pt": "European Portuguese",
  ro: "Romanian",
  ru: "Russian",
  si: "Sinhala",
  sr: "Serbian",
  sv: "Swedish",
  ta: "Tamil",
  tl: "Tagalog",
  tr: "Turkish",
  uk: "Ukrainian",
  uz: "Uzbek",
  vi: "Vietnamese",
  "zh-hans": "Simplified Chinese",
  "zh-hant": "Traditional Chinese",
};

/** The full settings object of a user: stored overrides on top of the defaults. */
export function userSettings(user: { settings: string }): UserSettings {
  const stored = user.settings === "{}" ? {} : storedUserSettings(user.settings);
  return { ...USER_SETTING_DEFAULTS, ...stored } as UserSettings;
}

const storedUserSettings = cachedJsonColumn(overridesSchema(USER_SETTING_DEFAULTS), "users.settings");

/** Settings without a realm-wide default for new users (not in Zulip's RealmUserDefault API). */
const NOT_REALM_DEFAULTS: ReadonlySet<string> = new Set(["allow_private_data_export", "default_language", "enable_login_emails", "enable_marketing_emails"]);

/** What PATCH /realm/user_settings_defaults may change. */
export const REALM_USER_DEFAULT_SETTING_NAMES = USER_SETTING_NAMES.filter((name) => !NOT_REALM_DEFAULTS.has(name));

/** The settings the organization's new users start with (Zulip's RealmUserDefault). */
export function realmUserSettingsDefaults(realm: { user_settings_defaults: string }): UserSettings {
  return userSettings({ settings: realm.user_settings_defaults });
}

/** The JSON to store for `settings`: only keys whose value differs from the default. */
export function serializeUserSettings(settings: Partial<UserSettings>): string {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if ((USER_SETTING_DEFAULTS as Record<string, unknown>)[key] !== value) out[key] = value;
  }
  return JSON.stringify(out);
}

const CANONICAL_TIMEZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
const IANA_NAME = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/;

/**
 * An IANA zone name, or "" for "not set" (`users.timezone`). ICU lists only its canonical names
 * ("Asia/Calcutta"); links such as "Asia/Kolkata" or "US/Pacific" are accepted when ICU knows
 * them. ICU ignores case, IANA names do not: each part must start with a capital.
 */
export function isKnownTimezone(name: string): boolean {
  if (name === "" || CANONICAL_TIMEZONES.has(name)) return true;
  if (!IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
