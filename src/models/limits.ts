/** Zulip's size limits that requests are checked against and /register reports. */

/** settings.MAX_MESSAGE_LENGTH (characters). */
export const MAX_MESSAGE_LENGTH = 10000;
/** MAX_TOPIC_NAME_LENGTH. */
export const MAX_TOPIC_LENGTH = 60;
/** Stream.MAX_NAME_LENGTH and MAX_DESCRIPTION_LENGTH. */
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
/** NamedUserGroup.MAX_NAME_LENGTH. */
export const MAX_USER_GROUP_NAME_LENGTH = 100;
/** Realm.MAX_REALM_NAME_LENGTH and MAX_REALM_DESCRIPTION_LENGTH. */
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
/** The explanation of a message report. */
export const MAX_REPORT_EXPLANATION_LENGTH = 1000;
/** SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SNIPPET_TITLE_LENGTH = 60;
/** MAX_EMOJI_FILE_SIZE_MIB's default. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;
/** USER_STATE_SIZE_LIMIT: characters of keys and values one bot may store. */
export const BOT_STORAGE_LIMIT = 10_000_000;
/** MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS: larger channels get no typing events. */
export const MAX_CHANNEL_SIZE_FOR_TYPING = 100;
/** MAX_AVATAR_FILE_SIZE_MIB and MAX_ICON_FILE_SIZE_MIB's defaults. */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;
export const MAX_ICON_FILE_SIZE_MIB = 5;
