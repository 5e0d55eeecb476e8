/** Zulip's RESOLVED_TOPIC_PREFIX: a resolved topic's name starts with it. */
export const RESOLVED_TOPIC_PREFIX = "✔ ";
