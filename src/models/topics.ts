/** Zulip's RESOLVED_TOPIC_PREFIX: a resolved topic's name starts with it. */
export const RESOLVED_TOPIC_PREFIX = "✔ ";

/** Zulip's Message.EMPTY_TOPIC_FALLBACK_NAME: realm_empty_topic_display_name in Zulip 10. */
export const EMPTY_TOPIC_DISPLAY_NAME = "general chat";
