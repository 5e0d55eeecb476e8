/**
 * Personal settings (Zulip's UserBaseSettings) with their defaults. The `users.settings` column
 * stores only values that differ from these; `userSettings(user)` gives the full object.
 */
export const USER_SETTING_DEFAULTS = {
  // display
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
  user_list_style: 2,
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
  automatically_unmute_topics_in_muted_streams_policy: 3,
  automatically_follow_topics_where_mentioned: true,
  presence_enabled: true,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  email_address_visibility: 1,
} as const;

export type UserSettings = { -readonly [K in keyof typeof USER_SETTING_DEFAULTS]: (typeof USER_SETTING_DEFAULTS)[K] extends boolean ? boolean : (typeof USER_SETTING_DEFAULTS)[K] extends number ? number : string };

/** The full settings object of a user: stored overrides on top of the defaults. */
export function userSettings(user: { settings: string }): UserSettings {
  const stored = user.settings === "{}" ? {} : (JSON.parse(user.settings) as Partial<UserSettings>);
  return { ...USER_SETTING_DEFAULTS, ...stored } as UserSettings;
}

/** The JSON to store for `settings`: only keys whose value differs from the default. */
export function serializeUserSettings(settings: Partial<UserSettings>): string {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if ((USER_SETTING_DEFAULTS as Record<string, unknown>)[key] !== value) out[key] = value;
  }
  return JSON.stringify(out);
}
